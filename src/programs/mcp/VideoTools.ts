import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { Effect, Either, Schema } from "effect"
import { emptyToolStats } from "../../domain/Prediction.js"
import type { TreeEntity } from "../../domain/Tree.js"
import type { TreeIndex, TreeNode } from "../../domain/TreeIndex.js"
import type { LLMProvider } from "../../services/LLMProvider.js"
import type { Thumbnailer } from "../../services/Thumbnailer.js"
import type { VLMProvider } from "../../services/VLMProvider.js"
import type { PromptManager } from "../prompts/PromptManager.js"
import { makeCoreTools } from "../tools/Dispatcher.js"
import { makeSummaryCache } from "../tools/SummaryCache.js"
import { resolveFramePath } from "../tree/FramePath.js"
import { keywordNote, searchOrKeywords } from "../tree/KeywordFallback.js"
import { cardLines, entityAppendix } from "../tree/NodeText.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { makeFrameTool } from "./FrameTool.js"
import { jsonReply, type McpTool } from "./McpTool.js"
import { capText } from "./ResultCaps.js"
import { pageOf, pageSizes, type VideoLibrary } from "./VideoLibrary.js"
import {
  brief,
  Clock,
  clock,
  defineVideoTool,
  failure,
  fieldBudget,
  has,
  Level,
  NodeBrief,
  NodeId,
  VideoId
} from "./VideoToolKit.js"

// ---- Schemas: what clients send and what they get back -----------------------------------------

const VideoListInput = Schema.Struct({
  cursor: Schema.optional(Schema.String.annotations({ description: "next_cursor of the previous page" }))
})
const VideoEntry = Schema.Struct({
  video_id: Schema.String,
  duration_seconds: Schema.NullOr(Schema.Number),
  duration: Schema.NullOr(Clock),
  duration_category: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  nodes: Schema.Struct({ scenes: Schema.Number, events: Schema.Number, frames: Schema.Number }),
  has_frames: Schema.Boolean,
  has_subtitles: Schema.Boolean,
  entities: Schema.Number.annotations({ description: "Entries in the tree's entity registry (0 when it has none)" })
})
const VideoListOutput = Schema.Struct({
  videos: Schema.Array(VideoEntry),
  unreadable: Schema.Array(Schema.Struct({ video_id: Schema.String, message: Schema.String })),
  total: Schema.Number.annotations({ description: "Videos served in all" }),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor for the next page; null on the last"
  })
})

const OverviewInput = Schema.Struct({ video_id: VideoId })
const EntityEntry = Schema.Struct({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  appearance: Schema.NullOr(Schema.String),
  identity: Schema.NullOr(Schema.String),
  first_seen: Schema.NullOr(Clock),
  // A built registry's; left out for an imported one, which has none of them.
  aliases: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  description: Schema.optionalWith(Schema.String, { exact: true }),
  nodes: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }).annotations({
    description: "Scene and event ids it appears in, for view_node"
  })
})
const OverviewOutput = Schema.Struct({
  video_id: Schema.String,
  duration: Schema.NullOr(Clock),
  entities: Schema.Array(EntityEntry).annotations({
    description: "The tree's entity registry (people and things tracked across the video), when it has one"
  }),
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
  query: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(400)).annotations({
    description: "What to look for in the video, in words (at most 400 characters)"
  }),
  k: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 20)).annotations({ description: "How many nodes, 1 to 20; 5 by default" })
  )
})
const SearchOutput = Schema.Struct({
  video_id: Schema.String,
  query: Schema.String,
  hits: Schema.Array(Schema.Struct({ ...NodeBrief.fields, score: Schema.Number })),
  /** Present when the embedding search failed and these are keyword (BM25) hits: why, as the agent's tool says it. */
  note: Schema.optional(Schema.String)
})

const SubtitlesInput = Schema.Struct({
  video_id: VideoId,
  start: Schema.Number.pipe(Schema.nonNegative()).annotations({ description: "From this many seconds into the video" }),
  end: Schema.Number.pipe(Schema.nonNegative()).annotations({ description: "To this many seconds into the video" })
})
const SubtitlesOutput = Schema.Struct({
  video_id: Schema.String,
  start: Clock,
  end: Clock,
  segments: Schema.Array(Schema.Struct({ node_id: Schema.String, start: Clock, end: Clock, text: Schema.String })),
  truncated: Schema.Boolean
})

