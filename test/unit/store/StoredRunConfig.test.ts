// config_json as every version of vtree wrote it, decoded by the run record's schema: keys a version did not
// write read as absent or as the value such runs had, never as a new run's default; unknown keys and values
// the schema refuses never fail the row.
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  agentDefaults,
  RunConfig,
  runFinalAnswer,
  StoredRunConfig,
  StoredRunConfigJson
} from "../../../src/domain/RunConfig.js"

const column = Schema.decodeUnknownSync(StoredRunConfigJson)
const asStored = (value: unknown) => column(JSON.stringify(value))

const providers = {
  llm: {
    agent: { baseUrl: "https://api.example.com/v1", baseUrls: ["https://a.example.com/v1"], model: "reasoner-1" },
    tool: { baseUrl: "https://api.example.com/v1", model: "summarizer" },
    thinking: "none"
  },
  vlm: { baseUrl: "http://vlm.local:8000/v1", model: "vision" },
  embedding: null,
  ocr: { engine: "tesseract", langs: ["eng"], workers: 2 }
}

// What `infer` writes today: InferCommand's questionsPath/selected/providers, then RunPlan's keys.
const current = {
  questionsPath: "/data/questions.jsonl",
  selected: 2,
  providers,
  benchmark: "lvbench",
  answers: "/data/answers.json",
  treesDir: "/data/trees",
  questions: 2,
  concurrency: 4,
  maxSteps: 20,
  skillMode: "manual",
  verifyVision: false,
  anchor: "ids",
  webSearch: true,
  protocol: "tools",
  finalAnswer: true,
  sampling: { agent: { temperature: 0.2, seed: 7 }, tool: {}, vlm: { maxTokens: 512 } },
  prompts: "/opt/vtree/prompts/en",
  prices: { agent: { input: 1, cachedInput: 0.5, output: 2 } },
  vtreeVersion: "0.1.0"
}

// Before the protocol, final-answer mode, benchmark, answers, sampling and prices were recorded.
const beforeProtocol = {
  questionsPath: "/data/questions.json",
  selected: 3,
  providers: { llm: { agent: { baseUrl: "http://localhost:8000/v1", model: "m" } }, vlm: null },
  treesDir: "/data/trees",
  questions: 3,
  concurrency: 12,
  maxSteps: 15,
  skillMode: "auto",
  verifyVision: true,
  anchor: "off",
  webSearch: false,
  prompts: "/opt/vtree/prompts/en"
}

describe("StoredRunConfig", () => {
  it("decodes what infer writes today, every key kept", () => {
    const config = asStored(current)
    assert.deepStrictEqual<unknown>(config, current)
    assert.isTrue(runFinalAnswer(config))
  })

  it("reads a run stored before the protocol and final-answer mode were recorded with the values such runs had", () => {
    const config = asStored(beforeProtocol)
    assert.strictEqual(config.protocol, "json")
    assert.strictEqual(config.benchmark, "videomme")
    assert.isNull(config.answers)
    assert.isFalse(runFinalAnswer(config))
    // Not recorded: absent, so a report leaves the line out rather than showing today's default.
    assert.isUndefined(config.finalAnswer)
    assert.isUndefined(config.sampling)
    assert.isUndefined(config.prices)
    assert.strictEqual(config.maxSteps, 15)
    assert.deepStrictEqual<unknown>(config.providers, beforeProtocol.providers)
  })

  it("reads the earliest runs' empty config as nothing recorded", () => {
    assert.deepStrictEqual(asStored({}), { protocol: "json", benchmark: "videomme", answers: null })
  })

  it("ignores unknown keys and reads values it does not know as not recorded", () => {
    const config = asStored({
      protocol: "xml",
      finalAnswer: "yes",
      benchmark: "nope",
      answers: "",
      treesDir: "",
      maxSteps: "15",
      sampling: { agent: {} },
      providers: { llm: { agent: { model: 3 } }, vlm: "v" },
      future: { key: 1 }
    })
    assert.deepStrictEqual(config, {
      protocol: "json",
      benchmark: "videomme",
      answers: null,
      providers: { llm: { agent: {} } },
      // Read as far as it goes; a resume check needs all three roles (recordedSampling).
      sampling: { agent: {} }
    })
  })

  it("refuses a column that is not JSON as a bad row", () => {
    assert.throws(() => column("{not json"))
  })

  it("a new run's record gets its defaults from the schema and decodes back as written", () => {
    const config = RunConfig.make({ treesDir: "/t", questions: 1, prompts: "/p", vtreeVersion: "1.0.0" })
    assert.deepStrictEqual(config, {
      ...agentDefaults,
      benchmark: "videomme",
      answers: null,
      concurrency: 12,
      treesDir: "/t",
      questions: 1,
      prompts: "/p",
      vtreeVersion: "1.0.0"
    })
    assert.deepStrictEqual(agentDefaults, {
      maxSteps: 15,
      finalAnswer: true,
      skillMode: "auto",
      protocol: "json",
      verifyVision: true,
      anchor: "off",
      webSearch: false
    })
    const stored = asStored(Schema.encodeSync(RunConfig)(config))
    assert.deepStrictEqual(stored, config)
    assert.deepStrictEqual(Schema.decodeUnknownSync(StoredRunConfig)(config), config)
  })
})
