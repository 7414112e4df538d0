import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedOcr from "../../../src/layers/testing/ScriptedOcr.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { emptyUsage, withCallContext } from "../../../src/services/CallLog.js"
import { type ChatRequest, LLMProvider } from "../../../src/services/LLMProvider.js"
import { OCRProvider } from "../../../src/services/OCRProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"

const ask = (content: string, role: ChatRequest["role"] = "agent"): ChatRequest => ({
  role,
  messages: [{ role: "user", content }]
})
const limited = new ProviderError({ provider: "llm", reason: "RateLimited", message: "slow down" })

describe("ScriptedLlm", () => {
  it.effect("replies in order (string, ChatResponse, error), records requests and reports usage", () =>
    Effect.gen(function*() {
      const llm = yield* ScriptedLlm.make([
        "two words",
        { content: "full", reasoning: "why", usage: { promptTokens: 5, completionTokens: 6 }, model: "m" },
        limited
      ])
      const usage = emptyUsage()
      const { first, second, third, entries } = yield* Effect.gen(function*() {
        const provider = yield* LLMProvider
        const first = yield* provider.chat(ask("hello there friend"))
        const second = yield* provider.chat(ask("again", "tool"))
        const third = yield* Effect.flip(provider.chat(ask("once more")))
        return { first, second, third, entries: yield* (yield* MemoryCallLog).entries }
      }).pipe(
        withCallContext({ questionId: "q", parentStep: 1, usage }),
        Effect.provide(Layer.provideMerge(llm.layer, MemoryCallLog.layer))
      )
      assert.deepStrictEqual(first, {
        content: "two words",
        usage: { promptTokens: 3, completionTokens: 2 },
        model: "scripted-llm"
      })
      assert.strictEqual(second.reasoning, "why")
      assert.strictEqual(third, limited)
      assert.deepStrictEqual((yield* llm.requests).map((request) => request.messages[0]!.content), [
        "hello there friend",
        "again",
        "once more"
      ])
      assert.deepStrictEqual(usage.agent, { calls: 2, promptTokens: 3, completionTokens: 2 })
      assert.deepStrictEqual(usage.tool, { calls: 1, promptTokens: 5, completionTokens: 6 })
      assert.deepStrictEqual(entries.map((entry) => [entry.role, entry.status, entry.errorReason, entry.questionId]), [
        ["agent", "ok", null, "q"],
        ["tool", "ok", null, "q"],
        ["agent", "error", "RateLimited", "q"]
      ])
    }))

  it.effect("a function script sees the request and its index", () =>
    Effect.gen(function*() {
      const reply = yield* Effect.flatMap(LLMProvider, (provider) => provider.chat(ask("ping", "tool"))).pipe(
        Effect.provide(
          ScriptedLlm.layer((request, index) => `${request.role}:${index}:${request.messages[0]!.content}`)
        )
      )
      assert.strictEqual(reply.content, "tool:0:ping")
    }))

  it.effect("latency runs on the clock, so TestClock controls it", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        Effect.flatMap(LLMProvider, (provider) => provider.chat(ask("slow"))).pipe(
          Effect.provide(ScriptedLlm.layer(["late"], { latency: "3 seconds" }))
        )
      )
      yield* TestClock.adjust("2 seconds")
      assert.isTrue((yield* Fiber.poll(fiber))._tag === "None")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(fiber)).content, "late")
    }))

  it.effect("running past the script is a defect that says so", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.flatMap(LLMProvider, (provider) => Effect.zipRight(provider.chat(ask("1")), provider.chat(ask("2"))))
          .pipe(
            Effect.provide(ScriptedLlm.layer(["only one"]))
          )
      )
      assert.strictEqual(exit._tag, "Failure")
      assert.strictEqual(exit._tag === "Failure" ? exit.cause._tag : undefined, "Die")
      assert.include(
        String(exit._tag === "Failure" && exit.cause._tag === "Die" ? exit.cause.defect : ""),
        "call 2 was made"
      )
    }))
})

describe("ScriptedVlm and ScriptedOcr", () => {
  it.effect("return their scripted replies, record requests and report vlm / ocr calls", () =>
    Effect.gen(function*() {
      const vlm = yield* ScriptedVlm.make(["a cat on a mat"])
      const ocr = yield* ScriptedOcr.make([
        new ProviderError({ provider: "ocr", reason: "Transport", message: "down" }),
        "EXIT"
      ])
      const usage = emptyUsage()
      const { seen, ocrError, text } = yield* Effect.gen(function*() {
        const seen = yield* (yield* VLMProvider).chatWithImages({ system: "s", text: "what?", images: ["/f/1.jpg"] })
        const reader = yield* OCRProvider
        const ocrError = yield* Effect.flip(reader.transcribeFrames(["/f/1.jpg"]))
        const text = yield* reader.transcribeFrames(["/f/2.jpg"])
        return { seen, ocrError, text }
      }).pipe(withCallContext({ usage }), Effect.provide(Layer.provideMerge(vlm.layer, ocr.layer)))
      assert.strictEqual(seen.content, "a cat on a mat")
      assert.deepStrictEqual((yield* vlm.requests)[0]!.images, ["/f/1.jpg"])
      assert.strictEqual(ocrError.reason, "Transport")
      assert.strictEqual(text, "EXIT")
      assert.deepStrictEqual(yield* ocr.requests, [["/f/1.jpg"], ["/f/2.jpg"]])
      assert.strictEqual(usage.vlm.calls, 1)
      assert.strictEqual(usage.ocr.calls, 2)
    }))
})
