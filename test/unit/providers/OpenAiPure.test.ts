import { assert, describe, it } from "@effect/vitest"
import { Either, Option, Redacted } from "effect"
import OpenAI from "openai"
import { sniffImageMime } from "../../../src/layers/openai/ImageData.js"
import { reasonForStatus, retryAfterMs, scrubSecret, toProviderError } from "../../../src/layers/openai/OpenAiErrors.js"
import { splitReply, thinkingFields } from "../../../src/layers/openai/Thinking.js"
import { readReply, readStream } from "../../support/providers/ChatReplies.js"

describe("OpenAiErrors", () => {
  it("maps statuses to reasons", () => {
    assert.deepStrictEqual(
      [429, 408, 401, 403, 400, 404, 422, 500, 502, 503].map(reasonForStatus),
      ["RateLimited", "Timeout", "Auth", "Auth", "BadRequest", "NotFound", "BadRequest", "Server", "Server", "Server"]
    )
  })

  it("reads retry-after-ms, Retry-After seconds and Retry-After dates", () => {
    assert.strictEqual(retryAfterMs(new Headers({ "retry-after-ms": "1500", "retry-after": "9" })), 1500)
    assert.strictEqual(retryAfterMs(new Headers({ "retry-after": "9" })), 9000)
    const now = Date.parse("2026-01-01T00:00:00Z")
    assert.strictEqual(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:20 GMT" }), now), 20_000)
    assert.strictEqual(retryAfterMs(new Headers({ "retry-after": "whenever" })), undefined)
    assert.strictEqual(retryAfterMs(new Headers()), undefined)
  })

  it("masks the key wherever a server echoed it", () => {
    const key = Option.some(Redacted.make("sk-secret-1"))
    assert.strictEqual(scrubSecret("bad key sk-secret-1 (sk-secret-1)", key), "bad key [redacted] ([redacted])")
    assert.strictEqual(scrubSecret("nothing here", Option.none()), "nothing here")
  })

  it("maps SDK and fetch errors to reasons", () => {
    const map = toProviderError("llm", Option.some(Redacted.make("sk-x")))
    assert.strictEqual(map(new OpenAI.APIConnectionTimeoutError()).reason, "Timeout")
    assert.strictEqual(map(new OpenAI.APIConnectionError({ message: "refused" })).reason, "Transport")
    const limited = map(
      OpenAI.APIError.generate(429, { message: "slow down, sk-x" }, undefined, new Headers({ "retry-after": "3" }))
    )
    assert.strictEqual(limited.reason, "RateLimited")
    assert.strictEqual(limited.retryAfterMs, 3000)
    assert.notInclude(limited.message, "sk-x")
    assert.strictEqual(map(new SyntaxError("Unexpected end of JSON input")).reason, "BadResponse")
    assert.strictEqual(map(new TypeError("terminated")).reason, "Transport")
  })
})

describe("Thinking", () => {
  it("builds each dialect's switch", () => {
    assert.deepStrictEqual(thinkingFields("none", true), {})
    assert.deepStrictEqual(thinkingFields("deepseek", false), { thinking: { type: "disabled" } })
    assert.deepStrictEqual(thinkingFields("dashscope", true), { enable_thinking: true })
    assert.deepStrictEqual(thinkingFields("vllm", false), {
      chat_template_kwargs: { enable_thinking: false, thinking: false }
    })
  })

  it("finds reasoning in reasoning_content, reasoning, or a leading <think> block", () => {
    assert.deepStrictEqual(splitReply({ content: "a", reasoning_content: "r1" }), { content: "a", reasoning: "r1" })
    assert.deepStrictEqual(splitReply({ content: "a", reasoning: "r2" }), { content: "a", reasoning: "r2" })
    assert.deepStrictEqual(splitReply({ content: "<think>\nr3\n</think>\n\nanswer" }), {
      content: "answer",
      reasoning: "r3"
    })
    assert.deepStrictEqual(splitReply({ content: "plain" }), { content: "plain", reasoning: undefined })
    assert.deepStrictEqual(splitReply({ content: null }), { content: "", reasoning: undefined })
  })
})

describe("sniffImageMime", () => {
  it("recognizes JPEG, PNG and WebP by their first bytes, and nothing else", () => {
    assert.strictEqual(sniffImageMime(new Uint8Array([0xff, 0xd8, 0xff, 0xdb])), "image/jpeg")
    assert.strictEqual(sniffImageMime(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "image/png")
    assert.strictEqual(
      sniffImageMime(new Uint8Array([...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBP")])),
      "image/webp"
    )
    assert.strictEqual(sniffImageMime(new Uint8Array([...Buffer.from("GIF89a")])), undefined)
    assert.strictEqual(sniffImageMime(new Uint8Array([])), undefined)
  })
})

describe("chat replies", () => {
  it("reads content, reasoning, usage and model off a decoded reply", () => {
    const reply = readReply({
      model: "served",
      choices: [{ message: { content: "<think>r</think>answer" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 2 }
    })
    assert.deepStrictEqual(
      reply,
      Either.right({
        content: "answer",
        reasoning: "r",
        usage: { promptTokens: 4, completionTokens: 2 },
        model: "served"
      })
    )
    // Missing usage and model fall back to zeros and the configured model.
    assert.deepStrictEqual(
      readReply({ model: "", choices: [{ message: { content: "x" } }], usage: null }),
      Either.right({ content: "x", usage: { promptTokens: 0, completionTokens: 0 }, model: "configured" })
    )
  })

  it("reads cached and reasoning tokens from each dialect's usage block, absent when not reported", () => {
    const usageOf = (usage: unknown) => {
      const reply = readReply({ model: "m", choices: [{ message: { content: "x" } }], usage })
      return Either.isRight(reply) ? reply.right.usage : reply.left.message
    }
    // OpenAI, vLLM with prefix caching, DashScope.
    assert.deepStrictEqual(
      usageOf({
        prompt_tokens: 1200,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 256, accepted_prediction_tokens: 0 }
      }),
      { promptTokens: 1200, completionTokens: 300, cachedPromptTokens: 1024, reasoningTokens: 256 }
    )
    // DeepSeek: cache hits at the top level, reasoning in the details.
    assert.deepStrictEqual(
      usageOf({
        prompt_tokens: 500,
        completion_tokens: 80,
        prompt_cache_hit_tokens: 448,
        prompt_cache_miss_tokens: 52,
        completion_tokens_details: { reasoning_tokens: 60 }
      }),
      { promptTokens: 500, completionTokens: 80, cachedPromptTokens: 448, reasoningTokens: 60 }
    )
    // A zero is a report ("nothing cached"); null or missing details are not.
    assert.deepStrictEqual(
      usageOf({
        prompt_tokens: 5,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: null
      }),
      { promptTokens: 5, completionTokens: 1, cachedPromptTokens: 0 }
    )
    assert.deepStrictEqual(usageOf({ prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: null }), {
      promptTokens: 5,
      completionTokens: 1
    })
    assert.include(
      usageOf({ prompt_tokens: 5, prompt_tokens_details: { cached_tokens: "5" } }),
      "usage.prompt_tokens_details.cached_tokens:"
    )
  })

  it("a reply of the wrong shape is a BadResponse naming the first issue's path", () => {
    const message = (reply: unknown) => {
      const result = readReply(reply)
      assert.isTrue(Either.isLeft(result))
      return Either.isLeft(result) ? `${result.left.reason} ${result.left.message}` : ""
    }
    assert.include(message({ id: "x" }), "BadResponse llm: unexpected reply (choices: is missing)")
    assert.include(message(null), "unexpected reply (Expected ChatCompletion, actual null)")
    assert.include(message({ choices: [] }), "choices.0: is missing")
    assert.include(message({ choices: [{ message: { content: 5 } }] }), "choices.0.message.content:")
    assert.include(
      message({ choices: [{ message: { content: "x" } }], usage: { prompt_tokens: "11" } }),
      "usage.prompt_tokens:"
    )
    assert.include(
      message({ choices: [{ message: { content: " " }, finish_reason: "length" }] }),
      "no content (finish_reason: length)"
    )
  })

  it("folds streamed chunks into one reply: deltas in order, the last finish reason, the usage chunk", () => {
    const chunks = [
      { model: "m", choices: [{ delta: { role: "assistant", reasoning_content: "th" }, finish_reason: null }] },
      { model: "m", choices: [{ delta: { reasoning_content: "ink", content: "an" } }] },
      { model: "m", choices: [{ delta: { content: "swer" }, finish_reason: "stop" }] },
      { model: "m", choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } }
    ]
    assert.deepStrictEqual(
      readStream(chunks),
      Either.right({
        content: "answer",
        reasoning: "think",
        usage: { promptTokens: 9, completionTokens: 3 },
        model: "m"
      })
    )
  })
})
