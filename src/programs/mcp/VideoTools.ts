import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, ParseResult, Schema } from "effect"
import { emptyToolStats } from "../../domain/Prediction.js"
import type { TreeNode } from "../../domain/TreeIndex.js"
import type { LLMProvider } from "../../services/LLMProvider.js"
import type { VLMProvider } from "../../services/VLMProvider.js"
import type { PromptManager } from "../prompts/PromptManager.js"
import { makeCoreTools } from "../tools/Dispatcher.js"
import { makeSummaryCache } from "../tools/SummaryCache.js"
import { frameRelativePath } from "../tree/FrameSelection.js"
import { cardLines, entityAppendix, nodeSummary } from "../tree/NodeText.js"
import { jsonReply, type McpContent, type McpTool, type ToolReply, toolSchema } from "./McpTool.js"
import { capText, resultLimits } from "./ResultCaps.js"
import type { LibraryError, VideoLibrary } from "./VideoLibrary.js"

/** Seconds as `h:mm:ss` (or `h:mm:ss.s` when a tenth matters), as people read video times. */
export const clock = (seconds: number): string => {
  const tenths = Math.max(0, Math.round(seconds * 10))
  const whole = Math.floor(tenths / 10)
  const h = Math.floor(whole / 3600)
  const m = Math.floor((whole % 3600) / 60)
  const s = whole % 60
  const base = `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`
  return tenths % 10 === 0 ? base : `${base}.${tenths % 10}`
}

/** At most this many frames a call: 8 JPEGs of ≤ 768 px stay well inside a host's 1 MB. */
export const maxFramesPerCall = 8
/** The long side a frame may have; a larger one is refused rather than sent over a host's budget. */
export const maxFrameSide = 768
/** The text fields a tool fills are cut to this many characters (the result's own cap is larger). */
const fieldBudget = resultLimits.maxTextChars / 2

// ---- Schemas: what clients send and what they get back -----------------------------------------

const VideoId = Schema.String.pipe(Schema.minLength(1)).annotations({ description: "A video id from video_list" })
const NodeId = Schema.String.pipe(Schema.minLength(1)).annotations({
  description: "A node id from video_overview, video_search or video_view_node"
})
const Clock = Schema.String.annotations({ description: "h:mm:ss" })
const Level = Schema.Literal(1, 2, 3).annotations({ description: "1 scene, 2 event, 3 frame" })

const NodeBrief = Schema.Struct({
  node_id: Schema.String,
  level: Level,
  start: Clock,
  end: Clock,
  summary: Schema.String
})

const VideoListInput = Schema.Struct({})
const VideoEntry = Schema.Struct({
  video_id: Schema.String,
  duration_seconds: Schema.NullOr(Schema.Number),
  duration: Schema.NullOr(Clock),
  duration_category: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  nodes: Schema.Struct({ scenes: Schema.Number, events: Schema.Number, frames: Schema.Number }),
  has_frames: Schema.Boolean,
  has_subtitles: Schema.Boolean
})
const VideoListOutput = Schema.Struct({
  videos: Schema.Array(VideoEntry),
  unreadable: Schema.Array(Schema.Struct({ video_id: Schema.String, message: Schema.String }))
})

const OverviewInput = Schema.Struct({ video_id: VideoId })
const OverviewOutput = Schema.Struct({
  video_id: Schema.String,
  duration: Schema.NullOr(Clock),
  scenes: Schema.Array(Schema.Struct({ ...NodeBrief.fields, events: Schema.Array(NodeBrief) })),
  truncated: Schema.Boolean
})

const ViewNodeInput = Schema.Struct({
  node_id: NodeId,
  question: Schema.optional(Schema.String.annotations({
    description: "With a question (and a tool model configured) the node is summarized for it"
  }))
})
const ViewNodeOutput = Schema.Struct({
  node_id: Schema.String,
  video_id: Schema.String,
  level: Level,
  start: Clock,
  end: Clock,
  mode: Schema.Literal("summarized", "card").annotations({
    description: "summarized: the agent's view_node for the question; card: the node's own text"
  }),
  text: Schema.String,
  children: Schema.Array(NodeBrief),
  truncated: Schema.Boolean
})

const SearchInput = Schema.Struct({
  video_id: VideoId,
  query: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(400)),
  k: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 20)).annotations({ description: "How many nodes; 5 by default" })
  )
})
const SearchOutput = Schema.Struct({
  video_id: Schema.String,
  query: Schema.String,
  hits: Schema.Array(Schema.Struct({ ...NodeBrief.fields, score: Schema.Number }))
})

