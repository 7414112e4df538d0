// The trees a process has open, by tree folder: one loaded copy of each, shared by whoever asks (the harness's
// questions, MCP tools, reports, tree pages), held while in use and kept a while after for the next caller,
// within a bound. Before it, the harness counted references by hand and the MCP server kept every tree it ever
// opened in a Map: a long-lived `vtree mcp --http` over hundreds of trees grew without bound.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Cause, Duration, Effect, RcMap, type Scope } from "effect"
import type { TreeDecodeError } from "../../domain/Tree.js"
import type { TreeIndex } from "../../domain/TreeIndex.js"
import type { TreeEnvironment } from "./TreeEnvironment.js"
import { environmentOf, readTreeIndex, resolveTreePaths } from "./TreeLoader.js"

/**
 * Trees held at once, in use or idle. A loaded tree of a long video is tens to hundreds of MB (nodes, BM25
 * index, embeddings): 16 keeps a busy MCP server or a 12-question-wide run well under a few GB.
 */
export const defaultCapacity = 16
/** A tree nobody uses is dropped after this long: an MCP client's next question usually comes within it. */
export const defaultIdleTimeToLive = Duration.minutes(5)

export interface TreeLibraryOptions {
  /** Trees held at once (default `defaultCapacity`); when full, the least recently used idle one makes room. */
  readonly capacity?: number
  /** How long an unused tree stays loaded (default `defaultIdleTimeToLive`). */
  readonly idleTimeToLive?: Duration.DurationInput
}

/** A tree folder's decoded tree.json, and its environment (retrieval, embeddings) built by the first caller. */
export interface OpenTree {
  readonly dir: string
  readonly index: TreeIndex
  /** Built once per loaded tree, with the first caller's EmbeddingProvider when it has one. */
  readonly environment: Effect.Effect<TreeEnvironment, Effect.Effect.Error<ReturnType<typeof environmentOf>>>
}

const make = Effect.fn("TreeLibrary.make")(function*(options: TreeLibraryOptions = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const capacity = Math.max(1, options.capacity ?? defaultCapacity)
  // A tree is its tree.json: a folder and the file in it are one key.
  const keyOf = (input: string) => path.resolve(resolveTreePaths(path, input).file)
  const trees = yield* RcMap.make({
    lookup: (key: string) =>
      Effect.gen(function*() {
        const { dir, index } = yield* readTreeIndex(key)
        const environment = yield* Effect.cached(
          environmentOf(dir, index).pipe(
            Effect.provideService(FileSystem.FileSystem, fs),
            Effect.provideService(Path.Path, path)
          )
        )
        const tree: OpenTree = { dir, index, environment }
        return tree
      }),
    capacity,
    idleTimeToLive: options.idleTimeToLive ?? defaultIdleTimeToLive
  })
  // RcMap refuses a key past its capacity rather than evicting: the library makes room itself, dropping the
  // least recently opened tree nobody holds (or, when all are held, the oldest: its holders keep their copy,
  // freed when they finish). Keys in the order last opened, each with how many scopes hold it.
  const holders = new Map<string, number>()
  const makeRoom = Effect.gen(function*() {
    const loaded = new Set(yield* RcMap.keys(trees))
    for (const key of holders.keys()) if (!loaded.has(key)) holders.delete(key)
    const candidates = [...holders].filter(([key]) => loaded.has(key))
    const victim = (candidates.find(([, held]) => held === 0) ?? candidates[0])?.[0] ?? [...loaded][0]
    if (victim === undefined) return
    holders.delete(victim)
    yield* RcMap.invalidate(trees, victim)
  })
  // Concurrent opens may take the room one made: each tries again after making room once more.
  const acquire = (key: string, attempts = 8): Effect.Effect<OpenTree, TreeDecodeError, Scope.Scope> =>
    RcMap.get(trees, key).pipe(
      Effect.catchIf(
        Cause.isExceededCapacityException,
        (error) => attempts <= 1 ? Effect.die(error) : Effect.zipRight(makeRoom, acquire(key, attempts - 1))
      )
    )

  /** The tree in folder `dir` (or its tree.json), loaded by the first caller, held until the caller's scope closes. */
  const open = (
    dir: string
  ): Effect.Effect<OpenTree, Effect.Effect.Error<ReturnType<typeof readTreeIndex>>, Scope.Scope> =>
    Effect.gen(function*() {
      const key = keyOf(dir)
      const held = (holders.get(key) ?? 0) + 1
      holders.delete(key)
      holders.set(key, held)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          const left = holders.get(key)
          if (left !== undefined) holders.set(key, Math.max(0, left - 1))
        })
      )
      return yield* acquire(key)
    })

  /** Forgets the tree at once (its holders keep their copy until their scopes close). */
  const drop = (dir: string) => RcMap.invalidate(trees, keyOf(dir))

  /** The tree.json files of the trees loaded now, held or idle (what a bound is checked against). */
  const loaded = RcMap.keys(trees)

  return { open, drop, loaded } as const
})

/**
 * Opens video trees by folder over an `RcMap` with a capacity and an idle time. `TreeLibrary.Default` is one
 * with the defaults; `makeTreeLibrary(options)` one for a scope (a run, a server, a report).
 */
export class TreeLibrary extends Effect.Service<TreeLibrary>()("TreeLibrary", {
  scoped: make()
}) {}

/** A library of its own for the current scope: closed, with every tree it holds, when the scope closes. */
export const makeTreeLibrary = (options: TreeLibraryOptions = {}) => Effect.map(make(options), TreeLibrary.make)
