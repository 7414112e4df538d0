// `vtree report`, `report --compare`, `export` and `runs` over stored runs (the CLI in-process, SQLite
// files in a temporary folder): the run's settings in every report, prices kept with the run, one row
// per question, and the list of a database's runs.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("settings")

const vtree = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  Effect.promise(() => runCli(args, env, { cwd }))

const configOf = (overrides: Record<string, unknown> = {}) => ({
  benchmark: "videomme",
  treesDir: "/data/trees",
  questionsPath: "/data/questions.jsonl",
  maxSteps: 15,
  skillMode: "auto",
  protocol: "json",
  prompts: "/opt/vtree/prompts/en",
  concurrency: 2,
  questions: 2,
  vtreeVersion: "9.9.9",
  // USD per 1M tokens: an agent call of 40 prompt + 10 completion tokens costs 40 + 20 = $0.000060.
  prices: { agent: { input: 1, output: 2 }, tool: { input: 0, output: 0 } },
  providers: {
    llm: {
      agent: { baseUrl: "https://api.example.com/v1", model: "reasoner-1" },
      tool: { baseUrl: "https://api.example.com/v1", model: "summarizer" },
      thinking: "none"
    },
    vlm: { baseUrl: "http://vlm.local:8000/v1", model: "vision" },
    embedding: null,
    ocr: null
  },
  ...overrides
})

/** Runs "a" (2 questions, q2 unanswered) and "b" (q1 right, 30 steps allowed, another agent model), and "keyless". */
const fill = (file: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId: "a", config: configOf(), startedAt: 1_000 })
    yield* store.saveQuestion("a", {
      prediction: prediction({ questionId: "q1", evidence: "=HYPERLINK(\"http://x\")", reasoning: "two, so B" }),
      steps: [step(1), step(2, { tool: "submit_answer", args: { answer: "B" } })],
      calls: [call({ parentStep: 1 }), call({ role: "tool", parentStep: 1 }), call({ parentStep: 2 })]
    })
    yield* store.saveQuestion("a", {
      prediction: prediction({
        questionId: "q2",
        prediction: null,
        correct: false,
        evidence: null,
        reasoning: null,
        stopReason: "budget_exceeded",
        finishedAt: 31_000
      }),
      steps: [],
      calls: [call()]
    })
    yield* store.finishRun("a", "completed", 61_000)
    const agentB = { baseUrl: "https://other.example.org/v1", model: "reasoner-2" }
    const providersB = { ...configOf().providers, llm: { ...configOf().providers.llm, agent: agentB } }
    yield* store.startRun({ runId: "b", config: configOf({ maxSteps: 30, providers: providersB }), startedAt: 100_000 })
    yield* store.saveQuestion("b", { prediction: prediction({ questionId: "q1" }), steps: [step(1)], calls: [call()] })
    yield* store.finishRun("b", "interrupted", 110_000)
    yield* store.startRun({ runId: "keyless", config: {}, startedAt: 200_000 })
    yield* store.saveQuestion("keyless", {
      prediction: prediction({ questionId: "t1", answer: null, correct: false }),
      steps: [],
      calls: []
    })
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