const FramesInput = Schema.Struct({
  node_ids: Schema.Array(NodeId).annotations({
    description: `Frame (L3) node ids, at most ${maxFramesPerCall}; an event (L2) id stands for its frames`
  })
})
const FramesOutput = Schema.Struct({
  frames: Schema.Array(Schema.Struct({ node_id: Schema.String, time: Clock, mime_type: Schema.String }))
})

const SubtitlesInput = Schema.Struct({
  video_id: VideoId,
  start: Schema.Number.pipe(Schema.nonNegative()).annotations({ description: "Seconds" }),
  end: Schema.Number.pipe(Schema.nonNegative()).annotations({ description: "Seconds" })
})
const SubtitlesOutput = Schema.Struct({
  video_id: Schema.String,
  start: Clock,
  end: Clock,
  segments: Schema.Array(Schema.Struct({ node_id: Schema.String, start: Clock, end: Clock, text: Schema.String })),
  truncated: Schema.Boolean
})

// ---- Shared pieces ----------------------------------------------------------------------------------

const readOnly = (title: string) => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
})

const failure = (code: string, message: string): ToolReply => ({
  content: [{ type: "text", text: `${code}: ${message}` }],
  isError: true
})

const fromLibraryError = (error: LibraryError) => failure(error.reason, error.message)

