// #21 points 3 and 8: a key is masked as a whole token and only when it is long enough to be one; a base
// URL with a password in it is refused when the configuration is read, in one line that never repeats it.
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import OpenAI from "openai"
import { loadAsrConfig } from "../../../src/config/AsrConfig.js"
import { loadProvidersConfig } from "../../../src/config/ProviderConfig.js"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import { displayUrl, redactSecret } from "../../../src/domain/Secret.js"
import { toProviderError } from "../../../src/layers/openai/OpenAiErrors.js"
import { closedPort, runDoctor } from "../../support/cli/Doctor.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("redaction (point 3)", () => {
  it("a one-letter key changes no text: doctor's 'connection failed' stays readable", () => {
    const error = toProviderError("llm", Option.some(Redacted.make("e")))(
      new OpenAI.APIConnectionError({ cause: new Error("connect ECONNREFUSED 127.0.0.1:9") })
    )
    assert.strictEqual(error.message, "llm: connection failed (connect ECONNREFUSED 127.0.0.1:9)")
  })

  it("a real key is masked where it stands as a token, nowhere else", () => {
    const key = "sk-live-0123456789"
    assert.strictEqual(
      redactSecret(`Bearer ${key} rejected; "key": "${key}"`, key),
      `Bearer [redacted] rejected; "key": "[redacted]"`
    )
    assert.strictEqual(redactSecret(`x${key}y and ${key}.`, key), `x${key}y and [redacted].`)
    assert.strictEqual(redactSecret("a.b*c(d)+e?f", "b*c(d)+e"), "a.[redacted]?f")
  })

  it("a key is masked in every form a server may echo it: trimmed, in another case, URL-encoded", () => {
    const key = "sk-Live/0123+456789"
    const echoed = [
      key,
      key.toLowerCase(),
      key.toUpperCase(),
      encodeURIComponent(key),
      encodeURIComponent(key).toLowerCase()
    ]
    for (const configured of [key, `${key}\r`, ` ${key} `, `\t${key}\r\n`]) {
      for (const form of echoed) {
        const masked = redactSecret(`invalid api key: ${form} (check it)`, configured)
        assert.strictEqual(masked, "invalid api key: [redacted] (check it)", JSON.stringify([configured, form]))
      }
    }
  })

  it("a provider error keeps no form of a key configured with a trailing CR", () => {
    const key = "sk-proj-abcdefghij"
    const error = toProviderError("llm", Option.some(Redacted.make(`${key}\r`)))(
      new OpenAI.AuthenticationError(
        401,
        { message: `Incorrect API key provided: ${key}; or ${key.toUpperCase()}; or ${encodeURIComponent(key)}` },
        undefined,
        new Headers()
      )
    )
    assert.notInclude(error.message.toLowerCase(), "abcdefghij")
  })

  it("a URL as messages show it has no password: user:pw@, ?password= and other credential parameters", () => {
    const secret = "hunter2pw"
    const urls = [
      `postgres://app:${secret}@db.example:5432/runs`,
      `postgres://app@db.example/runs?password=${secret}&sslmode=require`,
      `postgresql://db.example/runs?sslmode=require&PassWord=${secret}`,
      `postgres://db.example/runs?sslpassword=${secret}`,
      `https://api.example/v1?api_key=${secret}&x=1`,
      `https://api.example/v1?token=${secret}`,
      `https://api.example/v1?access_token=${encodeURIComponent(secret)}`
    ]
    for (const url of urls) {
      const shown = displayUrl(url)
      assert.notInclude(shown, secret, url)
      assert.include(shown, "db.example".includes(new URL(url).hostname) ? "db.example" : "api.example")
    }
    assert.strictEqual(displayUrl(urls[1]!), "postgres://app@db.example/runs?password=***&sslmode=require")
    assert.strictEqual(displayUrl(`postgres://a:${secret}@h/d`), "postgres://a:***@h/d")
    assert.notInclude(displayUrl(`not a url ${secret}`), secret)
  })

  it.live("doctor flags a key shorter than 8 characters and keeps its own text whole", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const { table } = yield* runDoctor({
        VTREE_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
        VTREE_LLM_MODEL: "m",
        VTREE_LLM_API_KEY: "e",
        VTREE_OCR: "off"
      })
      assert.notInclude(table, "[redacted]")
      assert.include(table, "connection failed")
      assert.include(table, "warning: the llm API key is shorter than 8 characters")
      assert.include(table, "check VTREE_LLM_API_KEY")
    }))
})

describe("credentials in URLs (point 8)", () => {
  const password = "hunter2pw"
  it.effect("every URL variable with user:pw@ is refused in one line that names the key variable, never the password", () =>
    Effect.gen(function*() {
      const url = `http://user:${password}@host/v1`
      const cases: Array<[Record<string, string>, string, string]> = [
        [{ VTREE_LLM_MODEL: "m", VTREE_LLM_BASE_URL: url }, "VTREE_LLM_BASE_URL", "put the key in VTREE_LLM_API_KEY"],
        [{ VTREE_LLM_MODEL: "m", OPENAI_BASE_URL: url }, "OPENAI_BASE_URL", "put the key in OPENAI_API_KEY"],
        [{ VTREE_LLM_MODEL: "m", VTREE_TOOL_LLM_BASE_URL: url }, "VTREE_TOOL_LLM_BASE_URL", "VTREE_TOOL_LLM_API_KEY"],
        [{ VTREE_VLM_MODEL: "v", VTREE_VLM_BASE_URL: `http://a/v1,${url}` }, "VTREE_VLM_BASE_URL", "VTREE_VLM_API_KEY"],
        [{ VTREE_EMBED_MODEL: "e", VTREE_EMBED_BASE_URL: url }, "VTREE_EMBED_BASE_URL", "VTREE_EMBED_API_KEY"],
        [{ VTREE_OCR_URLS: `http://${password}@ocr:7861` }, "VTREE_OCR_URLS", "vtree sends no credentials"]
      ]
      for (const [env, variable, fix] of cases) {
        const error = yield* Effect.flip(loadProvidersConfig.pipe(withEnv(env)))
        assert.strictEqual(error.variable, variable)
        assert.include(error.message, fix)
        assert.notInclude(error.message, password)
        assert.notInclude(error.message, "\n")
      }
      const asr = yield* Effect.flip(loadAsrConfig.pipe(withEnv({ VTREE_ASR_BASE_URL: url, VTREE_ASR_MODEL: "w" })))
      assert.include(asr.message, "VTREE_ASR_API_KEY")
      assert.notInclude(asr.message, password)
      const search = yield* Effect.flip(
        Layer.build(SearchSettings.layerConfig).pipe(
          Effect.scoped,
          withEnv({
            VTREE_SEARCH_ENABLED: "true",
            VTREE_SEARCH_SEARXNG_ENABLED: "true",
            VTREE_SEARCH_SEARXNG_URL: `http://u:${password}@searx`
          })
        )
      )
      const text = search.message
      assert.include(text, "VTREE_SEARCH_SEARXNG_URL holds a user name or password")
      assert.notInclude(text, password)
    }))

  it.live("doctor shows the refusal as a Configuration row and never the password", () =>
    Effect.gen(function*() {
      const { table } = yield* runDoctor({
        VTREE_LLM_BASE_URL: `http://user:${password}@127.0.0.1:9/v1`,
        VTREE_LLM_MODEL: "m",
        VTREE_OCR: "off"
      })
      assert.match(table, /^llm +- +- +- +0 ms +Configuration$/m)
      assert.notInclude(table, password)
    }))
})
