import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, TestClock, TestContext } from "effect"
import fc from "fast-check"
import * as Deadlines from "../../../src/programs/providers/Deadlines.js"

/** A request that never answers on its own; it rejects once its signal aborts, and remembers the signal. */
const stalled = () => {
  const signals: Array<AbortSignal> = []
  const request = (signal: AbortSignal) =>
    new Promise<string>((_, reject) => {
      signals.push(signal)
      signal.addEventListener("abort", () => reject(new Error("aborted")))
    })
  return { signals, request }
}

const onError = (cause: unknown) => `error: ${cause instanceof Error ? cause.message : String(cause)}`
const onTimeout = () => "timeout"

/** Lets forked fibers and settled promises run without moving the clock. */
const settle = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

describe("Deadlines", () => {
  it.effect("a request that answers in time succeeds, and nothing stays open or watched", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("10 seconds")
      const value = yield* deadlines.run(() => Promise.resolve("ok"), onError, onTimeout)
      assert.strictEqual(value, "ok")
      yield* settle
      assert.strictEqual(deadlines.open(), 0)
      assert.isFalse(deadlines.watching())
    }))

  it.live("with the live clock, no timer is left behind once nothing is open (an idle CLI can exit)", () =>
    Effect.gen(function*() {
      const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length
      const before = timers()
      const deadlines = Deadlines.make("1 hour")
      const { request } = stalled()
      const fiber = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
      yield* settle
      assert.strictEqual(timers(), before + 1)
      yield* Fiber.interrupt(fiber)
      const value = yield* deadlines.run(() => new Promise<string>((resolve) => setTimeout(() => resolve("ok"), 5)), onError, onTimeout)
      assert.strictEqual(value, "ok")
      yield* settle
      assert.strictEqual(timers(), before)
    }))

  it.effect("a rejection is mapped by onError", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("10 seconds")
      const exit = yield* Effect.exit(deadlines.run(() => Promise.reject(new Error("refused")), onError, onTimeout))
      assert.deepStrictEqual(exit, Exit.fail("error: refused"))
    }))

  it.effect("a stalled request fails with onTimeout exactly at its deadline, and its signal is aborted", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("10 seconds")
      const { request, signals } = stalled()
      const fiber = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
      yield* settle
      yield* TestClock.adjust("9999 millis")
      yield* settle
      assert.isNull(fiber.unsafePoll())
      assert.isFalse(signals[0]!.aborted)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.await(fiber), Exit.fail("timeout"))
      assert.isTrue(signals[0]!.aborted)
      yield* settle
      assert.strictEqual(deadlines.open(), 0)
      assert.isFalse(deadlines.watching())
    }))

  it.effect("each request's deadline counts from its own start", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("1 second")
      const { request } = stalled()
      const first = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
      yield* settle
      yield* TestClock.adjust("600 millis")
      const second = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
      yield* settle
      yield* TestClock.adjust("400 millis")
      assert.deepStrictEqual(yield* Fiber.await(first), Exit.fail("timeout"))
      yield* settle
      assert.isNull(second.unsafePoll())
      assert.strictEqual(deadlines.open(), 1)
      yield* TestClock.adjust("600 millis")
      assert.deepStrictEqual(yield* Fiber.await(second), Exit.fail("timeout"))
    }))

  it.effect("requests that finish early do not delay the deadline of a later one", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("1 second")
      const { request } = stalled()
      // Keeps the watcher alive while the early ones come and go.
      const long = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
      yield* settle
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("100 millis")
        assert.strictEqual(yield* deadlines.run(() => Promise.resolve(i), onError, onTimeout), i)
      }
      yield* TestClock.adjust("500 millis")
      assert.deepStrictEqual(yield* Fiber.await(long), Exit.fail("timeout"))
    }))

  it.effect("interrupting the fiber aborts the request and closes its entry", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("10 seconds")
      const { request, signals } = stalled()
      const fiber = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
      yield* settle
      assert.isTrue(deadlines.watching())
      yield* Fiber.interrupt(fiber)
      assert.isTrue(signals[0]!.aborted)
      assert.strictEqual(deadlines.open(), 0)
      assert.isFalse(deadlines.watching())
    }))

  it.effect("many concurrent requests: the stalled ones time out, the rest answer", () =>
    Effect.gen(function*() {
      const deadlines = Deadlines.make("5 seconds")
      const { request } = stalled()
      const fibers = yield* Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) =>
        Effect.fork(
          i % 10 === 0
            ? deadlines.run(request, onError, onTimeout)
            : deadlines.run(() => new Promise<string>((resolve) => setImmediate(() => resolve(`ok ${i}`))), onError, onTimeout)
        ))
      yield* settle
      yield* settle
      assert.strictEqual(deadlines.open(), 20)
      yield* TestClock.adjust("5 seconds")
      const exits = yield* Effect.forEach(fibers, Fiber.await)
      exits.forEach((exit, i) => assert.deepStrictEqual(exit, i % 10 === 0 ? Exit.fail("timeout") : Exit.succeed(`ok ${i}`)))
      yield* settle
      assert.strictEqual(deadlines.open(), 0)
      assert.isFalse(deadlines.watching())
    }))

  it("any interleaving of starts, answers, interruptions and clock moves: each stall times out exactly at its deadline", async () => {
    type Op =
      | { readonly kind: "stall" }
      | { readonly kind: "quick" }
      | { readonly kind: "answer"; readonly pick: number }
      | { readonly kind: "interrupt"; readonly pick: number }
      | { readonly kind: "advance"; readonly ms: number }
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constant({ kind: "stall" as const }),
      fc.constant({ kind: "quick" as const }),
      fc.record({ kind: fc.constant("answer" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("interrupt" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 700 }) })
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), (ops) =>
        Effect.runPromise(
          Effect.gen(function*() {
            const deadlines = Deadlines.make("1 second")
            interface Pending {
              readonly startedAt: number
              readonly fiber: Fiber.RuntimeFiber<string, string>
              readonly answer?: (value: string) => void
              outcome?: "timeout" | "answered" | "interrupted"
              endedAt?: number
            }
            const pending: Array<Pending> = []
            const open = () => pending.filter((p) => p.outcome === undefined)
            const observe = Effect.gen(function*() {
              yield* settle
              const now = yield* TestClock.currentTimeMillis
              for (const p of open()) {
                const exit = p.fiber.unsafePoll()
                if (exit !== null) {
                  p.outcome = Exit.isSuccess(exit) ? "answered" : Exit.isInterrupted(exit) ? "interrupted" : "timeout"
                  p.endedAt = now
                }
              }
            })
            for (const step of ops) {
              const now = yield* TestClock.currentTimeMillis
              if (step.kind === "stall" || step.kind === "quick") {
                let answer: ((value: string) => void) | undefined
                const request = (signal: AbortSignal) =>
                  new Promise<string>((resolve, reject) => {
                    answer = resolve
                    signal.addEventListener("abort", () => reject(new Error("aborted")))
                    if (step.kind === "quick") setImmediate(() => resolve("quick"))
                  })
                const fiber = yield* Effect.fork(deadlines.run(request, onError, onTimeout))
                yield* settle
                pending.push({ startedAt: now, fiber, ...(answer === undefined ? {} : { answer }) })
              } else if (step.kind === "answer" || step.kind === "interrupt") {
                const live = open()
                if (live.length > 0) {
                  const target = live[step.pick % live.length]!
                  if (step.kind === "answer") target.answer?.("answered")
                  else yield* Fiber.interrupt(target.fiber)
                }
              } else {
                yield* TestClock.adjust(step.ms)
              }
              yield* observe
              // Nothing still open is past its deadline, and the count of open attempts is exact.
              const after = yield* TestClock.currentTimeMillis
              for (const p of open()) assert.isBelow(after - p.startedAt, 1000)
              assert.strictEqual(deadlines.open(), open().length)
            }
            yield* TestClock.adjust("1 second")
            yield* observe
            for (const p of pending) {
              assert.isDefined(p.outcome)
              // A timeout lands on the first clock move that reaches the deadline, never before it.
              if (p.outcome === "timeout") assert.isAtLeast(p.endedAt! - p.startedAt, 1000)
            }
            assert.strictEqual(deadlines.open(), 0)
            assert.isFalse(deadlines.watching())
          }).pipe(Effect.provide(TestContext.TestContext))
        )),
      { numRuns: 60 }
    )
  })
})
