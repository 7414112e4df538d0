// Sampling per role (issue 28, item 3): the variables each role reads, their defaults and their checks,
// the request body fields they become, and how a resumed run's settings are compared.
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Schema } from "effect"
import { loadLlmConfig, loadProvidersConfig, loadVlmConfig } from "../../../src/config/ProviderConfig.js"
import { recordedSampling, StoredRunConfig } from "../../../src/domain/RunConfig.js"
import { samplingDifference } from "../../../src/domain/Sampling.js"
import { detectDialect, samplingBodyFields } from "../../../src/layers/openai/Dialect.js"
import { chatBody } from "../../../src/layers/openai/OpenAiLlm.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const base = { VTREE_LLM_MODEL: "agent-model", VTREE_TOOL_LLM_MODEL: "tool-model", VTREE_VLM_MODEL: "vlm-model" }

describe("sampling variables", () => {
  it.effect("unset: the agent and the VLM send nothing, the tool role temperature 0", () =>
    Effect.gen(function*() {
      const llm = yield* loadLlmConfig.pipe(withEnv(base))
      const vlm = yield* loadVlmConfig.pipe(withEnv(base))
      assert.deepStrictEqual(llm.sampling, { agent: {}, tool: { temperature: 0 } })
      assert.deepStrictEqual(vlm.sampling, {})
    }))

  it.effect("each role reads its own four variables and inherits none from another", () =>
    Effect.gen(function*() {
      const config = yield* loadProvidersConfig.pipe(withEnv({
        ...base,
        VTREE_LLM_TEMPERATURE: "0.7",
        VTREE_LLM_TOP_P: "0.95",
        VTREE_LLM_SEED: "42",
        VTREE_LLM_MAX_TOKENS: "8192",
        VTREE_TOOL_LLM_MAX_TOKENS: "1024",
        VTREE_VLM_TEMPERATURE: "0.2",
        VTREE_VLM_SEED: "7"
      }))
      const llm = Option.getOrThrow(config.llm)
      assert.deepStrictEqual(llm.sampling, {
        agent: { temperature: 0.7, topP: 0.95, seed: 42, maxTokens: 8192 },
        tool: { temperature: 0, maxTokens: 1024 }
      })
      assert.deepStrictEqual(Option.getOrThrow(config.vlm).sampling, { temperature: 0.2, seed: 7 })
    }))

  it.effect("none sends nothing, even the tool role's default; OpenAI reasoning models get no default temperature", () =>
    Effect.gen(function*() {
      const none = yield* loadLlmConfig.pipe(withEnv({ ...base, VTREE_TOOL_LLM_TEMPERATURE: "none" }))
      assert.deepStrictEqual(none.sampling?.tool, {})
      for (const model of ["o4-mini", "openai/o3", "gpt-5-mini"]) {
        const reasoning = yield* loadLlmConfig.pipe(withEnv({ ...base, VTREE_TOOL_LLM_MODEL: model }))
        assert.deepStrictEqual(reasoning.sampling?.tool, {}, model)
      }
      const inherited = yield* loadLlmConfig.pipe(withEnv({ VTREE_LLM_MODEL: "gpt-5" }))
      assert.deepStrictEqual(inherited.sampling?.tool, {})
      const asked = yield* loadLlmConfig.pipe(
        withEnv({ ...base, VTREE_TOOL_LLM_MODEL: "o4-mini", VTREE_TOOL_LLM_TEMPERATURE: "1" })
      )
      assert.deepStrictEqual(asked.sampling?.tool, { temperature: 1 })
    }))

  it.effect("a value out of range or not a number is one line naming the variable and what it must be", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["VTREE_LLM_TEMPERATURE", "2.5", "a number from 0 to 2"],
        ["VTREE_TOOL_LLM_TOP_P", "0", "a number above 0, at most 1"],
        ["VTREE_VLM_SEED", "-1", "a whole number ≥ 0"],
        ["VTREE_LLM_MAX_TOKENS", "4k", "a whole number ≥ 1"],
        ["VTREE_TOOL_LLM_MAX_TOKENS", "1.5", "a whole number ≥ 1"]
      ]
      for (const [variable, value, expected] of cases) {
        const error = yield* Effect.flip(loadProvidersConfig.pipe(withEnv({ ...base, [variable]: value })))
        assert.strictEqual(error.variable, variable)
        assert.strictEqual(error.reason, "Invalid")
        assert.strictEqual(
          error.message,
          `${variable}="${value}": expected ${expected}, or none to send none — fix or unset ${variable}`
        )
        assert.notInclude(error.message, "\n")
      }
    }))
})

describe("sampling in the request body", () => {
  it("only what is set, the token cap in the endpoint's dialect, a request's own cap over the role's", () => {
    const openAi = detectDialect({ baseUrl: "https://api.openai.com/v1", model: "gpt-4.1" }, "none")
    const vllm = detectDialect({ baseUrl: "http://gpu:8000/v1", model: "Qwen3-32B" }, "vllm")
    const role = { temperature: 0.3, topP: 0.9, seed: 1, maxTokens: 500 }
    assert.deepStrictEqual(samplingBodyFields(vllm, {}, {}), {})
    assert.deepStrictEqual(samplingBodyFields(vllm, role, {}), {
      temperature: 0.3,
      top_p: 0.9,
      seed: 1,
      max_tokens: 500
    })
    assert.deepStrictEqual(samplingBodyFields(openAi, role, {}), {
      temperature: 0.3,
      top_p: 0.9,
      seed: 1,
      max_completion_tokens: 500
    })
    assert.deepStrictEqual(samplingBodyFields(vllm, role, { maxTokens: 64, temperature: 1 }), {
      temperature: 1,
      top_p: 0.9,
      seed: 1,
      max_tokens: 64
    })
  })

  it.effect("each role's settings reach its own requests", () =>
    Effect.gen(function*() {
      const config = yield* loadLlmConfig.pipe(withEnv({ ...base, VTREE_LLM_SEED: "5" }))
      const agent = chatBody(config, { role: "agent", messages: [] })
      const tool = chatBody(config, { role: "tool", messages: [] })
      assert.strictEqual(agent["seed"], 5)
      assert.isFalse("temperature" in agent)
      assert.strictEqual(tool["temperature"], 0)
      assert.isFalse("seed" in tool)
    }))
})

describe("a run's stored sampling", () => {
  const stored = { agent: { temperature: 0.7 }, tool: { temperature: 0 }, vlm: {} }

  it("reads it from the run's config; runs stored before it was recorded have none", () => {
    const decode = Schema.decodeUnknownSync(StoredRunConfig)
    assert.deepStrictEqual(recordedSampling(decode({ sampling: stored })), stored)
    assert.isUndefined(recordedSampling(decode({ protocol: "json" })))
    assert.isUndefined(recordedSampling(decode({ sampling: { agent: { temperature: 0.7 } } })))
  })

  it("names the first setting that differs and where it is set", () => {
    assert.isUndefined(samplingDifference(stored, { ...stored }))
    assert.strictEqual(
      samplingDifference(stored, { ...stored, agent: {} }),
      "agent temperature 0.7, now unset (set by --temperature or VTREE_LLM_TEMPERATURE)"
    )
    assert.strictEqual(
      samplingDifference(stored, { ...stored, vlm: { maxTokens: 300 } }),
      "vlm max tokens unset, now 300 (set by VTREE_VLM_MAX_TOKENS)"
    )
  })
})
