import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Schema } from "effect"
import type { TreeNode } from "../../domain/TreeIndex.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { makeTreeLibrary, type TreeLibraryOptions } from "../tree/TreeLibrary.js"

/** A video id or node id the library does not hold, or a tree that would not load. */
export class LibraryError extends Schema.TaggedError<LibraryError>()("LibraryError", {
  reason: Schema.Literal("UnknownVideo", "UnknownNode", "Unloadable"),
  message: Schema.String
}) {}

/**
 * The trees under one `--trees` folder, as MCP clients see them: each sub-folder holding a tree.json
 * is a video, named by the folder. A tree is loaded (decoded and indexed) by the first call that needs
 * it, through the tree library (tree/TreeLibrary.ts: at most its capacity at once, an idle one dropped
 * after its idle time), so a long-lived server over hundreds of trees stays bounded; the folder is listed
 * once, at start.
 */
export interface VideoLibrary {
  readonly videoIds: ReadonlyArray<string>
  readonly tree: (videoId: string) => Effect.Effect<TreeEnvironment, LibraryError>
  /** The tree holding a node: node ids start with their video's id and `_`. */
  readonly treeOfNode: (nodeId: string) => Effect.Effect<{ tree: TreeEnvironment; node: TreeNode }, LibraryError>
  /** How many trees are loaded now: at most the library's capacity. */
  readonly loaded: Effect.Effect<number>
}

/** How many videos one video_list reply reads (each entry opens its tree), and one resources/list lists. */
export const pageSizes = { videoList: 25, resources: 100 } as const

/**
 * One page of `items` from `cursor` (where the last page stopped, opaque to clients): the page and the
 * cursor of the next one (null at the end); undefined when the cursor is not one this server gave.
 */
export const pageOf = <A>(
  items: ReadonlyArray<A>,
  cursor: string | undefined,
  size: number
): { readonly page: ReadonlyArray<A>; readonly next: string | null } | undefined => {
  const start = cursor === undefined ? 0 : /^(0|[1-9]\d{0,9})$/.test(cursor) ? Number(cursor) : -1
  if (start < 0 || start > items.length) return undefined
  const end = Math.min(items.length, start + size)
  return { page: items.slice(start, end), next: end < items.length ? String(end) : null }
}

const available = (ids: ReadonlyArray<string>) =>
  ids.length <= 20 ? ids.join(", ") : `${ids.slice(0, 20).join(", ")} and ${ids.length - 20} more (video_list)`

export const makeVideoLibrary = Effect.fn("VideoLibrary.make")(function*(
  treesDir: string,
  options: TreeLibraryOptions = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const trees = yield* makeTreeLibrary(options)
  const entries = yield* fs.readDirectory(treesDir).pipe(
    Effect.mapError(() =>
      new LibraryError({
        reason: "Unloadable",
        message:
          `--trees ${treesDir}: not a readable folder — pass the folder holding one <videoID>/tree.json per video`
      })
    )
  )
  const videoIds: Array<string> = []
  for (const entry of [...entries].sort()) {
    if (entry.startsWith(".")) continue
    const hasTree = yield* fs.exists(path.join(treesDir, entry, "tree.json")).pipe(Effect.orElseSucceed(() => false))
    if (hasTree) videoIds.push(entry)
  }
  if (videoIds.length === 0) {
    return yield* new LibraryError({
      reason: "Unloadable",
      message: `--trees ${treesDir}: no <videoID>/tree.json in this folder — build trees with vtree build`
    })
  }
  const known = new Set(videoIds)
  const tree = (videoId: string): Effect.Effect<TreeEnvironment, LibraryError> => {
    if (!known.has(videoId)) {
      return Effect.fail(
        new LibraryError({
          reason: "UnknownVideo",
          message: `no video "${videoId}" in the library — available: ${available(videoIds) || "none"}`
        })
      )
    }
    // Held only while it is looked up: the tree stays loaded for the library's idle time, and the caller's
    // copy lives as long as the caller uses it.
    return Effect.scoped(Effect.flatMap(trees.open(path.join(treesDir, videoId)), (open) => open.environment)).pipe(
      Effect.mapError((error) =>
        new LibraryError({ reason: "Unloadable", message: `${videoId}: ${error.message.split("\n")[0]}` })
      )
    )
  }
  // The longest video id that prefixes the node id: one id may prefix another ("a" and "a_b").
  const videoOfNode = (nodeId: string): string | undefined =>
    videoIds.filter((id) => nodeId.startsWith(`${id}_`)).sort((a, b) => b.length - a.length)[0]
  const treeOfNode = (nodeId: string) =>
    Effect.gen(function*() {
      const videoId = videoOfNode(nodeId)
      if (videoId === undefined) {
        return yield* new LibraryError({
          reason: "UnknownNode",
          message: `no node "${nodeId}": node ids start with their video's id (see video_overview)`
        })
      }
      const env = yield* tree(videoId)
      const node = env.index.nodes.get(nodeId)
      if (node === undefined) {
        return yield* new LibraryError({
          reason: "UnknownNode",
          message: `no node "${nodeId}" in video ${videoId} — list its nodes with video_overview`
        })
      }
      return { tree: env, node }
    })
  const library: VideoLibrary = {
    videoIds,
    tree,
    treeOfNode,
    loaded: Effect.map(trees.loaded, (files) => files.length)
  }
  return library
})