/** The node's own text: card lines, subtitle, entity appendix (with the registry's entries, as view_node's). */
const cardText = (node: TreeNode, registry: ReadonlyArray<TreeEntity>): string => {
  const appendix = entityAppendix(node, registry)
  return [
    ...cardLines(node),
    ...(node.subtitle.trim() === "" ? [] : [`subtitle: ${node.subtitle.trim()}`]),
    ...(appendix.entities.length === 0 ? [] : [`entities: ${appendix.entities.join(", ")}`]),
    ...(appendix.visibleText.length === 0 ? [] : [`on-screen text: ${appendix.visibleText.join(", ")}`])
  ].join("\n")
}

export interface VideoToolOptions {
  readonly library: VideoLibrary
  readonly prompts: PromptManager
  /** A tool model is configured: view_node with a question summarizes as the agent's tool does. */
  readonly summarize: boolean
}

/** One video's entry in video_list: counts per level, and whether its frames and subtitles are there. */
const videoEntry = (videoId: string, tree: TreeEnvironment) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const { dir, index } = tree
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
      : yield* resolveFramePath(dir, index, firstFrame).pipe(
        Effect.flatMap((file) => fs.exists(file)),
        Effect.orElseSucceed(() => false)
      )
    const entry: typeof VideoEntry.Type = {
      video_id: videoId,
      duration_seconds: index.durationSeconds,
      duration: index.durationSeconds === null ? null : clock(index.durationSeconds),
      duration_category: index.durationCategory,
      domain: index.domain,
      nodes: counts,
      has_frames: hasFrames,
      has_subtitles: subtitles,
      entities: index.entities?.length ?? 0
    }
    return entry
  })

const videoListTool = (library: VideoLibrary) =>
  defineVideoTool({
    name: "video_list",
    title: "List videos",
    description:
      "The videos served, a page at a time (pass next_cursor for the next): duration, domain, nodes per level " +
      "(scenes, events, frames), whether it has frames and subtitles.",
    input: VideoListInput,
    output: VideoListOutput,
    run: ({ cursor }) =>
      Effect.gen(function*() {
        const paged = pageOf(library.videoIds, cursor, pageSizes.videoList)
        if (paged === undefined) {
          return failure(
            "INVALID_ARGUMENTS",
            "video_list: cursor is not a next_cursor video_list gave — start again without it"
          )
        }
        const videos: Array<typeof VideoEntry.Type> = []
        const unreadable: Array<{ video_id: string; message: string }> = []
        // Only this page's trees are opened, one at a time, through the bounded tree library.
        for (const videoId of paged.page) {
          const loaded = yield* Effect.either(library.tree(videoId))
          if (Either.isLeft(loaded)) unreadable.push({ video_id: videoId, message: loaded.left.message })
          else videos.push(yield* videoEntry(videoId, loaded.right))
        }
        return jsonReply({ videos, unreadable, total: library.videoIds.length, next_cursor: paged.next })
      })
  })

/** The registry's entries, at most half the reply's budget: a long registry leaves room for the scenes. */
const overviewEntities = (index: TreeIndex) => {
  let budget = fieldBudget
  const entities: Array<typeof EntityEntry.Type> = []
  for (const entity of index.entities ?? []) {
    const entry = {
      id: entity.id,
      name: entity.name ?? null,
      appearance: entity.appearance ?? null,
      identity: entity.identity ?? null,
      first_seen: entity.first_seen === undefined ? null : clock(entity.first_seen),
      ...(entity.aliases === undefined ? {} : { aliases: entity.aliases }),
      ...(entity.description === undefined ? {} : { description: entity.description }),
      ...(entity.nodes === undefined ? {} : { nodes: entity.nodes })
    }
    const size = JSON.stringify(entry).length
    if (budget - size < fieldBudget / 2) return { entities, budget, truncated: true }
    budget -= size
    entities.push(entry)
  }
  return { entities, budget, truncated: false }
}

/** video_overview's reply: entities, then scenes with their events, within the field budget. */
export const overviewOf = (videoId: string, index: TreeIndex): typeof OverviewOutput.Type => {
  const { entities, ...left } = overviewEntities(index)
  let { budget, truncated } = left
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
  return {
    video_id: videoId,
    duration: index.durationSeconds === null ? null : clock(index.durationSeconds),
    entities,
    scenes,
    truncated
  }
}

const videoOverviewTool = (library: VideoLibrary) =>
  defineVideoTool({
    name: "video_overview",
    title: "Video overview",
    description: "The scenes and events of a video with their times (h:mm:ss) and a one-line summary each.",
    input: OverviewInput,
    output: OverviewOutput,
    run: ({ video_id }) => Effect.map(library.tree(video_id), ({ index }) => jsonReply(overviewOf(video_id, index)))
  })

