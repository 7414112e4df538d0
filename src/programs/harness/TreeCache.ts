// The run's trees, through the one tree library (tree/TreeLibrary.ts): each loaded by the first question that
// needs it, held while questions of its video run, and dropped when no longer needed.
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { Effect, Exit, Scope } from "effect"
import type { Question } from "../../domain/Question.js"
import { CallBuffer } from "../../services/CallBuffer.js"
import { withCallContext } from "../../services/CallLog.js"
import { RunStore } from "../../services/RunStore.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { makeTreeLibrary } from "../tree/TreeLibrary.js"
import { treeFolderOf } from "../tree/TreeLoader.js"
import { firstLine } from "./QuestionFailure.js"

export interface Environments {
  /** The video's tree, loaded by the first question that asks; a load failure is its message. */
  readonly get: (videoId: string) => Effect.Effect<TreeEnvironment, string, FileSystem.FileSystem | Path.Path>
  /** Called once per finished question (got or not): see loadEnvironments for when a tree is dropped. */
  readonly release: (videoId: string) => Effect.Effect<void>
}

/** Trees kept loaded with no question of theirs in flight, for the next claim that may need them. */
const idleTrees = 4

/**
 * One environment per video, loaded by the first question that needs it and held by each question of its
 * video until `release`. A tree is dropped after the last open question of its video (`open`: the run's open
 * questions when this worker joined), or, when other workers share the run and may answer those, when it is
 * the least recently used of more than `idleTrees` idle ones (the library's capacity: `concurrency` in use
 * plus `idleTrees`) or idle past the library's idle time: a benchmark over hundreds of videos holds only the
 * trees in use. The library lives as long as the caller's scope.
 */
export const loadEnvironments = Effect.fn("TreeCache.loadEnvironments")(function*(
  runId: string,
  treesDir: string,
  open: ReadonlyArray<Question>,
  concurrency: number
) {
  const store = yield* RunStore
  const buffer = yield* CallBuffer
  const library = yield* makeTreeLibrary({ capacity: concurrency + idleTrees })
  const saveTreeCalls = Effect.flatMap(
    buffer.drain(null),
    (calls) =>
      calls.length === 0 ? Effect.void : store.saveRunCalls(runId, calls).pipe(
        // The questions can still run; only the record of the embedding calls is lost.
        Effect.catchAll((error) => Effect.logWarning(`run ${runId}: tree-loading calls not saved: ${error.message}`))
      )
  )
  const remaining = new Map<string, number>()
  for (const question of open) remaining.set(question.videoId, (remaining.get(question.videoId) ?? 0) + 1)
  // Each `get` holds its tree in a scope of its own, closed by the matching `release`.
  const holds = new Map<string, Array<Scope.CloseableScope>>()
  const folders = new Map<string, string>()
  const load = (videoId: string, scope: Scope.Scope) =>
    treeFolderOf(treesDir, videoId).pipe(
      Effect.tap((dir) => Effect.sync(() => folders.set(videoId, dir))),
      Effect.flatMap((dir) =>
        library.open(dir).pipe(
          Scope.extend(scope),
          Effect.flatMap((tree) => tree.environment),
          Effect.mapError((error) => `${dir}: ${firstLine(error.message)}`)
        )
      ),
      // Embedding a tree belongs to no question: its calls are saved as run-level calls.
      withCallContext({ questionId: null, parentStep: null, usage: null }),
      Effect.exit,
      Effect.tap(() => saveTreeCalls),
      Effect.flatten
    )
  const environments: Environments = {
    get: (videoId) =>
      Effect.flatMap(Scope.make(), (scope) => {
        holds.set(videoId, [...(holds.get(videoId) ?? []), scope])
        return load(videoId, scope)
      }),
    release: (videoId) =>
      Effect.gen(function*() {
        const left = (remaining.get(videoId) ?? 0) - 1
        remaining.set(videoId, left)
        const scope = holds.get(videoId)?.shift()
        if (scope !== undefined) yield* Scope.close(scope, Exit.void)
        const dir = folders.get(videoId)
        if (left <= 0 && dir !== undefined) yield* library.drop(dir)
      })
  }
  return environments
})