describe("the run's settings in every report", () => {
  it.scoped("text, json and html name the models, endpoint hosts, budget, pack, protocol, trees and version", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const text = yield* vtree(["report", "--run-id", "a"], dir)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.match(text.stdout, /agent model\s+reasoner-1\n/)
      assert.match(text.stdout, /agent endpoint\s+api\.example\.com\n/)
      assert.match(text.stdout, /vlm endpoint\s+vlm\.local:8000\n/)
      assert.match(text.stdout, /max steps\s+15\n/)
      assert.match(text.stdout, /prompt pack\s+\/opt\/vtree\/prompts\/en\n/)
      assert.match(text.stdout, /trees\s+\/data\/trees\n/)
      assert.match(text.stdout, /vtree version\s+9\.9\.9\n/)

      const json = JSON.parse((yield* vtree(["report", "--run-id", "a", "--format", "json"], dir)).stdout)
      assert.deepInclude(json.settings, { name: "agent model", value: "reasoner-1" })
      assert.deepInclude(json.settings, { name: "skill mode", value: "auto" })

      const out = path.join(dir, "a.html")
      const html = yield* vtree(["report", "--run-id", "a", "--format", "html", "--out", out], dir)
      assert.strictEqual(html.code, 0, html.stderr)
      const page = fs.readFileSync(out, "utf8")
      assert.include(page, "<h2>Settings</h2>")
      assert.include(page, "<tr><td>agent model</td><td>reasoner-1</td></tr>")
    }))

  it.scoped("prices stored with the run price a later report; --prices and VTREE_<ROLE>_PRICE override them", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      // Three agent calls (40 prompt, 10 completion tokens each) at $1 / $2 per 1M tokens; tool calls free.
      const stored = yield* vtree(["report", "--run-id", "a"], dir)
      assert.include(stored.stdout, "Cost $0.0002 ")
      const json = JSON.parse((yield* vtree(["report", "--run-id", "a", "--format", "json"], dir)).stdout)
      assert.closeTo(json.cost.total, 3 * (40 + 20) / 1e6, 1e-12)

      const variable = yield* vtree(["report", "--run-id", "a"], dir, { VTREE_AGENT_PRICE: "1000000,0,0" })
      assert.include(variable.stdout, "Cost $120.0000")

      fs.writeFileSync(path.join(dir, "prices.json"), JSON.stringify({ agent: { input: 0, output: 1000000 } }))
      const file = yield* vtree(["report", "--run-id", "a", "--prices", "prices.json"], dir)
      // The file replaces the stored prices whole: the tool role, priced only there, is unpriced now.
      assert.include(file.stdout, "no price for tool")

      const exported = yield* vtree(["export", "--run-id", "a", "--format", "jsonl"], dir)
      const rows = exported.stdout.trim().split("\n").map((line) => JSON.parse(line))
      assert.closeTo(rows[0].cost_usd, 2 * (40 + 20) / 1e6, 1e-12)
    }))
})

describe("report --compare", () => {
  it.scoped("reads FILE#RUN on both sides without opening ./vtree.db, and shows the settings that differ", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const data = path.join(dir, "data")
      const work = path.join(dir, "work")
      fs.mkdirSync(data)
      fs.mkdirSync(work)
      yield* fill(path.join(data, "runs.db"))
      const a = `${path.join(data, "runs.db")}#a`
      const b = `${path.join(data, "runs.db")}#b`

      const text = yield* vtree(["report", "--compare", a, b], work)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.isFalse(fs.existsSync(path.join(work, "vtree.db")))
      assert.match(text.stdout, /Settings that differ[\s\S]*agent model\s+reasoner-1\s+reasoner-2\n/)
      assert.match(text.stdout, /agent endpoint\s+api\.example\.com\s+other\.example\.org\n/)
      assert.match(text.stdout, /max steps\s+15\s+30\n/)
      assert.notMatch(text.stdout, /skill mode/)

      const json = JSON.parse((yield* vtree(["report", "--compare", a, b, "--format", "json"], work)).stdout)
      assert.deepInclude(json.settings, { name: "max steps", a: "15", b: "30" })
      assert.strictEqual(json.settings.length, 3)

      const out = path.join(work, "c.html")
      const html = yield* vtree(["report", "--compare", a, b, "--format", "html", "--out", out], work)
      assert.strictEqual(html.code, 0, html.stderr)
      assert.include(fs.readFileSync(out, "utf8"), "<tr><td>max steps</td><td>15</td><td>30</td></tr>")
    }))

  it.scoped("refuses a run compared with itself in one line, however it is named", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      for (const pair of [["a", "a"], ["a", "vtree.db#a"], [`${path.join(dir, "vtree.db")}#a`, "./vtree.db#a"]]) {
        const same = yield* vtree(["report", "--compare", ...pair], dir)
        assert.strictEqual(same.code, 1, pair.join(" "))
        assert.strictEqual(same.stderr.trim().split("\n").length, 1)
        assert.include(same.stderr, "the same run")
      }
    }))
})

