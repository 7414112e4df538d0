import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Schema } from "effect"
import type { TreeNode } from "../../domain/TreeIndex.js"
import { Thumbnailer } from "../../services/Thumbnailer.js"
import { frameRelativePath } from "../tree/FrameSelection.js"
import type { McpContent, McpTool } from "./McpTool.js"
import type { VideoLibrary } from "./VideoLibrary.js"
import { Clock, clock, defineVideoTool, failure, NodeId } from "./VideoToolKit.js"

/** At most this many frames a call: 8 JPEGs of ≤ 768 px stay well inside a host's 1 MB. */
export const maxFramesPerCall = 8
/** The long side a frame is sent with; a larger frame is scaled down to it first. */
export const maxFrameSide = 768

const FramesInput = Schema.Struct({
  node_ids: Schema.Array(NodeId).annotations({
    description: `Frame (L3) node ids, at most ${maxFramesPerCall}; an event (L2) id stands for its frames`
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

/** `video_frames`: frames as MCP image content, each with its node id and time. */
export const makeFrameTool = (
  library: VideoLibrary
): McpTool<FileSystem.FileSystem | Path.Path | Thumbnailer> =>
  defineVideoTool({
    name: "video_frames",
    title: "See frames",
    description:
      `Frames as images (JPEG, long side at most ${maxFrameSide} px), each with its node id and time: frame (L3) ids, or an event (L2) id for its frames; at most ${maxFramesPerCall} a call.`,
    input: FramesInput,
    output: FramesOutput,
    run: ({ node_ids }) =>
      Effect.gen(function*() {
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
          const time = clock(frame.node.timeRange[0])
          const jpeg = yield* frameJpeg(path.join(frame.dir, frame.relative))
          if (Either.isLeft(jpeg)) {
            const problem = jpeg.left
            const why = problem._tag === "Missing"
              ? `frame file missing (${frame.relative})`
              : problem._tag === "NotJpeg"
              ? `not a JPEG frame (${frame.relative})`
              : problem.message
            content.push({ type: "text", text: `${frame.node.id} at ${time}: ${why}` })
            continue
          }
          content.push({ type: "text", text: `${frame.node.id} at ${time}` })
          content.push({ type: "image", data: Buffer.from(jpeg.right).toString("base64"), mimeType: "image/jpeg" })
          listed.push({ node_id: frame.node.id, time, mime_type: "image/jpeg" })
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
