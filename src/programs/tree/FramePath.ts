// Where a frame node's image is: the one resolver every reader goes through (observe_frame, MCP video_frames
// and vtree://frame, tree pages, report frames, `vtree tree frames|validate`). A tree is data: its node ids
// and frame_path values name files, so a path that leaves the tree's folder — `..`, an absolute path, an id
// like `vid_../../etc/x`, or a link inside the folder pointing out of it — is refused, never read.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Schema } from "effect"
import type { TreeIndex, TreeNode } from "../../domain/TreeIndex.js"

/** A frame path a tree names that would be read from outside the tree's folder. */
export class FramePathError extends Schema.TaggedError<FramePathError>()("FramePathError", {
  reason: Schema.Literal("OutsideTree"),
  nodeId: Schema.String,
  /** What is wrong, without the node id: `frame path "../x.jpg" leaves the tree's folder`. */
  problem: Schema.String,
  message: Schema.String
}) {}

const outside = (node: TreeNode, shown: string, why: string) => {
  const problem = `frame path ${JSON.stringify(shown)} ${why}`
  return new FramePathError({
    reason: "OutsideTree",
    nodeId: node.id,
    problem,
    message: `${node.id}: ${problem} — frame paths must stay inside the tree's folder; fix or rebuild the tree`
  })
}

// Lexically outside: a NUL, an absolute or drive path, or a `..` step (either separator, as Windows reads both).
const leavesLexically = (relative: string): string | undefined =>
  relative.includes("\0")
    ? "contains a NUL byte"
    : /^([/\\]|[A-Za-z]:)/.test(relative)
    ? "is absolute"
    : relative.split(/[/\\]/).includes("..")
    ? "leaves the tree's folder"
    : undefined

/**
 * The frame file of a node, relative to its tree's folder: its `frame_path`, else
 * `frames/<id without "<videoID>_">.jpg`; refused when it would leave the folder.
 */
export const frameRelativePath = (index: TreeIndex, node: TreeNode): Either.Either<string, FramePathError> => {
  const prefix = `${index.videoId}_`
  const relative = node.framePath ??
    `frames/${node.id.startsWith(prefix) ? node.id.slice(prefix.length) : node.id}.jpg`
  const problem = leavesLexically(relative)
  return problem === undefined ? Either.right(relative) : Either.left(outside(node, relative, problem))
}

const isInside = (path: Path.Path, dir: string, file: string): boolean => {
  const relative = path.relative(dir, file)
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

/**
 * The absolute path of a node's frame file inside the tree folder `dir`. When the file exists, its real
 * path (links followed) must lie inside the folder's real path too; a missing file is returned as it is,
 * for the reader to report as missing.
 */
export const resolveFramePath = Effect.fn("FramePath.resolve")(function*(
  dir: string,
  index: TreeIndex,
  node: TreeNode
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const relative = yield* Either.match(frameRelativePath(index, node), { onLeft: Effect.fail, onRight: Effect.succeed })
  const root = path.resolve(dir)
  const file = path.resolve(root, relative)
  if (!isInside(path, root, file)) return yield* outside(node, relative, "leaves the tree's folder")
  const real = yield* fs.realPath(file).pipe(Effect.option)
  if (real._tag === "None") return file
  const realRoot = yield* fs.realPath(root).pipe(Effect.orElseSucceed(() => root))
  if (!isInside(path, realRoot, real.value)) {
    // Where the link leads is not said: the message reaches pages and MCP clients, and would show local paths.
    return yield* outside(node, relative, "is a link to a file outside the tree's folder")
  }
  return file
})