/** The node as the agent's view_node shows it for the question (summarized by the tool model). */
const summarizedNode = (options: VideoToolOptions, tree: TreeEnvironment, nodeId: string, question: string) => {
  const tools = makeCoreTools({
    tree,
    prompts: options.prompts,
    question,
    cache: makeSummaryCache(),
    stats: emptyToolStats(),
    anchor: "off",
    batchConcurrency: 4,
    verifyVision: true
  }, { skillMode: "none" })
  const viewNode = tools.find((tool) => tool.name === "view_node")!
  return Effect.map(viewNode.run({ node_id: nodeId, question }), (result) => result.output)
}

const videoViewNodeTool = (options: VideoToolOptions) =>
  defineVideoTool({
    name: "video_view_node",
    title: "View a node",
    description:
      "One node of a video tree. With a question and a tool model configured: summarized for the question, as vtree's agent sees it; otherwise the card, subtitle, entities and children.",
    input: ViewNodeInput,
    output: ViewNodeOutput,
    run: ({ node_id, question }) =>
      Effect.gen(function*() {
        const { node, tree } = yield* options.library.treeOfNode(node_id)
        const children = node.childrenIds.flatMap((id) => {
          const child = tree.index.nodes.get(id)
          return child === undefined ? [] : [brief(child)]
        })
        const summarized = options.summarize && question !== undefined && has(question)
        const text = summarized
          ? yield* summarizedNode(options, tree, node_id, question!)
          : cardText(node, tree.index.entities ?? [])
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

const videoSearchTool = (library: VideoLibrary) =>
  defineVideoTool({
    name: "video_search",
    title: "Search a video",
    description:
      "The nodes of a video best matching a query, over cards and subtitles (BM25, or hybrid with embeddings when configured).",
    input: SearchInput,
    output: SearchOutput,
    run: ({ k, query, video_id }) =>
      Effect.gen(function*() {
        const tree = yield* library.tree(video_id)
        // Degrade, don't fail: an embedding call that fails answers with keyword hits and says so.
        const { fallback, hits } = yield* searchOrKeywords(tree, query, k ?? 5)
        return jsonReply({
          video_id,
          query,
          ...(fallback === null ? {} : { note: keywordNote(fallback) }),
          hits: hits.map((hit) => ({
            ...brief(tree.index.nodes.get(hit.nodeId)!),
            score: Math.round(hit.score * 1000) / 1000
          }))
        })
      })
  })

/** What is said between two times: the subtitles of the finest nodes covering them, within the budget. */
export const subtitlesOf = (index: TreeIndex, start: number, end: number) => {
  // Events carry the subtitle of their span; scenes without events carry their own.
  const spans = [...index.nodes.values()].filter((node) =>
    node.timeRange[1] >= start && node.timeRange[0] <= end && has(node.subtitle) &&
    (node.level === 2 || (node.level === 1 && !node.childrenIds.some((id) => index.nodes.get(id)?.level === 2)))
  ).sort((a, b) => a.timeRange[0] - b.timeRange[0])
  let budget = fieldBudget
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
    if (capped.cut > 0) return { segments, truncated: true }
  }
  return { segments, truncated: false }
}

const videoSubtitlesTool = (library: VideoLibrary) =>
  defineVideoTool({
    name: "video_subtitles",
    title: "Subtitles",
    description: "What is said between two times (seconds), from the subtitles of the finest nodes covering them.",
    input: SubtitlesInput,
    output: SubtitlesOutput,
    run: ({ end, start, video_id }) =>
      end < start
        ? Effect.succeed(failure("INVALID_ARGUMENTS", "video_subtitles: end is before start"))
        : Effect.map(
          library.tree(video_id),
          ({ index }) =>
            jsonReply({ video_id, start: clock(start), end: clock(end), ...subtitlesOf(index, start, end) })
        )
  })

/** The video tree as MCP tools: every tool reads, none writes. */
export const makeVideoTools = (
  options: VideoToolOptions
): ReadonlyArray<McpTool<LLMProvider | VLMProvider | FileSystem.FileSystem | Path.Path | Thumbnailer>> => [
  videoListTool(options.library),
  videoOverviewTool(options.library),
  videoViewNodeTool(options),
  videoSearchTool(options.library),
  makeFrameTool(options.library),
  videoSubtitlesTool(options.library)
]
