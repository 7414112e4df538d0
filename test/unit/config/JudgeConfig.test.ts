import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { loadJudgeConfig } from "../../../src/config/ProviderConfig.js"
import { judgeBody } from "../../../src/layers/openai/OpenAiJudge.js"

const load = (env: Record<string, string>) =>
  loadJudgeConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("VTREE_JUDGE_*", () => {
  it.effect("several models, comma-separated, each a judge at one base URL and key; temperature 0 by default", () =>
    Effect.gen(function*() {
      const config = yield* load({
        VTREE_JUDGE_BASE_URL: "http://judges:8000/v1/",
        VTREE_JUDGE_API_KEY: "sk-judge",
        VTREE_JUDGE_MODEL: " qwen3-32b, gpt-4o ,qwen3-32b"
      })
      assert.deepStrictEqual(config.judges.map((j) => [j.provider, j.baseUrl, j.model]), [
        ["judge", "http://judges:8000/v1", "qwen3-32b"],
        ["judge", "http://judges:8000/v1", "gpt-4o"]
      ])
      assert.strictEqual(Option.map(config.judges[0]!.apiKey, Redacted.value).pipe(Option.getOrNull), "sk-judge")
      assert.deepStrictEqual(config.sampling, { temperature: 0 })
      const body = judgeBody(config, config.judges[1]!, [{ role: "user", content: "judge this" }])
      assert.deepStrictEqual([body["model"], body["temperature"]], ["gpt-4o", 0])
    }))

  it.effect("falls back to the agent's base URL and key; VTREE_JUDGE_TEMPERATURE sets or (none) drops the temperature", () =>
    Effect.gen(function*() {
      const inherited = yield* load({
        VTREE_LLM_BASE_URL: "http://llm:8000/v1",
        VTREE_LLM_API_KEY: "sk-agent",
        VTREE_LLM_MODEL: "reasoner",
        VTREE_JUDGE_MODEL: "judge",
        VTREE_JUDGE_TEMPERATURE: "0.3"
      })
      assert.strictEqual(inherited.judges[0]!.baseUrl, "http://llm:8000/v1")
      assert.isTrue(Option.isSome(inherited.judges[0]!.apiKey))
      assert.deepStrictEqual(inherited.sampling, { temperature: 0.3 })
      const none = yield* load({ VTREE_JUDGE_MODEL: "judge", VTREE_JUDGE_TEMPERATURE: "none" })
      assert.deepStrictEqual(none.sampling, {})
    }))

  it.effect("fails naming the variable: no model, a base URL without one, or a bad temperature", () =>
    Effect.gen(function*() {
      const unset = yield* Effect.flip(load({}))
      assert.strictEqual(unset.message, "the judge is not configured: set VTREE_JUDGE_MODEL")
      const noModel = yield* Effect.flip(load({ VTREE_JUDGE_BASE_URL: "http://judges/v1" }))
      assert.include(noModel.message, "VTREE_JUDGE_BASE_URL is set but VTREE_JUDGE_MODEL is not")
      const hot = yield* Effect.flip(load({ VTREE_JUDGE_MODEL: "j", VTREE_JUDGE_TEMPERATURE: "9" }))
      assert.strictEqual(hot.variable, "VTREE_JUDGE_TEMPERATURE")
    }))
})
