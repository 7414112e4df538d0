import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Schema } from "effect"
import type { TreeNode } from "../../domain/TreeIndex.js"
import { Thumbnailer } from "../../services/Thumbnailer.js"
import { resolveFramePath } from "../tree/FramePath.js"
import { eventFrames, maxEventFrames } from "../tree/FrameSelection.js"
import { cardLines } from "../tree/NodeText.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import type { McpContent, McpTool } from "./McpTool.js"
import { frameUri } from "./ResourceUris.js"
import { capText } from "./ResultCaps.js"
import type { VideoLibrary } from "./VideoLibrary.js"
import { Clock, clock, defineVideoTool, failure, NodeId } from "./VideoToolKit.js"

/** At most this many frames a call: 8 JPEGs of ≤ 768 px stay well inside a host's 1 MB. */
export const maxFramesPerCall = maxEventFrames
/** A frame's card beside its image: 8 of them stay well inside a result's text budget. */
const maxCardChars = 2_000
/** The long side a frame is sent with; a larger frame is scaled down to it first. */
export const maxFrameSide = 768

const FramesInput = Schema.Struct({
  node_ids: Schema.Array(NodeId).annotations({
    description:
      `Frame (L3) node ids, at most ${maxFramesPerCall} frames a call; an event (L2) id stands for its frames, evenly sampled to ${maxFramesPerCall}`
  })
})
const FramesOutput = Schema.Struct({
  frames: Schema.Array(Schema.Struct({ node_id: Schema.String, time: Clock, mime_type: Schema.String }))
})

/** Why a frame file cannot be sent, in words for the client. */
export type FrameProblem = { readonly _tag: "Missing" } | { readonly _tag: "NotJpeg" } | {
  readonly _tag: "Unreadable"
  readonly message: string
}

/**
 * A frame file as a JPEG whose long side is at most `maxFrameSide`: as it is when it already fits (no
 * re-encoding), else scaled down with its aspect kept. Trees built with a larger --frame-width are served
 * too, each frame within what a host accepts.
 */
export const frameJpeg = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const bytes = yield* fs.readFile(file).pipe(Effect.either)
    if (Either.isLeft(bytes)) return Either.left<FrameProblem>({ _tag: "Missing" })
    const size = jpegSize(bytes.right)
    if (size === undefined) return Either.left<FrameProblem>({ _tag: "NotJpeg" })
    if (Math.max(size.width, size.height) <= maxFrameSide) return Either.right(bytes.right)
    const thumbnailer = yield* Thumbnailer
    const scaled = yield* thumbnailer.thumbnail(file, maxFrameSide, maxFrameSide).pipe(Effect.either)
    return Either.isLeft(scaled)
      ? Either.left<FrameProblem>({ _tag: "Unreadable", message: scaled.left.message })
      : Either.right(scaled.right.jpeg)
  })

/** What a problem with a frame file reads as, naming the file relative to its tree. */
export const frameProblemText = (problem: FrameProblem, relative: string): string =>
  problem._tag === "Missing"
    ? `frame file missing (${relative})`
    : problem._tag === "NotJpeg"
    ? `not a JPEG frame (${relative})`
    : problem.message

/**
 * The frame nodes the ids stand for, in order: a frame (L3) id itself, an event (L2) id its frames
 * evenly sampled to the cap (FrameSelection's rule, as observe_frame); a scene is a failure reply.
 */
const framesOf = (library: VideoLibrary, nodeIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const frames: Array<{ node: TreeNode; tree: TreeEnvironment }> = []
    for (const id of new Set(nodeIds)) {
      const { node, tree } = yield* library.treeOfNode(id)
      if (node.level === 1) {
        return Either.left(
          failure("SCENE_NODE", `${id} is a scene: pass its events' or frames' ids (video_view_node lists them)`)
        )
      }
      const nodes = node.level === 3 ? [node] : eventFrames(tree.index, node, maxFramesPerCall)
      for (const frame of nodes) frames.push({ node: frame, tree })
    }
    if (frames.length === 0) return Either.left(failure("NO_FRAMES", "no frames for these ids"))
    if (frames.length > maxFramesPerCall) {
      return Either.left(failure(
        "TOO_MANY_FRAMES",
        `${frames.length} frames asked for; at most ${maxFramesPerCall} a call — pass fewer ids`
      ))
    }
    return Either.right(frames)
  })

interface FrameContent {
  readonly content: ReadonlyArray<McpContent>
  readonly time: string
  readonly sent: boolean
}

/** One frame's content: its label and image, or its label and why it cannot be shown. */
const frameContent = (frame: { node: TreeNode; tree: TreeEnvironment }) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const time = clock(frame.node.timeRange[0])
    const unsent = (why: string): FrameContent => ({
      content: [{ type: "text", text: `${frame.node.id} at ${time}: ${why}` }],
      time,
      sent: false
    })
    const file = yield* Effect.either(resolveFramePath(frame.tree.dir, frame.tree.index, frame.node))
    if (Either.isLeft(file)) return unsent(file.left.message)
    const jpeg = yield* frameJpeg(file.right)
    if (Either.isLeft(jpeg)) return unsent(frameProblemText(jpeg.left, path.relative(frame.tree.dir, file.right)))
    const label = `${frame.node.id} at ${time}`
    // A host that drops images (ChatGPT shows `{}`) still has the frame's card and a link to read it by.
    const shown: FrameContent = {
      content: [
        { type: "text", text: capText([label, ...cardLines(frame.node)].join("\n"), maxCardChars).text },
        { type: "image", data: Buffer.from(jpeg.right).toString("base64"), mimeType: "image/jpeg" },
        {
          type: "resource_link",
          uri: frameUri(frame.node.id),
          name: frame.node.id,
          mimeType: "image/jpeg",
          description: label
        }
      ],
      time,
      sent: true
    }
    return shown
  })

/** `video_frames`: frames as MCP image content, each with its node id and time. */
export const makeFrameTool = (
  library: VideoLibrary
): McpTool<FileSystem.FileSystem | Path.Path | Thumbnailer> =>
  defineVideoTool({
    name: "video_frames",
    title: "See frames",
    description:
      `Frames as images (JPEG, long side at most ${maxFrameSide} px), each with its node id, time and card and a vtree://frame link: frame (L3) ids, or an event (L2) id for its frames evenly sampled to ${maxFramesPerCall}; at most ${maxFramesPerCall} a call.`,
    input: FramesInput,
    output: FramesOutput,
    run: ({ node_ids }) =>
      Effect.gen(function*() {
        const selected = yield* framesOf(library, node_ids)
        if (Either.isLeft(selected)) return selected.left
        const content: Array<McpContent> = []
        const listed: Array<{ node_id: string; time: string; mime_type: string }> = []
        for (const frame of selected.right) {
          const shown = yield* frameContent(frame)
          for (const part of shown.content) content.push(part)
          if (shown.sent) listed.push({ node_id: frame.node.id, time: shown.time, mime_type: "image/jpeg" })
        }
        return { content, structuredContent: { frames: listed }, isError: listed.length === 0 }
      })
  })

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
