import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Fiber, Schedule, TestClock } from "effect"
import { retryOnFailure } from "../../../src/services/RetryOnFailure.js"

/** An effect failing with "e0", "e1", … for its first `failures` runs, then succeeding; it logs the clock at each run. */
const flaky = (failures: number) => {
  const runs: Array<number> = []
  const effect = Effect.flatMap(TestClock.currentTimeMillis, (now) => {
    runs.push(now)
    return runs.length <= failures ? Effect.fail(`e${runs.length - 1}`) : Effect.succeed(`ok after ${runs.length}`)
  })
  return { runs, effect }
}

/** Runs `effect` to its end on the TestClock, moving time a second at a time. */
const settle = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(Effect.either(effect))
    for (let i = 0; i < 60; i++) yield* TestClock.adjust("1 second")
    return yield* Fiber.join(fiber)
  })

const schedule = Schedule.exponential("2 seconds").pipe(Schedule.intersect(Schedule.recurs(3)))

describe("retryOnFailure", () => {
  it.effect("runs, waits and gives up exactly as Effect.retry with the same schedule", () =>
    Effect.gen(function*() {
      for (const failures of [0, 1, 3, 4, 6]) {
        const ours = flaky(failures)
        const theirs = flaky(failures)
        const start = yield* TestClock.currentTimeMillis
        const ourResult = yield* settle(retryOnFailure(ours.effect, schedule))
        const middle = yield* TestClock.currentTimeMillis
        const theirResult = yield* settle(Effect.retry(theirs.effect, schedule))
        assert.deepStrictEqual(ourResult, theirResult, `${failures} failures`)
        assert.deepStrictEqual(
          ours.runs.map((at) => at - start),
          theirs.runs.map((at) => at - middle),
          `${failures} failures: the runs' times`
        )
      }
      // Spot-check the figures themselves: 3 failures → runs at 0, 2, 6, 14 s.
      const spot = flaky(3)
      const start = yield* TestClock.currentTimeMillis
      assert.deepStrictEqual(yield* settle(retryOnFailure(spot.effect, schedule)), Either.right("ok after 4"))
      assert.deepStrictEqual(spot.runs.map((at) => at - start), [0, 2000, 6000, 14000])
    }))

  it.effect("a failure the test refuses is not retried, at first or later", () =>
    Effect.gen(function*() {
      const first = flaky(5)
      assert.deepStrictEqual(
        yield* settle(retryOnFailure(first.effect, schedule, (e) => e !== "e0")),
        Either.left("e0")
      )
      assert.strictEqual(first.runs.length, 1)
      const later = flaky(5)
      assert.deepStrictEqual(
        yield* settle(retryOnFailure(later.effect, schedule, (e) => e !== "e2")),
        Either.left("e2")
      )
      assert.strictEqual(later.runs.length, 3)
    }))

  it.effect("a defect is not retried", () =>
    Effect.gen(function*() {
      let runs = 0
      const exit = yield* Effect.exit(retryOnFailure(
        Effect.suspend(() => {
          runs += 1
          return Effect.dieMessage("bug")
        }),
        schedule
      ))
      assert.isTrue(exit._tag === "Failure")
      assert.strictEqual(runs, 1)
    }))
})
