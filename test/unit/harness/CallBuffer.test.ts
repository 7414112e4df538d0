import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { layer } from "../../../src/layers/memory/MemoryCallBuffer.js"
import { CallBuffer, captureCalls } from "../../../src/services/CallBuffer.js"
import { recordCall, withCallContext } from "../../../src/services/CallLog.js"

const outcome = (role: "agent" | "tool" | "embed", promptTokens: number) => ({
  role,
  model: `${role}-model`,
  startedAt: 0,
  durationMs: 5,
  promptTokens,
  completionTokens: 1,
  status: "ok" as const,
  errorReason: null
})

describe("SqlCallLog buffer", () => {
  it.effect("captures each question's calls, forks included, and keeps questions apart", () =>
    Effect.gen(function*() {
      const buffer = yield* CallBuffer
      const question = (id: string, calls: number) =>
        captureCalls(id)(
          withCallContext({ questionId: id, parentStep: 1 })(
            Effect.forEach(Array.from({ length: calls }, (_, i) => i), (i) => recordCall(outcome("tool", i)), {
              concurrency: 3,
              discard: true
            }).pipe(Effect.zipRight(Effect.succeed(`answer-${id}`)))
          )
        )
      yield* recordCall(outcome("embed", 7))
      const [[a, callsA], [b, callsB]] = yield* Effect.all([question("qa", 2), question("qb", 3)], {
        concurrency: 2
      })
      assert.deepStrictEqual([a, b], ["answer-qa", "answer-qb"])
      assert.deepStrictEqual(callsA.map((c) => [c.questionId, c.parentStep, c.promptTokens]), [["qa", 1, 0], [
        "qa",
        1,
        1
      ]])
      assert.strictEqual(callsB.length, 3)
      assert.isTrue(callsB.every((c) => c.questionId === "qb"))
      // Only the call made outside any question is left, for saveRunCalls.
      assert.strictEqual(yield* buffer.pending, 1)
      const runLevel = yield* buffer.drain(null)
      assert.deepStrictEqual(runLevel.map((c) => [c.role, c.questionId]), [["embed", null]])
      assert.strictEqual(yield* buffer.pending, 0)
    }).pipe(Effect.provide(layer)))

  it.effect("a failed or interrupted question leaves nothing in the buffer", () =>
    Effect.gen(function*() {
      const buffer = yield* CallBuffer
      const failed = yield* Effect.exit(
        captureCalls("q1")(
          withCallContext({ questionId: "q1" })(Effect.zipRight(recordCall(outcome("agent", 1)), Effect.fail("boom")))
        )
      )
      assert.deepStrictEqual(failed, Exit.fail("boom"))
      const fiber = yield* Effect.fork(
        captureCalls("q2")(
          withCallContext({ questionId: "q2" })(Effect.zipRight(recordCall(outcome("agent", 1)), Effect.never))
        )
      )
      yield* Effect.yieldNow()
      assert.strictEqual(yield* buffer.pending, 1)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* buffer.pending, 0)
    }).pipe(Effect.provide(layer)))
})
