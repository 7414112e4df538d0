import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import {
  loadEmbeddingConfig,
  loadLlmConfig,
  loadOcrConfig,
  loadProvidersConfig,
  loadRoleConfigs,
  loadVlmConfig
} from "../../../src/config/ProviderConfig.js"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const key = (option: Option.Option<Redacted.Redacted<string>>) =>
  Option.getOrUndefined(Option.map(option, Redacted.value))

describe("ProviderConfig", () => {
  it.effect("nothing set: no model configured; OCR is the embedded engine reading English", () =>
    Effect.gen(function*() {
      const config = yield* loadProvidersConfig.pipe(withEnv({}))
      assert.isTrue(Option.isNone(config.llm))
      assert.isTrue(Option.isNone(config.vlm))
      assert.isTrue(Option.isNone(config.embedding))
      assert.deepStrictEqual(
        config.ocr,
        Option.some({
          engine: "tesseract" as const,
          tesseract: { langs: ["eng"], workers: 1, timeout: Duration.seconds(60) }
        })
      )
    }))

  it.effect("VTREE_OCR picks the engine: off, tesseract with its languages and workers, monkeyocr with its URLs", () =>
    Effect.gen(function*() {
      const off = yield* loadProvidersConfig.pipe(withEnv({ VTREE_OCR: "off", VTREE_OCR_URLS: "http://ocr:7861" }))
      assert.isTrue(Option.isNone(off.ocr))
      const chinese = Option.getOrThrow(
        (yield* loadProvidersConfig.pipe(withEnv({ VTREE_OCR_LANGS: "eng+chi_sim", VTREE_OCR_WORKERS: "2" }))).ocr
      )
      assert.deepStrictEqual(chinese.engine === "tesseract" ? chinese.tesseract.langs : [], ["eng", "chi_sim"])
      assert.strictEqual(chinese.engine === "tesseract" ? chinese.tesseract.workers : 0, 2)
      const monkey = Option.getOrThrow(
        (yield* loadProvidersConfig.pipe(withEnv({ VTREE_OCR_URLS: "http://ocr:7861" }))).ocr
      )
      assert.strictEqual(monkey.engine, "monkeyocr")
      const noUrls = yield* Effect.flip(loadRoleConfigs.ocr.pipe(withEnv({ VTREE_OCR: "monkeyocr" })))
      assert.strictEqual(noUrls.reason, "Missing")
      assert.strictEqual(noUrls.variable, "VTREE_OCR_URLS")
      const bogus = yield* Effect.flip(loadRoleConfigs.ocr.pipe(withEnv({ VTREE_OCR: "paddle" })))
      assert.strictEqual(bogus.reason, "Invalid")
      assert.include(bogus.message, "tesseract, monkeyocr, off")
      const badLang = yield* Effect.flip(loadRoleConfigs.ocr.pipe(withEnv({ VTREE_OCR_LANGS: "eng;rm -rf" })))
      assert.strictEqual(badLang.variable, "VTREE_OCR_LANGS")
    }))

  it.effect("the tool role and the VLM default to the LLM values; OPENAI_* are the fallbacks", () =>
    Effect.gen(function*() {
      const config = yield* loadProvidersConfig.pipe(
        withEnv({
          VTREE_LLM_MODEL: "deepseek-reasoner",
          OPENAI_BASE_URL: "https://api.deepseek.com/v1/",
          OPENAI_API_KEY: "sk-1",
          VTREE_TOOL_LLM_MODEL: "deepseek-chat",
          VTREE_LLM_THINKING: "DeepSeek"
        })
      )
      const llm = Option.getOrThrow(config.llm)
      assert.strictEqual(llm.agent.baseUrl, "https://api.deepseek.com/v1")
      assert.strictEqual(key(llm.agent.apiKey), "sk-1")
      assert.strictEqual(llm.tool.model, "deepseek-chat")
      assert.strictEqual(llm.tool.baseUrl, llm.agent.baseUrl)
      assert.strictEqual(key(llm.tool.apiKey), "sk-1")
      assert.strictEqual(llm.thinking, "deepseek")
      assert.strictEqual(Duration.toSeconds(llm.agent.timeout), 180)
      assert.strictEqual(Duration.toSeconds(llm.tool.timeout), 120)
      assert.deepStrictEqual(llm.reliability, {
        concurrency: 16,
        retries: 4,
        ejectFor: Duration.seconds(5),
        maxReplyBytes: 32 * 1024 * 1024
      })
      const vlm = Option.getOrThrow(config.vlm)
      assert.strictEqual(vlm.endpoint.model, "deepseek-reasoner")
      assert.strictEqual(key(vlm.endpoint.apiKey), "sk-1")
      assert.strictEqual(Duration.toSeconds(vlm.endpoint.timeout), 180)
      assert.isTrue(Option.isNone(config.embedding))
    }))

  it.effect("a comma-separated base URL lists a role's replicas; other roles inherit the list and its key", () =>
    Effect.gen(function*() {
      const config = yield* loadProvidersConfig.pipe(withEnv({
        VTREE_LLM_BASE_URL: "http://a:8000/v1/, http://b:8000/v1",
        VTREE_LLM_API_KEY: "sk-1",
        VTREE_LLM_MODEL: "qwen",
        VTREE_EMBED_BASE_URL: "http://e1/v1,http://e2/v1",
        VTREE_EMBED_MODEL: "bge",
        VTREE_PROVIDER_EJECT_SECONDS: "2",
        VTREE_PROVIDER_MAX_REPLY_BYTES: "1048576"
      }))
      const llm = Option.getOrThrow(config.llm)
      assert.strictEqual(llm.agent.baseUrl, "http://a:8000/v1")
      assert.deepStrictEqual(llm.agent.baseUrls, ["http://a:8000/v1", "http://b:8000/v1"])
      assert.deepStrictEqual(llm.tool.baseUrls, llm.agent.baseUrls)
      assert.strictEqual(key(llm.tool.apiKey), "sk-1")
      assert.deepStrictEqual(Option.getOrThrow(config.vlm).endpoint.baseUrls, llm.agent.baseUrls)
      const embed = Option.getOrThrow(config.embedding).endpoint
      assert.deepStrictEqual(embed.baseUrls, ["http://e1/v1", "http://e2/v1"])
      // Another host list: the agent's key stays with the agent's hosts.
      assert.isTrue(Option.isNone(embed.apiKey))
      assert.deepStrictEqual(llm.reliability.ejectFor, Duration.seconds(2))
      assert.strictEqual(llm.reliability.maxReplyBytes, 1024 * 1024)
      const single = Option.getOrThrow(
        (yield* loadProvidersConfig.pipe(withEnv({ VTREE_LLM_BASE_URL: "http://a/v1", VTREE_LLM_MODEL: "m" }))).llm
      )
      assert.isUndefined(single.agent.baseUrls)
      const bad = yield* Effect.flip(
        loadLlmConfig.pipe(withEnv({ VTREE_LLM_BASE_URL: "http://a/v1,ftp://b", VTREE_LLM_MODEL: "m" }))
      )
      assert.strictEqual(bad.variable, "VTREE_LLM_BASE_URL")
      assert.include(bad.message, "several separated by commas")
    }))

  it.effect("a key is not carried to a different host the user named", () =>
    Effect.gen(function*() {
      const config = yield* loadProvidersConfig.pipe(
        withEnv({
          VTREE_LLM_MODEL: "m",
          VTREE_LLM_BASE_URL: "https://a.example/v1",
          VTREE_LLM_API_KEY: "sk-a",
          VTREE_TOOL_LLM_BASE_URL: "https://b.example/v1",
          VTREE_VLM_BASE_URL: "https://c.example/v1",
          VTREE_VLM_MODEL: "vl",
          VTREE_EMBED_BASE_URL: "https://d.example/v1",
          VTREE_EMBED_MODEL: "e",
          VTREE_EMBED_DIMENSIONS: "1024",
          VTREE_OCR_URLS: " http://ocr1:7861/ , http://ocr2:7861,",
          VTREE_PROVIDER_CONCURRENCY: "8",
          VTREE_EMBED_TIMEOUT_SECONDS: "2.5"
        })
      )
      const llm = Option.getOrThrow(config.llm)
      assert.isTrue(Option.isNone(llm.tool.apiKey))
      assert.isTrue(Option.isNone(Option.getOrThrow(config.vlm).endpoint.apiKey))
      const embedding = Option.getOrThrow(config.embedding)
      assert.isTrue(Option.isNone(embedding.endpoint.apiKey))
      assert.strictEqual(embedding.dimensions, 1024)
      assert.strictEqual(Duration.toMillis(embedding.endpoint.timeout), 2500)
      assert.strictEqual(embedding.reliability.concurrency, 8)
      const ocr = Option.getOrThrow(config.ocr)
      assert.deepStrictEqual(ocr.engine === "monkeyocr" ? ocr.monkeyocr.urls : [], [
        "http://ocr1:7861",
        "http://ocr2:7861"
      ])
    }))

  it.effect("errors name the variable to set or fix", () =>
    Effect.gen(function*() {
      const cases: Array<[Record<string, string>, string, "Missing" | "Invalid"]> = [
        [{ VTREE_LLM_BASE_URL: "http://localhost:8000/v1" }, "VTREE_LLM_MODEL", "Missing"],
        [{ VTREE_TOOL_LLM_MODEL: "t" }, "VTREE_LLM_MODEL", "Missing"],
        [{ VTREE_LLM_MODEL: "m", VTREE_LLM_THINKING: "maybe" }, "VTREE_LLM_THINKING", "Invalid"],
        [{ VTREE_LLM_MODEL: "m", VTREE_LLM_TIMEOUT_SECONDS: "soon" }, "VTREE_LLM_TIMEOUT_SECONDS", "Invalid"],
        [{ VTREE_LLM_MODEL: "m", VTREE_LLM_BASE_URL: "localhost:8000" }, "VTREE_LLM_BASE_URL", "Invalid"],
        [{ VTREE_LLM_MODEL: "m", OPENAI_BASE_URL: "ftp://o" }, "OPENAI_BASE_URL", "Invalid"],
        [{ VTREE_VLM_BASE_URL: "http://v/v1" }, "VTREE_VLM_MODEL", "Missing"],
        [{ VTREE_EMBED_BASE_URL: "http://e/v1" }, "VTREE_EMBED_MODEL", "Missing"],
        [{ VTREE_EMBED_MODEL: "e", VTREE_EMBED_DIMENSIONS: "1.5" }, "VTREE_EMBED_DIMENSIONS", "Invalid"],
        [{ VTREE_OCR_URLS: "ftp://x" }, "VTREE_OCR_URLS", "Invalid"],
        [{ VTREE_LLM_MODEL: "m", VTREE_PROVIDER_CONCURRENCY: "0" }, "VTREE_PROVIDER_CONCURRENCY", "Invalid"],
        [{ VTREE_LLM_MODEL: "m", VTREE_PROVIDER_RETRIES: "-1" }, "VTREE_PROVIDER_RETRIES", "Invalid"]
      ]
      for (const [env, variable, reason] of cases) {
        const error = yield* Effect.flip(loadProvidersConfig.pipe(withEnv(env)))
        assert.strictEqual(error._tag, "ConfigurationError")
        assert.strictEqual(error.variable, variable)
        assert.strictEqual(error.reason, reason)
        assert.include(error.message, variable)
        assert.notInclude(error.message, "\n")
      }
      const missing = yield* Effect.flip(loadLlmConfig.pipe(withEnv({})))
      assert.strictEqual(missing.reason, "Missing")
      assert.include(missing.message, "VTREE_LLM_MODEL")
    }))

  it.effect("blank values count as unset", () =>
    Effect.gen(function*() {
      const config = yield* loadProvidersConfig.pipe(
        withEnv({ VTREE_LLM_MODEL: "m", VTREE_LLM_API_KEY: "  ", OPENAI_API_KEY: "sk-o", VTREE_OCR_URLS: "" })
      )
      assert.strictEqual(key(Option.getOrThrow(config.llm).agent.apiKey), "sk-o")
      assert.strictEqual(Option.getOrThrow(config.ocr).engine, "tesseract")
    }))

  it.effect("a bad VTREE_OCR_URLS fails the OCR role only: the LLM layer still builds", () =>
    Effect.gen(function*() {
      const env = withEnv({ VTREE_LLM_MODEL: "m", VTREE_EMBED_MODEL: "e", VTREE_OCR_URLS: "ocr-host:7861" })
      const llm = yield* loadLlmConfig.pipe(env)
      assert.strictEqual(llm.agent.model, "m")
      assert.strictEqual((yield* loadVlmConfig.pipe(env)).endpoint.model, "m")
      assert.strictEqual((yield* loadEmbeddingConfig.pipe(env)).endpoint.model, "e")
      yield* Effect.scoped(Layer.build(OpenAiLlm.layerConfig)).pipe(env)
      const ocr = yield* Effect.flip(loadOcrConfig.pipe(env))
      assert.strictEqual(ocr.reason, "Invalid")
      assert.strictEqual(ocr.variable, "VTREE_OCR_URLS")
    }))

  it.effect("a bad embedding variable does not break the LLM or the VLM", () =>
    Effect.gen(function*() {
      const env = withEnv({ VTREE_LLM_MODEL: "m", VTREE_EMBED_BASE_URL: "not a url", VTREE_EMBED_MODEL: "e" })
      assert.strictEqual((yield* loadLlmConfig.pipe(env)).tool.model, "m")
      assert.strictEqual((yield* loadVlmConfig.pipe(env)).endpoint.model, "m")
      const error = yield* Effect.flip(loadEmbeddingConfig.pipe(env))
      assert.strictEqual(error.variable, "VTREE_EMBED_BASE_URL")
    }))

  it.effect("OPENAI_BASE_URL is not read when VTREE_LLM_BASE_URL is set", () =>
    Effect.gen(function*() {
      const llm = yield* loadLlmConfig.pipe(
        withEnv({ VTREE_LLM_MODEL: "m", VTREE_LLM_BASE_URL: "http://a/v1", OPENAI_BASE_URL: "nonsense" })
      )
      assert.strictEqual(llm.agent.baseUrl, "http://a/v1")
    }))
})