/** A tool whose arguments are decoded with `input`; bad arguments are an error reply naming the field. */
const defineVideoTool = <A, I, R>(spec: {
  readonly name: string
  readonly description: string
  readonly title: string
  readonly input: Schema.Schema<A, I, never>
  readonly output: Schema.Schema<any, any, never>
  readonly run: (args: A) => Effect.Effect<ToolReply, LibraryError, R>
}): McpTool<R> => {
  const decode = Schema.decodeUnknownEither(spec.input, { errors: "all", onExcessProperty: "error" })
  return {
    name: spec.name,
    description: spec.description,
    annotations: readOnly(spec.title),
    inputSchema: toolSchema(spec.input),
    outputSchema: toolSchema(spec.output),
    call: (args) =>
      Either.match(decode(args), {
        onLeft: (error) =>
          Effect.succeed(
            failure("INVALID_ARGUMENTS", `${spec.name}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
          ),
        onRight: (decoded) =>
          spec.run(decoded).pipe(Effect.catchAll((error) => Effect.succeed(fromLibraryError(error))))
      })
  }
}

const brief = (node: TreeNode) => ({
  node_id: node.id,
  level: node.level,
  start: clock(node.timeRange[0]),
  end: clock(node.timeRange[1]),
  summary: capText(nodeSummary(node, 160).replace(/\s+/g, " ").trim(), 300).text
})

/** The node's own text: card lines, subtitle, entity appendix. */
const cardText = (node: TreeNode): string => {
  const appendix = entityAppendix(node)
  return [
    ...cardLines(node),
    ...(node.subtitle.trim() === "" ? [] : [`subtitle: ${node.subtitle.trim()}`]),
    ...(appendix.entities.length === 0 ? [] : [`entities: ${appendix.entities.join(", ")}`]),
    ...(appendix.visibleText.length === 0 ? [] : [`on-screen text: ${appendix.visibleText.join(", ")}`])
  ].join("\n")
}

const has = (value: string) => value.trim() !== ""

export interface VideoToolOptions {
  readonly library: VideoLibrary
  readonly prompts: PromptManager
  /** A tool model is configured: view_node with a question summarizes as the agent's tool does. */
  readonly summarize: boolean
}

/** The video tree as MCP tools: every tool reads, none writes. */
export const makeVideoTools = (
  options: VideoToolOptions
): ReadonlyArray<McpTool<LLMProvider | VLMProvider | FileSystem.FileSystem | Path.Path>> => {
  const { library } = options
  const videoList = defineVideoTool({
    name: "video_list",
    title: "List videos",
    description:
      "Every video served: duration, domain, nodes per level (scenes, events, frames), whether it has frames and subtitles.",
    input: VideoListInput,
    output: VideoListOutput,
    run: () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const videos: Array<typeof VideoEntry.Type> = []
        const unreadable: Array<{ video_id: string; message: string }> = []
        for (const videoId of library.videoIds) {
          const loaded = yield* Effect.either(library.tree(videoId))
          if (Either.isLeft(loaded)) {
            unreadable.push({ video_id: videoId, message: loaded.left.message })
            continue
          }
          const { index, dir } = loaded.right
          const counts = { scenes: 0, events: 0, frames: 0 }
          let firstFrame: TreeNode | undefined
          let subtitles = false
          for (const node of index.nodes.values()) {
            if (node.level === 1) counts.scenes += 1
            else if (node.level === 2) counts.events += 1
            else {
              counts.frames += 1
              firstFrame ??= node
            }
            if (!subtitles && has(node.subtitle)) subtitles = true
          }
          const hasFrames = firstFrame === undefined
            ? false
            : yield* fs.exists(path.join(dir, frameRelativePath(index, firstFrame))).pipe(
              Effect.orElseSucceed(() => false)
            )
          videos.push({
            video_id: videoId,
            duration_seconds: index.durationSeconds,
            duration: index.durationSeconds === null ? null : clock(index.durationSeconds),
            duration_category: index.durationCategory,
            domain: index.domain,
            nodes: counts,
            has_frames: hasFrames,
            has_subtitles: subtitles
          })
        }
        return jsonReply({ videos, unreadable })
      })
  })

  const videoOverview = defineVideoTool({
    name: "video_overview",
    title: "Video overview",
    description: "The scenes and events of a video with their times (h:mm:ss) and a one-line summary each.",
    input: OverviewInput,
    output: OverviewOutput,
    run: ({ video_id }) =>
      Effect.gen(function*() {
        const { index } = yield* library.tree(video_id)
        let budget = fieldBudget
        let truncated = false
        const scenes: Array<typeof OverviewOutput.Type["scenes"][number]> = []
        for (const rootId of index.rootIds) {
          const scene = index.nodes.get(rootId)!
          const events = []
          for (const childId of scene.childrenIds) {
            const child = index.nodes.get(childId)
            if (child === undefined || child.level !== 2) continue
            const item = brief(child)
            budget -= item.summary.length + item.node_id.length + 40
            if (budget < 0) {
              truncated = true
              break
            }
            events.push(item)
          }
          const item = brief(scene)
          budget -= item.summary.length + item.node_id.length + 40
          if (budget < 0) truncated = true
          if (truncated && events.length === 0) break
          scenes.push({ ...item, events })
          if (truncated) break
        }
        return jsonReply({
          video_id,
          duration: index.durationSeconds === null ? null : clock(index.durationSeconds),
          scenes,
          truncated
        })
      })
  })

  const videoViewNode = defineVideoTool({
    name: "video_view_node",
    title: "View a node",
    description:
      "One node of a video tree. With a question and a tool model configured: summarized for the question, as vtree's agent sees it; otherwise the card, subtitle, entities and children.",
    input: ViewNodeInput,
    output: ViewNodeOutput,
    run: ({ node_id, question }) =>
      Effect.gen(function*() {
        const { tree, node } = yield* library.treeOfNode(node_id)
        const children = node.childrenIds.flatMap((id) => {
          const child = tree.index.nodes.get(id)
          return child === undefined ? [] : [brief(child)]
        })
        const summarized = options.summarize && question !== undefined && has(question)
        let text = cardText(node)
        if (summarized) {
          const tools = makeCoreTools({
            tree,
            prompts: options.prompts,
            question: question!,
            cache: makeSummaryCache(),
            stats: emptyToolStats(),
            anchor: "off",
            batchConcurrency: 4,
            verifyVision: true
          }, { skillMode: "none" })
          const viewNode = tools.find((tool) => tool.name === "view_node")!
          text = (yield* viewNode.run({ node_id, question })).output
        }
        const capped = capText(text, fieldBudget)
        return jsonReply({
          node_id,
          video_id: tree.index.videoId,
          level: node.level,
          start: clock(node.timeRange[0]),
          end: clock(node.timeRange[1]),
          mode: summarized ? "summarized" : "card",
          text: capped.text,
          children: children.slice(0, 200),
          truncated: capped.cut > 0 || children.length > 200
        })
      })
  })

  const videoSearch = defineVideoTool({
    name: "video_search",
    title: "Search a video",
    description:
      "The nodes of a video best matching a query, over cards and subtitles (BM25, or hybrid with embeddings when configured).",
    input: SearchInput,
    output: SearchOutput,
    run: ({ k, query, video_id }) =>
      Effect.gen(function*() {
        const tree = yield* library.tree(video_id)
        const hits = yield* Effect.either(tree.search(query, k ?? 5))
        if (Either.isLeft(hits)) return failure("SEARCH_FAILED", hits.left.message)
        return jsonReply({
          video_id,
          query,
          hits: hits.right.map((hit) => ({
            ...brief(tree.index.nodes.get(hit.nodeId)!),
            score: Math.round(hit.score * 1000) / 1000
          }))
        })
      })
  })

  const videoFrames = defineVideoTool({
    name: "video_frames",
    title: "See frames",
    description:
      `Frames as images (JPEG), each with its node id and time: frame (L3) ids, or an event (L2) id for its frames; at most ${maxFramesPerCall} a call.`,
    input: FramesInput,
    output: FramesOutput,
    run: ({ node_ids }) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const frames: Array<{ node: TreeNode; dir: string; relative: string }> = []
        for (const id of new Set(node_ids)) {
          const { node, tree } = yield* library.treeOfNode(id)
          const nodes = node.level === 3
            ? [node]
            : node.level === 2
            ? node.childrenIds.flatMap((child) => {
              const found = tree.index.nodes.get(child)
              return found?.level === 3 ? [found] : []
            })
            : []
          if (node.level === 1) {
            return failure(
              "SCENE_NODE",
              `${id} is a scene: pass its events' or frames' ids (video_view_node lists them)`
            )
          }
          for (const frame of nodes) {
            frames.push({ node: frame, dir: tree.dir, relative: frameRelativePath(tree.index, frame) })
          }
        }
        if (frames.length === 0) return failure("NO_FRAMES", "no frames for these ids")
        if (frames.length > maxFramesPerCall) {
          return failure(
            "TOO_MANY_FRAMES",
            `${frames.length} frames asked for; at most ${maxFramesPerCall} a call — pass fewer ids`
          )
        }
        const content: Array<McpContent> = []
        const listed: Array<{ node_id: string; time: string; mime_type: string }> = []
        for (const frame of frames) {
          const bytes = yield* fs.readFile(path.join(frame.dir, frame.relative)).pipe(Effect.either)
          const time = clock(frame.node.timeRange[0])
          if (Either.isLeft(bytes)) {
            content.push({ type: "text", text: `${frame.node.id} at ${time}: frame file missing (${frame.relative})` })
            continue
          }
          const size = jpegSize(bytes.right)
          if (size === undefined) {
            content.push({ type: "text", text: `${frame.node.id} at ${time}: not a JPEG frame (${frame.relative})` })
            continue
          }
          if (Math.max(size.width, size.height) > maxFrameSide) {
            content.push({
              type: "text",
              text:
                `${frame.node.id} at ${time}: ${size.width}x${size.height} px is over ${maxFrameSide} px — rebuild the tree with --frame-width ${maxFrameSide} or less`
            })
            continue
          }
          content.push({ type: "text", text: `${frame.node.id} at ${time}` })
          content.push({ type: "image", data: Buffer.from(bytes.right).toString("base64"), mimeType: "image/jpeg" })
          listed.push({ node_id: frame.node.id, time, mime_type: "image/jpeg" })
        }
        return { content, structuredContent: { frames: listed }, isError: listed.length === 0 }
      })
  })

  const videoSubtitles = defineVideoTool({
    name: "video_subtitles",
    title: "Subtitles",
    description: "What is said between two times (seconds), from the subtitles of the finest nodes covering them.",
    input: SubtitlesInput,
    output: SubtitlesOutput,
    run: ({ end, start, video_id }) =>
      Effect.gen(function*() {
        if (end < start) return failure("INVALID_ARGUMENTS", "video_subtitles: end is before start")
        const { index } = yield* library.tree(video_id)
        // Events carry the subtitle of their span; scenes without events carry their own.
        const spans = [...index.nodes.values()].filter((node) =>
          node.timeRange[1] >= start && node.timeRange[0] <= end && has(node.subtitle) &&
          (node.level === 2 || (node.level === 1 && !node.childrenIds.some((id) => index.nodes.get(id)?.level === 2)))
        ).sort((a, b) => a.timeRange[0] - b.timeRange[0])
        let budget = fieldBudget
        let truncated = false
        const segments = []
        for (const node of spans) {
          const capped = capText(node.subtitle.trim(), budget)
          budget -= capped.text.length
          if (capped.text.length > 0) {
            segments.push({
              node_id: node.id,
              start: clock(node.timeRange[0]),
              end: clock(node.timeRange[1]),
              text: capped.text
            })
          }
          if (capped.cut > 0) {
            truncated = true
            break
          }
        }
        return jsonReply({ video_id, start: clock(start), end: clock(end), segments, truncated })
      })
  })

  return [videoList, videoOverview, videoViewNode, videoSearch, videoFrames, videoSubtitles]
}

/** Width and height from a JPEG's start-of-frame marker; none when the bytes are not a JPEG. */
export const jpegSize = (bytes: Uint8Array): { readonly width: number; readonly height: number } | undefined => {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined
  let at = 2
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined
    const marker = bytes[at + 1]!
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!
    // SOF0–SOF15 carry the size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (bytes[at + 5]! << 8) | bytes[at + 6]!, width: (bytes[at + 7]! << 8) | bytes[at + 8]! }
    }
    at += 2 + length
  }
  return undefined
}
