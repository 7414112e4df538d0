import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { nothingRecorded, StoredRunConfig } from "../../../src/domain/RunConfig.js"
import { runSettings, settingsDifference, storedPrices } from "../../../src/programs/report/RunSettings.js"

/** config_json as the store decodes it. */
const stored = Schema.decodeUnknownSync(StoredRunConfig)

const config = {
  benchmark: "videomme",
  treesDir: "/data/trees",
  questionsPath: "/data/questions.jsonl",
  maxSteps: 15,
  skillMode: "auto",
  protocol: "json",
  prompts: "/opt/vtree/prompts/en",
  finalAnswer: true,
  sampling: { agent: { temperature: 0.2, seed: 7 }, tool: { temperature: 0 } },
  vtreeVersion: "4.1.0",
  prices: { agent: { input: 0.6, cachedInput: 0.15, output: 2.4 } },
  providers: {
    llm: {
      agent: { baseUrl: "https://user:hunter2@api.example.com:8443/v1", model: "reasoner" },
      tool: {
        baseUrl: "http://10.0.0.1:8000/v1",
        baseUrls: ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"],
        model: "summarizer"
      },
      thinking: "deepseek"
    },
    vlm: { baseUrl: "http://vlm.local/v1", model: "vision" },
    embedding: null,
    ocr: { engine: "tesseract", langs: "eng", workers: 2 }
  }
}

const selection = {
  questionsPath: "/data/questions.jsonl",
  questionsSha256: "ab".repeat(32),
  videoIds: null,
  questionIds: null,
  taskTypes: null,
  nSamples: null,
  count: 3,
  idsSha256: "cd".repeat(32)
}

const valueOf = (settings: ReturnType<typeof runSettings>, name: string) => settings.find((s) => s.name === name)?.value

describe("a run's settings, read from its stored config", () => {
  it("names each role's model and endpoint host, never a key or the userinfo of a URL", () => {
    const settings = runSettings({ config: stored(config), selection })
    assert.strictEqual(valueOf(settings, "agent model"), "reasoner")
    assert.strictEqual(valueOf(settings, "agent endpoint"), "api.example.com:8443")
    assert.strictEqual(valueOf(settings, "tool endpoint"), "10.0.0.1:8000, 10.0.0.2:8000")
    assert.strictEqual(valueOf(settings, "vlm model"), "vision")
    assert.strictEqual(valueOf(settings, "vlm endpoint"), "vlm.local")
    assert.isUndefined(valueOf(settings, "embedding model"))
    assert.notInclude(JSON.stringify(settings), "hunter2")
    assert.notInclude(JSON.stringify(settings), "user:")
  })

  it("lists every sampling key the config holds, whatever it is, and the run's other settings", () => {
    const settings = runSettings({ config: stored(config), selection })
    assert.strictEqual(valueOf(settings, "sampling agent.temperature"), "0.2")
    assert.strictEqual(valueOf(settings, "sampling agent.seed"), "7")
    assert.strictEqual(valueOf(settings, "sampling tool.temperature"), "0")
    assert.strictEqual(valueOf(settings, "max steps"), "15")
    assert.strictEqual(valueOf(settings, "final answer"), "true")
    assert.strictEqual(valueOf(settings, "prompt pack"), "/opt/vtree/prompts/en")
    assert.strictEqual(valueOf(settings, "skill mode"), "auto")
    assert.strictEqual(valueOf(settings, "protocol"), "json")
    assert.strictEqual(valueOf(settings, "trees"), "/data/trees")
    assert.strictEqual(valueOf(settings, "questions"), "/data/questions.jsonl")
    assert.strictEqual(valueOf(settings, "questions sha256"), "ab".repeat(32))
    assert.strictEqual(valueOf(settings, "vtree version"), "4.1.0")
    assert.strictEqual(valueOf(settings, "prices"), "agent 0.6/0.15/2.4")
  })

  it("shows nothing it does not know: a run stored before settings were recorded has few", () => {
    const settings = runSettings({ config: stored({ concurrency: 2 }) })
    assert.deepStrictEqual(settings.map((s) => s.name), ["protocol", "concurrency"])
    assert.deepStrictEqual(runSettings({ config: nothingRecorded }).map((s) => s.name), ["protocol"])
  })

  it("keeps a hostile value on one line", () => {
    const settings = runSettings({
      config: stored({ providers: { llm: { agent: { baseUrl: "not a url", model: "evil\nRun x · completed" } } } })
    })
    assert.strictEqual(valueOf(settings, "agent model"), "evil Run x · completed")
    assert.strictEqual(valueOf(settings, "agent endpoint"), "(unparseable)")
  })

  it("lists the settings that differ between two runs, with — where one side has none", () => {
    const a = runSettings({ config: stored(config), selection })
    const b = runSettings({
      config: stored({ ...config, maxSteps: 30, sampling: { agent: { temperature: 0.2 } }, vtreeVersion: "4.1.0" }),
      selection
    })
    assert.deepStrictEqual(settingsDifference(a, b), [
      { name: "sampling agent.seed", a: "7", b: "—" },
      { name: "sampling tool.temperature", a: "0", b: "—" },
      { name: "max steps", a: "15", b: "30" }
    ])
    assert.deepStrictEqual(settingsDifference(a, a), [])
  })

  it("reads the prices a run was started with, and none from a config without valid ones", () => {
    assert.deepStrictEqual(storedPrices(stored(config)), { agent: { input: 0.6, cachedInput: 0.15, output: 2.4 } })
    assert.deepStrictEqual(storedPrices(stored({ prices: { agent: { input: -1, output: 2 } } })), {})
    assert.deepStrictEqual(storedPrices(stored({})), {})
  })
})
