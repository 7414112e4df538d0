// Cached prompt tokens and reasoning tokens, end to end through the provider layer: openai-sim counts
// them as a prefix-caching server does, the layer reads each dialect's usage block, and every call
// reports them to the question's usage and to the call log.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import { emptyUsage, withCallContext } from "../../../src/services/CallLog.js"
import { type ChatMessage, type ChatRequest, LLMProvider } from "../../../src/services/LLMProvider.js"
import { makePrefixCache, promptText, type UsageDialect } from "../../support/openai-sim/index.js"
import { llmConfig, withSim } from "./support.js"

const system: ChatMessage = { role: "system", content: "You answer questions about a video. ".repeat(40) }
const first: ReadonlyArray<ChatMessage> = [system, { role: "user", content: "Which scene shows the whiteboard?" }]
const second: ReadonlyArray<ChatMessage> = [
  ...first,
  { role: "assistant", content: "{\"action\": {\"tool\": \"view_node\"}}" },
  { role: "user", content: "[Node] vid_L1_000 | Scene | 0-300s" }
]
const reasoning = "The board is in the first scene, so look there before anything else."

const chat = (request: ChatRequest) => Effect.flatMap(LLMProvider, (llm) => llm.chat(request))

/** What the sim must report, computed from the bodies it received, independently of the layer. */
const expectedTokens = (bodies: ReadonlyArray<Record<string, unknown>>) => {
  const texts = bodies.map(promptText)
  const shared = (a: string, b: string) => {
    let i = 0
    while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++
    return i
  }
  return texts.map((text, i) => ({
    prompt: Math.ceil(text.length / 4),
    cached: Math.floor(Math.max(0, ...texts.slice(0, i).map((earlier) => shared(earlier, text))) / 4)
  }))
}

const runConversation = (dialect: UsageDialect, thinking: "none" | "dashscope" = "none") =>
  Effect.gen(function*() {
    const sim = yield* withSim({
      usageDialect: dialect,
      chat: { "agent-model": [{ content: "one", reasoning }, { content: "two", reasoning }, { content: "three" }] }
    })
    const usage = emptyUsage()
    const { entries, replies } = yield* Effect.gen(function*() {
      const replies = [
        yield* chat({ role: "agent", messages: first }),
        yield* chat({ role: "agent", messages: second }),
        // Thinking off and no reasoning emitted: zero reasoning tokens, still a report.
        yield* chat({
          role: "agent",
          thinking: false,
          messages: [system, { role: "user", content: "Something else?" }]
        })
      ]
      return { replies, entries: yield* (yield* MemoryCallLog).entries }
    }).pipe(
      withCallContext({ questionId: "q", usage }),
      Effect.provide(Layer.provideMerge(OpenAiLlm.layer(llmConfig(sim.url, { thinking })), MemoryCallLog.layer))
    )
    return { sim, usage, entries, replies }
  })