describe("per-question results", () => {
  it.scoped("report --format json has one row per question with its answer, outcome, usage, evidence and reasoning", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const json = JSON.parse((yield* vtree(["report", "--run-id", "a", "--format", "json"], dir)).stdout)
      assert.strictEqual(json.perQuestion.length, 2)
      assert.deepStrictEqual(json.perQuestion[0], {
        questionId: "q1",
        videoId: "vid1",
        taskType: "Counting Problem",
        prediction: "B",
        answer: "B",
        outcome: "correct",
        stopReason: "finished",
        steps: 2,
        promptTokens: 100,
        completionTokens: 20,
        costUsd: 2 * (40 + 20) / 1e6,
        timeMs: 1_000,
        evidence: "=HYPERLINK(\"http://x\")",
        reasoning: "two, so B",
        error: null,
        // Its usage as a distribution reads it: one tool-model call, no vision, so no frames sent.
        toolCalls: 1,
        vlmCalls: 0,
        framesSent: 0,
        embedCalls: 0,
        cachedPromptTokens: null,
        reasoningTokens: null,
        // Saved without its answer text and form: a finished question whose form was not recorded.
        answerText: null,
        answerForm: "unrecorded"
      })
      assert.deepStrictEqual(
        [json.perQuestion[1].outcome, json.perQuestion[1].stopReason, json.perQuestion[1].evidence],
        ["unanswered", "budget_exceeded", null]
      )
    }))

  it.scoped("export jsonl and csv carry evidence, reasoning, the run id and the agent model; csv cells defused", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const jsonl = yield* vtree(["export", "--run-id", "b", "--format", "jsonl"], dir)
      const row = JSON.parse(jsonl.stdout.trim())
      assert.deepStrictEqual(
        [row.run_id, row.agent_model, row.evidence, row.reasoning],
        ["b", "reasoner-2", "two cats at 12s", "counted them"]
      )
      const csv = yield* vtree(["export", "--run-id", "a", "--format", "csv"], dir)
      const [header, first] = csv.stdout.split("\r\n")
      const columns = header!.split(",")
      for (const column of ["run_id", "agent_model", "evidence", "reasoning"]) assert.include(columns, column)
      assert.include(first, "a,reasoner-1,")
      assert.include(first, "\"'=HYPERLINK(\"\"http://x\"\")\"")
    }))
})

describe("vtree runs", () => {
  it.scoped("lists every run: status, benchmark, agent model, saved / total, accuracy, start and wall time", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const text = yield* vtree(["runs"], dir)
      assert.strictEqual(text.code, 0, text.stderr)
      const lines = text.stdout.trimEnd().split("\n")
      assert.match(lines[0]!, /^Run\s+Status\s+Benchmark\s+Agent model\s+Saved\s+Accuracy\s+Started\s+Wall time$/)
      assert.strictEqual(lines.length, 5)
      // Newest first; a running run nobody holds reads stale; no key, no accuracy.
      assert.match(lines[2]!, /^keyless\s+stale\s+Video-MME\s+—\s+1\s+—\s+1970-01-01T00:03:20\.000Z\s+/)
      assert.match(
        lines[3]!,
        /^b\s+interrupted\s+Video-MME\s+reasoner-2\s+1\/2\s+100\.0%\s+1970-01-01T00:01:40\.000Z\s+10\.0s$/
      )
      assert.match(
        lines[4]!,
        /^a\s+completed\s+Video-MME\s+reasoner-1\s+2\/2\s+50\.0%\s+1970-01-01T00:00:01\.000Z\s+1m 00s$/
      )

      const json = yield* vtree(["runs", "--db", "vtree.db", "--format", "json"], dir)
      const runs = JSON.parse(json.stdout)
      assert.deepStrictEqual(runs[2], {
        runId: "a",
        status: "completed",
        benchmark: "videomme",
        agentModel: "reasoner-1",
        saved: 2,
        total: 2,
        keyed: 2,
        correct: 1,
        accuracy: 0.5,
        startedAt: "1970-01-01T00:00:01.000Z",
        wallTimeMs: 60_000
      })
      assert.deepStrictEqual([runs[0].runId, runs[0].keyed, runs[0].accuracy], ["keyless", 0, null])
    }))

  it.scoped("says so in one line when the database is missing or holds no run", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const missing = yield* vtree(["runs", "--db", "nope.db"], dir)
      assert.strictEqual(missing.code, 1)
      assert.strictEqual(missing.stderr.trim().split("\n").length, 1)
      assert.isFalse(fs.existsSync(path.join(dir, "nope.db")))
      yield* Effect.provide(Effect.void, SqliteRunStore.layer({ filename: path.join(dir, "empty.db") }))
      const empty = yield* vtree(["runs", "--db", "empty.db"], dir)
      assert.strictEqual(empty.code, 0, empty.stderr)
      assert.include(empty.stdout, "no runs yet")
    }))
})
