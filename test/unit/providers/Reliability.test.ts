import { assert, describe, it } from "@effect/vitest"
import { Chunk, type Duration, Effect, Fiber, Ref, TestClock } from "effect"
import { ProviderError, type ProviderErrorReason } from "../../../src/domain/ProviderError.js"
import { withPolicy } from "../../../src/layers/shared/Reliability.js"

const error = (reason: ProviderErrorReason, retryAfterMs?: number) =>
  new ProviderError({
    provider: "test",
    reason,
    message: reason,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs })
  })

/** An attempt that fails with the given errors in turn, then succeeds; counts its runs. */
const flaky = (failures: ReadonlyArray<ProviderError>) =>
  Effect.map(Ref.make(0), (runs) => ({
    runs,
    attempt: Effect.flatMap(Ref.getAndUpdate(runs, (n) => n + 1), (n) =>
      n < failures.length ? Effect.fail(failures[n]!) : Effect.succeed("done"))
  }))

const policy = (permits = 4, retries = 4, timeout: Duration.DurationInput = "1 hour") =>
  Effect.map(Effect.makeSemaphore(permits), (semaphore) => ({ provider: "test", semaphore, timeout, retries }))

/** The next backoff wake-up: the earliest pending sleep shorter than the (hour-long) attempt timeout. */
const nextBackoff = Effect.gen(function*() {
  for (let i = 0; i < 1000; i++) {
    const now = yield* TestClock.currentTimeMillis
    const pending = Chunk.toReadonlyArray(yield* TestClock.sleeps()).filter((at) => at > now && at < now + 3_600_000)
    if (pending.length > 0) return Math.min(...pending) - now
    yield* Effect.yieldNow()
  }
  return yield* Effect.dieMessage("no backoff sleep was scheduled")
})

describe("withPolicy", () => {
  it.effect("retries transient failures with growing, jittered delays", () =>
    Effect.gen(function*() {
      const { attempt, runs } = yield* flaky([error("Server"), error("Transport"), error("Timeout")])
      const fiber = yield* Effect.fork(withPolicy(yield* policy())(attempt))
      const delays: Array<number> = []
      for (let i = 0; i < 3; i++) {
        const delay = yield* nextBackoff
        delays.push(delay)
        yield* TestClock.adjust(delay)
      }
      assert.strictEqual(yield* Fiber.join(fiber), "done")
      assert.strictEqual(yield* Ref.get(runs), 4)
      // 1 s, 2 s, 4 s, each within ±20 %.
      delays.forEach((delay, i) => {
        assert.isAtLeast(delay, 800 * 2 ** i)
        assert.isAtMost(delay, 1200 * 2 ** i)
      })
    }))

  it.effect("a Retry-After longer than the backoff sets the delay", () =>
    Effect.gen(function*() {
      const { attempt, runs } = yield* flaky([error("RateLimited", 45_000)])
      const fiber = yield* Effect.fork(withPolicy(yield* policy())(attempt))
      assert.isAtLeast(yield* nextBackoff, 45_000)
      yield* TestClock.adjust("44 seconds")
      assert.strictEqual(yield* Ref.get(runs), 1)
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "done")
      assert.strictEqual(yield* Ref.get(runs), 2)
    }))

  it.effect("stops after 4 retries and surfaces the last error", () =>
    Effect.gen(function*() {
      const { attempt, runs } = yield* flaky(Array.from({ length: 10 }, () => error("Server")))
      const fiber = yield* Effect.fork(Effect.flip(withPolicy(yield* policy())(attempt)))
      yield* TestClock.adjust("10 minutes")
      assert.strictEqual((yield* Fiber.join(fiber)).reason, "Server")
      assert.strictEqual(yield* Ref.get(runs), 5)
    }))

  it.effect("does not retry BadRequest, Auth or BadResponse", () =>
    Effect.gen(function*() {
      for (const reason of ["BadRequest", "Auth", "BadResponse"] as const) {
        const { attempt, runs } = yield* flaky([error(reason)])
        const failure = yield* Effect.flip(withPolicy(yield* policy())(attempt))
        assert.strictEqual(failure.reason, reason)
        assert.strictEqual(yield* Ref.get(runs), 1)
      }
    }))

  it.effect("each attempt has its own timeout", () =>
    Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      const attempt = Effect.zipRight(Ref.update(runs, (n) => n + 1), Effect.never)
      const fiber = yield* Effect.fork(Effect.flip(withPolicy(yield* policy(4, 1, "10 seconds"))(attempt)))
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* Ref.get(runs), 1)
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* Ref.get(runs), 2)
      yield* TestClock.adjust("10 seconds")
      const failure = yield* Fiber.join(fiber)
      assert.strictEqual(failure.reason, "Timeout")
      assert.include(failure.message, "10s")
    }))

  it.effect("attempts hold a permit; at most `permits` run at once", () =>
    Effect.gen(function*() {
      const active = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const attempt = Effect.acquireUseRelease(
        Effect.flatMap(Ref.updateAndGet(active, (n) => n + 1), (n) => Ref.update(peak, (p) => Math.max(p, n))),
        () => Effect.sleep("1 second"),
        () => Ref.update(active, (n) => n - 1)
      )
      const guarded = withPolicy(yield* policy(3))
      const fiber = yield* Effect.fork(
        Effect.all(Array.from({ length: 10 }, () => guarded(attempt)), { concurrency: "unbounded" })
      )
      for (let i = 0; i < 4; i++) yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.strictEqual(yield* Ref.get(peak), 3)
    }))
})