describe("usage details against openai-sim", () => {
  it.scoped("openai dialect: cached = the prefix shared with earlier requests; reasoning tokens when the model reasoned", () =>
    Effect.gen(function*() {
      const { entries, replies, sim, usage } = yield* runConversation("openai")
      const expected = expectedTokens(sim.requests.map((request) => request.body))
      // The first request has nothing to share; the second repeats all of the first but its closing bracket.
      assert.strictEqual(expected[0]!.cached, 0)
      assert.strictEqual(expected[1]!.cached, Math.floor((promptText(sim.requests[0]!.body).length - 1) / 4))
      assert.isAbove(expected[2]!.cached, Math.floor(system.content.length / 4))
      const reasoningTokens = Math.ceil(reasoning.length / 4)
      assert.deepStrictEqual(replies.map((reply) => reply.usage.cachedPromptTokens), expected.map((e) => e.cached))
      assert.deepStrictEqual(replies.map((reply) => reply.usage.promptTokens), expected.map((e) => e.prompt))
      assert.deepStrictEqual(replies.map((reply) => reply.usage.reasoningTokens), [reasoningTokens, reasoningTokens, 0])
      assert.deepStrictEqual(entries.map((call) => [call.cachedPromptTokens, call.reasoningTokens]), [
        [expected[0]!.cached, reasoningTokens],
        [expected[1]!.cached, reasoningTokens],
        [expected[2]!.cached, 0]
      ])
      assert.strictEqual(usage.agent.cachedPromptTokens, expected.reduce((sum, e) => sum + e.cached, 0))
      assert.strictEqual(usage.agent.reasoningTokens, 2 * reasoningTokens)
      assert.strictEqual(usage.agent.promptTokens, expected.reduce((sum, e) => sum + e.prompt, 0))
    }))

  it.scoped("deepseek dialect (prompt_cache_hit_tokens) reads the same numbers", () =>
    Effect.gen(function*() {
      const { replies, sim } = yield* runConversation("deepseek")
      const expected = expectedTokens(sim.requests.map((request) => request.body))
      assert.deepStrictEqual(replies.map((reply) => reply.usage.cachedPromptTokens), expected.map((e) => e.cached))
      assert.isAbove(replies[1]!.usage.cachedPromptTokens!, 0)
      assert.strictEqual(replies[0]!.usage.reasoningTokens, Math.ceil(reasoning.length / 4))
    }))

  it.scoped("streamed replies (dashscope thinking) carry the details in their usage chunk", () =>
    Effect.gen(function*() {
      const { replies, sim } = yield* runConversation("openai", "dashscope")
      assert.strictEqual(sim.requests[0]!.body["stream"], true)
      const expected = expectedTokens(sim.requests.map((request) => request.body))
      assert.deepStrictEqual(replies.map((reply) => reply.usage.cachedPromptTokens), expected.map((e) => e.cached))
      assert.strictEqual(replies[1]!.usage.reasoningTokens, Math.ceil(reasoning.length / 4))
    }))

  it.scoped("a server that reports no details leaves them absent, not zero", () =>
    Effect.gen(function*() {
      const { replies, usage } = yield* runConversation("none")
      assert.isTrue(
        replies.every((reply) => !("cachedPromptTokens" in reply.usage) && !("reasoningTokens" in reply.usage))
      )
      assert.isUndefined(usage.agent.cachedPromptTokens)
      assert.isUndefined(usage.agent.reasoningTokens)
    }))
})

describe("openai-sim prefix cache", () => {
  it("is per model, counts whole tokens of the longest shared prefix, and evicts the oldest prompts", () => {
    const cache = makePrefixCache(2)
    assert.strictEqual(cache.lookup("m", "abcdefghij"), 0)
    assert.strictEqual(cache.lookup("other", "abcdefghij"), 0)
    assert.strictEqual(cache.lookup("m", "abcdefgXYZ"), 1)
    assert.strictEqual(cache.lookup("m", "abcdefghijKL"), 2)
    // "abcdefghij" was evicted (capacity 2); the best left shares "abcdefghij" with "abcdefghijKL".
    assert.strictEqual(cache.lookup("m", "abcdefghij"), 2)
    assert.strictEqual(cache.lookup("m", "zzzz"), 0)
  })

  it("finds the same longest prefix as comparing with every kept prompt", () => {
    // Prompts over a tiny alphabet share long prefixes often; duplicates and evictions included.
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const prompt = () =>
      Array.from({ length: 4 + Math.floor(random() * 40) }, () => "ab"[Math.floor(random() * 2)]).join("")
    const capacity = 16
    const cache = makePrefixCache(capacity)
    const kept: Array<string> = []
    for (let i = 0; i < 2_000; i++) {
      const text = prompt()
      const shared = (a: string) => {
        let n = 0
        while (n < Math.min(a.length, text.length) && a[n] === text[n]) n++
        return n
      }
      const expected = Math.floor(Math.max(0, ...kept.map(shared)) / 4)
      assert.strictEqual(cache.lookup("m", text), expected, `lookup ${i}`)
      kept.push(text)
      if (kept.length > capacity) kept.shift()
    }
  })
})
