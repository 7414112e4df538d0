import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { join } from "node:path"
import type { Question } from "../../../src/domain/Question.js"
import { loadEnvironments } from "../../../src/programs/harness/TreeCache.js"
import { CallBuffer } from "../../../src/services/CallBuffer.js"
import type { CallRecord } from "../../../src/services/CallLog.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

const question = (questionId: string, videoId: string) => ({ questionId, videoId }) as unknown as Question

/** A trees folder with one-event trees named `ids`. */
const treesFolder = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const root = yield* scopedTempDir("treecache")
    for (const id of ids) {
      writeTree(join(root, id), syntheticTree({ videoId: id, scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }), {
        frames: false
      })
    }
    return root
  })

/** The run's store and call buffer: the buffer holds `pending` run-level calls, the store records saves. */
const fakes = (pending: ReadonlyArray<CallRecord>) =>
  Effect.gen(function*() {
    const saved = yield* Ref.make<ReadonlyArray<readonly [string, number]>>([])
    const left = yield* Ref.make(pending)
    const layers = Layer.mergeAll(
      Layer.mock(RunStore, {
        owners: "one",
        saveRunCalls: (runId, calls) => Ref.update(saved, (all) => [...all, [runId, calls.length] as const])
      }),
      Layer.mock(CallBuffer, {
        drain: (questionId) => questionId === null ? Ref.getAndSet(left, []) : Effect.succeed([])
      })
    )
    return { saved, layers }
  })

layer(NodeContext.layer)("TreeCache: the run's trees through the tree library", (it) => {
  it.scoped("a tree is kept for its video's next question and dropped after the last one (then loaded anew)", () =>
    Effect.gen(function*() {
      const trees = yield* treesFolder(["A", "B"])
      const { layers } = yield* fakes([])
      const open = [question("q1", "A"), question("q2", "A"), question("q3", "B")]
      const envs = yield* Effect.provide(loadEnvironments("run", trees, open, 2), layers)
      const first = yield* envs.get("A")
      yield* envs.release("A")
      assert.strictEqual(yield* envs.get("A"), first)
      yield* envs.release("A")
      const again = yield* envs.get("A")
      assert.notStrictEqual(again, first)
      assert.strictEqual(again.index.videoId, "A")
      yield* envs.release("A")
    }))

  it.scoped("calls made while loading a tree are drained as run-level calls and saved with the run", () =>
    Effect.gen(function*() {
      const trees = yield* treesFolder(["A"])
      const { layers, saved } = yield* fakes([{} as CallRecord, {} as CallRecord])
      const envs = yield* Effect.provide(loadEnvironments("run-7", trees, [question("q1", "A")], 1), layers)
      yield* envs.get("A")
      assert.deepStrictEqual(yield* Ref.get(saved), [["run-7", 2]])
      const missing = yield* Effect.flip(envs.get("nope"))
      assert.include(missing, "nope")
    }))
})
