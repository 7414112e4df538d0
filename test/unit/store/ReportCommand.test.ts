import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("report")

/** Runs the CLI in-process in `cwd`, where the default vtree.db is. */
const vtree = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  Effect.promise(() => runCli(args, env, { cwd }))

/** Two runs: "old" with one right and one unparseable answer, then "new" with one right answer. */
const fill = (file: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId: "old", config: { concurrency: 2 }, startedAt: 1_000 })
    yield* store.saveQuestion("old", {
      prediction: prediction({ questionId: "q1", taskType: "Counting Problem", question: "<b>How many?</b>" }),
      steps: [step(1), step(2, { tool: "submit_answer", args: { answer: "B" } })],
      calls: [call({ parentStep: 1 }), call({ role: "tool", parentStep: 1 }), call({ parentStep: 2 })]
    })
    yield* store.saveQuestion("old", {
      prediction: prediction({
        questionId: "q2",
        taskType: "OCR Problems",
        prediction: null,
        correct: false,
        stopReason: "parse_error"
      }),
      steps: [],
      calls: [call({ status: "error", errorReason: "BadResponse" })]
    })
    yield* store.finishRun("old", "completed", 61_000)
    yield* store.startRun({ runId: "new", config: {}, startedAt: 100_000 })
    yield* store.saveQuestion("new", {
      prediction: prediction({ questionId: "q1" }),
      steps: [step(1)],
      calls: [call()]
    })
    yield* store.finishRun("new", "interrupted", 110_000)
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

describe("vtree report", () => {
  it.scoped("reports the latest run as text by default, any run as JSON on request", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))

      const text = yield* vtree(["report"], dir)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, "Run new · interrupted")
      assert.include(text.stdout, "Accuracy 100.0% [20.7–100.0] 95% CI (1/1)")

      const json = yield* vtree(["report", "--db", "vtree.db", "--run-id", "old", "--format", "json"], dir)
      assert.strictEqual(json.code, 0, json.stderr)
      const summary = JSON.parse(json.stdout)
      assert.deepStrictEqual(
        [summary.runId, summary.overall.correct, summary.overall.wrong, summary.overall.unanswered, summary.wallTimeMs],
        ["old", 1, 0, 1, 60_000]
      )
      assert.deepStrictEqual(summary.tokens.byRole[0], {
        role: "agent",
        calls: 3,
        errors: 1,
        // The fixture's calls record no attempts: how many were retried is unknown.
        retried: null,
        promptTokens: 120,
        completionTokens: 30
      })
    }))

  it.scoped("writes a self-contained HTML page with --out", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "runs.db"))
      const out = path.join(dir, "report.html")
      const result = yield* vtree(
        ["report", "--db", "runs.db", "--run-id", "old", "--format", "html", "--out", out],
        dir
      )
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, "")
      assert.include(result.stderr, out)
      const page = fs.readFileSync(out, "utf8")
      assert.include(page, "<svg")
      assert.include(page, "&lt;b&gt;How many?&lt;/b&gt;")
      assert.strictEqual((page.match(/<details class="q"/g) ?? []).length, 2)
    }))

  it.scoped("compares two runs of one database, or of two with FILE#RUN, and refuses runs with no shared question", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const text = yield* vtree(["report", "--compare", "old", "new"], dir)
      assert.strictEqual(text.code, 0, text.stderr)
      // Shared: q1 only, right in both.
      assert.include(
        text.stdout,
        "Paired over 1 shared question: A 100.0% [20.7–100.0], B 100.0% [20.7–100.0] (95% CI), B − A ±0.0 pts"
      )
      assert.include(text.stdout, "No question flipped")

      fs.copyFileSync(path.join(dir, "vtree.db"), path.join(dir, "other.db"))
      const out = path.join(dir, "compare.html")
      const html = yield* vtree(["report", "--compare", "old", "other.db#new", "--format", "html", "--out", out], dir)
      assert.strictEqual(html.code, 0, html.stderr)
      const page = fs.readFileSync(out, "utf8")
      assert.include(page, "<h1>Run comparison</h1>")
      assert.include(page, "(other.db, 1 question)")

      yield* Effect.provide(
        Effect.flatMap(RunStore, (store) =>
          Effect.zipRight(
            store.startRun({ runId: "elsewhere", config: {}, startedAt: 5 }),
            store.saveQuestion("elsewhere", { prediction: prediction({ questionId: "z9" }), steps: [], calls: [] })
          )),
        SqliteRunStore.layer({ filename: path.join(dir, "third.db") })
      )
      const disjoint = yield* vtree(["report", "--compare", "old", "elsewhere", "--db-b", "third.db"], dir)
      assert.strictEqual(disjoint.code, 1)
      assert.strictEqual(disjoint.stderr.trim().split("\n").length, 1)
      assert.include(disjoint.stderr, "runs old and elsewhere share no question")

      const one = yield* vtree(["report", "--compare", "old"], dir)
      assert.strictEqual(one.code, 1)
      assert.include(one.stderr, "--compare needs two runs, got 1")
    }))

  it.scoped("vtree export writes Video-MME results, JSONL and CSV, and prices from the environment reach the report", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const out = path.join(dir, "results.json")
      const mme = yield* vtree(["export", "--run-id", "old", "--format", "videomme", "--out", out], dir)
      assert.strictEqual(mme.code, 0, mme.stderr)
      const videos = JSON.parse(fs.readFileSync(out, "utf8"))
      assert.deepStrictEqual(
        videos.map((
          v: { video_id: string; questions: Array<{ question_id: string; response: string }> }
        ) => [v.video_id, v.questions.map((q) => [q.question_id, q.response])]),
        [["vid1", [["q1", "B"], ["q2", ""]]]]
      )
      const csv = yield* vtree(["export", "--run-id", "old", "--format", "csv"], dir)
      assert.strictEqual(csv.code, 0, csv.stderr)
      assert.strictEqual(csv.stdout.trim().split("\n").length, 3)

      const priced = yield* vtree(["report", "--run-id", "old"], dir, {
        VTREE_AGENT_PRICE: "1000000,0,0",
        VTREE_TOOL_PRICE: "0,0,0"
      })
      // Three agent calls of 40 prompt tokens at $1 per token.
      assert.include(priced.stdout, "Cost $120.0000")
      const bad = yield* vtree(["report", "--prices", "nope.json"], dir)
      assert.strictEqual(bad.code, 1)
      assert.include(bad.stderr, "--prices nope.json: does not exist — check the path")
    }))

  it.scoped("fails with one line naming the fix: missing database, unknown run, empty database", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const missing = yield* vtree(["report", "--db", "nope.db"], dir)
      assert.strictEqual(missing.code, 1)
      assert.strictEqual(missing.stderr.trim().split("\n").length, 1)
      assert.include(missing.stderr, "nope.db")
      assert.include(missing.stderr, "vtree infer")
      assert.isFalse(fs.existsSync(path.join(dir, "nope.db")))

      yield* fill(path.join(dir, "vtree.db"))
      const unknown = yield* vtree(["report", "--run-id", "typo"], dir)
      assert.strictEqual(unknown.code, 1)
      assert.strictEqual(unknown.stderr.trim().split("\n").length, 1)
      assert.include(unknown.stderr, "available: new, old")

      yield* Effect.provide(Effect.void, SqliteRunStore.layer({ filename: path.join(dir, "empty.db") }))
      const empty = yield* vtree(["report", "--db", "empty.db"], dir)
      assert.strictEqual(empty.code, 1)
      assert.include(empty.stderr, "holds no runs yet")
    }))
})
