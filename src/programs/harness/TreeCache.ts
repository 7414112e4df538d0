// The run's trees, each loaded by the first question that needs it and dropped when no longer needed.
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import type { Question } from "../../domain/Question.js"
import { CallBuffer } from "../../services/CallBuffer.js"
import { withCallContext } from "../../services/CallLog.js"
import { RunStore } from "../../services/RunStore.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { loadTreeEnvironment, treeFolderOf } from "../tree/TreeLoader.js"
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
 * One environment per video, loaded by the first question that needs it. A tree is dropped after
 * the last open question of its video (`open`: the run's open questions when this worker joined),
 * or, when other workers share the run and may answer those, once it has sat idle behind
 * `idleTrees` others: a benchmark over hundreds of videos holds only the trees in use.
 */
export const loadEnvironments = Effect.fn("TreeCache.loadEnvironments")(function*(
  runId: string,
  treesDir: string,
  open: ReadonlyArray<Question>
) {
  const store = yield* RunStore
  const buffer = yield* CallBuffer
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
  const trees = new Map<string, { active: number; get: ReturnType<Environments["get"]> }>()
  const idle: Array<string> = []
  const load = (videoId: string) =>
    treeFolderOf(treesDir, videoId).pipe(
      Effect.flatMap((dir) =>
        loadTreeEnvironment(dir).pipe(Effect.mapError((error) => `${dir}: ${firstLine(error.message)}`))
      ),
      // Embedding a tree belongs to no question: its calls are saved as run-level calls.
      withCallContext({ questionId: null, parentStep: null, usage: null }),
      Effect.exit,
      Effect.tap(() => saveTreeCalls),
      Effect.flatten
    )
  const environments: Environments = {
    get: (videoId) =>
      Effect.flatten(Effect.gen(function*() {
        let entry = trees.get(videoId)
        if (entry === undefined) {
          entry = { active: 0, get: yield* Effect.cached(load(videoId)) }
          trees.set(videoId, entry)
        }
        entry.active += 1
        const at = idle.indexOf(videoId)
        if (at >= 0) idle.splice(at, 1)
        return entry.get
      })),
    release: (videoId) =>
      Effect.sync(() => {
        const left = (remaining.get(videoId) ?? 0) - 1
        remaining.set(videoId, left)
        const entry = trees.get(videoId)
        if (entry === undefined) return
        entry.active = Math.max(0, entry.active - 1)
        if (entry.active > 0) return
        if (left <= 0) return void trees.delete(videoId)
        idle.push(videoId)
        while (idle.length > idleTrees) trees.delete(idle.shift()!)
      })
  }
  return environments
})
