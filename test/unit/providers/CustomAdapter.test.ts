import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { Providers, Reliability, Testing } from "../../../src/index.js"

// An adapter written outside vtree (a made-up promise API) reuses the policy the built-in ones use:
// a timeout per attempt, the semaphore and retries, and the call report.
const makeAdapter = (api: (prompt: string, signal: AbortSignal) => Promise<string>) =>
  Effect.map(Effect.makeSemaphore(2), (semaphore) => {
    const policy = { provider: "acme", semaphore, timeout: "30 seconds", retries: 2, baseDelay: "1 second" } as const
    const toError = (cause: unknown) =>
      new Providers.ProviderError({
        provider: "acme",
        reason: "Server",
        message: `acme: ${cause instanceof Error ? cause.message : String(cause)}`
      })
    return Providers.LLMProvider.of({
      chat: (request) =>
        Effect.tryPromise({ try: (signal) => api(request.messages.at(-1)?.content ?? "", signal), catch: toError })
          .pipe(
            Effect.map((content) => ({ content, usage: { promptTokens: 3, completionTokens: 1 }, model: "acme-1" })),
            Reliability.withPolicy(policy),
            Reliability.reported({ role: request.role, model: "acme-1" }, (reply) => reply.usage)
          )
    })
  })

describe("a provider adapter built from the exported policy", () => {
  it.effect("retries a failure after the backoff, times out a stall, and reports each call", () =>
    Effect.gen(function*() {
      let calls = 0
      let aborted = 0
      const adapter = yield* makeAdapter((prompt, signal) => {
        calls += 1
        if (prompt === "flaky" && calls === 1) return Promise.reject(new Error("busy"))
        if (prompt === "stall") {
          return new Promise((_, reject) =>
            signal.addEventListener("abort", () => {
              aborted += 1
              reject(new Error("aborted"))
            })
          )
        }
        return Promise.resolve(`echo ${prompt}`)
      })
      const flaky = yield* Effect.fork(adapter.chat({ role: "tool", messages: [{ role: "user", content: "flaky" }] }))
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual((yield* Fiber.join(flaky)).content, "echo flaky")
      assert.strictEqual(calls, 2)

      const stall = yield* Effect.fork(
        Effect.either(adapter.chat({ role: "agent", messages: [{ role: "user", content: "stall" }] }))
      )
      // Three attempts of 30 s each with backoffs of at most 1.2 s and 2.4 s between them.
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("10 seconds")
      const outcome = yield* Fiber.join(stall)
      assert.strictEqual(outcome._tag, "Left")
      assert.strictEqual(outcome._tag === "Left" ? outcome.left.reason : undefined, "Timeout")
      // The first try and both retries each reached the API.
      assert.strictEqual(calls, 5)
      // Each timed-out attempt aborted its request rather than leaving it running.
      assert.strictEqual(aborted, 3)

      const log = yield* Testing.MemoryCallLog
      const entries = yield* log.entries
      assert.deepStrictEqual(entries.map((entry) => [entry.role, entry.status, entry.errorReason]), [
        ["tool", "ok", null],
        ["agent", "error", "Timeout"]
      ])
    }).pipe(Effect.provide(Testing.MemoryCallLog.layer)))
})
