import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, TestClock } from "effect"
import type { LlmConfig } from "../../../src/config/ProviderConfig.js"
import * as OpenAiEmbedding from "../../../src/layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import { EmbeddingProvider } from "../../../src/services/EmbeddingProvider.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"
import { embeddingConfig, llmConfig, withSim } from "./support.js"

const answering: OpenAiSim.SimOptions = { chat: { "*": () => ({ content: "ok" }) } }

const twoReplicas = (a: string, b: string): LlmConfig => {
  const base = llmConfig(a, { concurrency: 2 })
  return {
    ...base,
    agent: { ...base.agent, baseUrls: [a, b] },
    tool: { ...base.tool, baseUrls: [a, b] },
    reliability: { ...base.reliability, ejectFor: Duration.seconds(5) }
  }
}

const questions = (count: number) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) =>
      Effect.flatMap(LLMProvider, (llm) =>
        llm.chat({ role: i % 2 === 0 ? "agent" : "tool", messages: [{ role: "user", content: `q${i}` }] })),
    { concurrency: 4 }
  )

/**
 * Runs `effect` while HTTP happens in real time and the retry Schedule sleeps on the TestClock: the
 * clock is moved a little at a time until the effect is done.
 */
const driven = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    while (Option.isNone(yield* Fiber.poll(fiber))) {
      yield* TestClock.adjust("250 millis")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
    return yield* Fiber.join(fiber)
  })

const chatsTo = (sim: OpenAiSim.OpenAiSim) =>
  sim.requests.filter((request) => request.path === "/v1/chat/completions").length

describe("several endpoints behind one role (two openai-sims)", () => {
  it.scoped("both serve; one stopped mid-run: no question fails; back at its URL, it serves again; calls record their endpoint", () =>
    Effect.gen(function*() {
      const a = yield* withSim(answering)
      const b = yield* Effect.promise(() => OpenAiSim.start(answering))
      const bUrl = new URL(b.url)
      const log = yield* MemoryCallLog
      const layer = OpenAiLlm.layer(twoReplicas(a.url, b.url))

      yield* Effect.gen(function*() {
        yield* questions(12)
        assert.isAbove(chatsTo(a), 0)
        assert.isAbove(chatsTo(b), 0)
        assert.strictEqual(chatsTo(a) + chatsTo(b), 12)

        yield* Effect.promise(() => b.close())
        a.reset()
        const during = yield* driven(questions(12))
        assert.strictEqual(during.length, 12)
        assert.strictEqual(chatsTo(a), 12)

        const back = yield* Effect.acquireRelease(
          Effect.promise(() => OpenAiSim.start({ ...answering, port: Number(bUrl.port) })),
          (sim) => Effect.promise(() => sim.close())
        )
        // Past the longest back-off: the next request probes b, finds it up, and b takes traffic again.
        yield* TestClock.adjust("1 minute")
        yield* questions(12)
        assert.isAbove(chatsTo(back), 0)
      }).pipe(Effect.provide(layer))

      const entries = yield* log.entries
      const label = (url: string) => url.replace(/\/$/, "")
      const ok = entries.filter((entry) => entry.status === "ok")
      // Every question is one ok call; the endpoint is where its last attempt went.
      assert.strictEqual(ok.length, 36)
      assert.deepStrictEqual(new Set(ok.map((entry) => entry.endpoint)), new Set([label(a.url), label(b.url)]))
      assert.isTrue(entries.every((entry) => entry.status === "ok"))
    }).pipe(Effect.provide(MemoryCallLog.layer)))

  it.scoped("embeddings spread over two replicas the same way", () =>
    Effect.gen(function*() {
      const a = yield* withSim({})
      const b = yield* withSim({})
      const base = embeddingConfig(a.url)
      const config = { ...base, batchSize: 1, endpoint: { ...base.endpoint, baseUrls: [a.url, b.url] } }
      const vectors = yield* Effect.flatMap(EmbeddingProvider, (embedder) =>
        embedder.embed(["one", "two", "three", "four"])).pipe(
          Effect.provide(OpenAiEmbedding.layer(config))
        )
      assert.strictEqual(vectors.length, 4)
      assert.isAbove(a.requests.length, 0)
      assert.isAbove(b.requests.length, 0)
    }))
})
