import { assert, describe, it } from "@effect/vitest"
import { Duration, Option } from "effect"
import type { LlmConfig, VlmConfig } from "../../../src/config/ProviderConfig.js"
import { describeDialect, detectDialect } from "../../../src/layers/openai/Dialect.js"
import { chatBody } from "../../../src/layers/openai/OpenAiLlm.js"
import { visionBody } from "../../../src/layers/openai/OpenAiVlm.js"

const at = (baseUrl: string, model: string) => ({ baseUrl, model })

describe("endpoint dialect", () => {
  it("caps tokens with max_completion_tokens on OpenAI and for its reasoning models, max_tokens elsewhere", () => {
    const cases = [
      [at("https://api.openai.com/v1", "gpt-4.1-mini"), "none", "openai (max_completion_tokens)"],
      [at("https://acme.openai.azure.com/openai/v1", "gpt-4o"), "none", "openai (max_completion_tokens)"],
      [at("https://openrouter.ai/api/v1", "openai/o3-mini"), "none", "openai-reasoning (max_completion_tokens)"],
      [at("http://127.0.0.1:8000/v1", "gpt-5-mini"), "none", "openai-reasoning (max_completion_tokens)"],
      [at("http://127.0.0.1:8000/v1", "o4-mini"), "vllm", "openai-reasoning (max_completion_tokens)"],
      // Names that merely contain an "o" and a digit are not OpenAI reasoning models.
      [at("http://127.0.0.1:8000/v1", "gpt-4o"), "none", "openai-compatible (max_tokens)"],
      [at("http://127.0.0.1:8000/v1", "qwen3-32b"), "vllm", "vllm (max_tokens)"],
      [at("https://api.deepseek.com/v1", "deepseek-reasoner"), "deepseek", "deepseek (max_tokens)"],
      [at("https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"), "dashscope", "dashscope (max_tokens)"],
      [at("not a url", "m"), "none", "openai-compatible (max_tokens)"]
    ] as const
    assert.deepStrictEqual(
      cases.map(([endpoint, thinking]) => describeDialect(detectDialect(endpoint, thinking))),
      cases.map(([, , expected]) => expected)
    )
  })

  const endpoint = (baseUrl: string, model: string) => ({
    provider: "llm",
    baseUrl,
    apiKey: Option.none(),
    model,
    timeout: Duration.seconds(5)
  })
  const reliability = { concurrency: 1, retries: 0 }

  it("puts the cap in the field the endpoint wants, in chat and vision bodies, and none without a cap", () => {
    const config: LlmConfig = {
      agent: endpoint("https://api.openai.com/v1", "o3"),
      tool: endpoint("http://127.0.0.1:8000/v1", "qwen3-8b"),
      thinking: "vllm",
      reliability
    }
    const messages = [{ role: "user" as const, content: "hi" }]
    const agent = chatBody(config, { role: "agent", messages, maxTokens: 300 })
    assert.strictEqual(agent["max_completion_tokens"], 300)
    assert.notProperty(agent, "max_tokens")
    const tool = chatBody(config, { role: "tool", messages, maxTokens: 200 })
    assert.strictEqual(tool["max_tokens"], 200)
    assert.notProperty(tool, "max_completion_tokens")
    const uncapped = chatBody(config, { role: "tool", messages })
    assert.isFalse("max_tokens" in uncapped || "max_completion_tokens" in uncapped)

    const vlm = (baseUrl: string): VlmConfig => ({
      endpoint: endpoint(baseUrl, "gpt-4.1"),
      thinking: "none",
      maxImageBytes: 1,
      reliability
    })
    const request = { system: "s", text: "t", images: [], maxTokens: 64 }
    const body = (baseUrl: string): Record<string, unknown> => visionBody(vlm(baseUrl), request, [])
    assert.strictEqual(body("https://api.openai.com/v1")["max_completion_tokens"], 64)
    assert.strictEqual(body("http://127.0.0.1:8000/v1")["max_tokens"], 64)
  })
})
