// infer --max-cost in-process: the scripted models (they report token counts), the real SQLite store.
import { NodeContext } from "@effect/platform-node"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Layer } from "effect"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Benchmark, MemoryCallBuffer, Prompts, Questions, SqliteRunStore, Store, Testing } from "../../../src/index.js"
import { migrations } from "../../../src/layers/sql/Migrations.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { scopedTempDir } from "../../support/TempDir.js"

const samples = fileURLToPath(new URL("../../../samples/", import.meta.url))

const tempDir = scopedTempDir("budget-test")

const submitting = JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer: "C" } } })
/** An agent that submits at once, the other models as fakes, the run store in `dir`. */
const agentLayer = (dir: string) =>
  Layer.mergeAll(
    Testing.ScriptedLlm.layer(() => submitting),
    Testing.ScriptedVlm.layer(() => "-"),
    SqliteRunStore.layer({ filename: join(dir, "runs.db") }),
    MemoryCallBuffer.layer,
    NodeContext.layer
  )

// $1 per token: any question costs far more than the tiny cap below.
const prices = {
  agent: { input: 1e6, output: 1e6 },
  tool: { input: 1e6, output: 1e6 },
  vlm: { input: 1e6, output: 1e6 }
}

describe("runBenchmark with maxCostUsd", () => {
  it.scoped("lets the questions in flight finish, starts no more, marks the run budget_stopped; --resume with a higher cap completes it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const questions = yield* Questions.loadQuestions(join(samples, "questions.jsonl"))
      const pack = yield* Prompts.loadPromptManager(Prompts.packagedPromptsDir("en"))
      const layer = agentLayer(dir)
      const base = { treesDir: join(samples, "trees"), questions, prompts: pack, runId: "r1", prices }
      // Two start before any cost is known; once they finish, the estimate says a third would pass the cap.
      const first = yield* Benchmark.runBenchmark({ ...base, concurrency: 2, maxCostUsd: 0.000001 }).pipe(
        Effect.provide(layer)
      )
      // Answered means saved: the questions the budget never started are left for --resume.
      assert.deepStrictEqual([first.answered, first.status], [2, "budget_stopped"])
      const stopped = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("r1")).pipe(Effect.provide(layer))
      assert.strictEqual(stopped.run.status, "budget_stopped")
      assert.strictEqual(stopped.predictions.length, 2)
      const spent = summarize(stopped, { prices }).cost.total!
      assert.isAbove(spent, 0)

      // The same cap again: already spent, nothing starts.
      yield* Benchmark.runBenchmark({ ...base, resume: true, maxCostUsd: 0.000001 }).pipe(Effect.provide(layer))
      assert.strictEqual(
        (yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("r1")).pipe(Effect.provide(layer))).predictions
          .length,
        2
      )

      yield* Benchmark.runBenchmark({ ...base, resume: true, maxCostUsd: spent * 100 }).pipe(Effect.provide(layer))
      const done = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("r1")).pipe(Effect.provide(layer))
      assert.strictEqual(done.run.status, "completed")
      assert.strictEqual(done.predictions.length, questions.length)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses --max-cost without prices, before anything starts", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const questions = yield* Questions.loadQuestions(join(samples, "questions.jsonl"))
      const layer = agentLayer(dir)
      const exit = yield* Effect.exit(
        Benchmark.runBenchmark({
          treesDir: join(samples, "trees"),
          questions,
          prompts: yield* Prompts.loadPromptManager(Prompts.packagedPromptsDir("en")),
          maxCostUsd: 1
        }).pipe(Effect.provide(layer))
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "--max-cost needs prices")
      // Nothing started: no run was created (one would read as running, then stale).
      const runs = yield* Effect.flatMap(Store.RunStore, (store) => store.listRuns).pipe(Effect.provide(layer))
      assert.deepStrictEqual(runs, [])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("migration 0005", () => {
  it.scoped("rebuilds runs for the new status without losing a saved question of an older database", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, "old.db")
      // A database as 0002 left it: the old CHECK, one run with one prediction and its call.
      yield* SqliteMigrator.make({})({
        loader: SqliteMigrator.fromRecord({
          "0001_initial": migrations["0001_initial"],
          "0002_reply_shapes": migrations["0002_reply_shapes"]
        })
      }).pipe(Effect.provide(SqliteClient.layer({ filename: file })))
      const db = new Database(file)
      db.exec(`PRAGMA foreign_keys = ON;
        INSERT INTO runs VALUES ('r0', 1, 2, 'completed', '{}');
        INSERT INTO predictions (run_id, question_id, video_id, question, options_json, correct, steps_used, stop_reason,
          prompt_tokens, completion_tokens, started_at, finished_at) VALUES ('r0', 'q1', 'v', 'Q?', '[]', 1, 1, 'finished', 5, 1, 1, 2);
        INSERT INTO llm_calls (run_id, question_id, role, model, started_at, duration_ms, prompt_tokens, completion_tokens, status)
          VALUES ('r0', 'q1', 'agent', 'm', 1, 1, 5, 1, 'ok');`)
      db.close()
      const loaded = yield* Effect.provide(
        Effect.flatMap(Store.RunStore, (store) =>
          Effect.zipRight(
            store.finishRun("r0", "budget_stopped", 3),
            store.loadRun("r0")
          )),
        SqliteRunStore.layer({ filename: file })
      )
      assert.deepStrictEqual([loaded.run.status, loaded.predictions.length, loaded.calls.length], [
        "budget_stopped",
        1,
        1
      ])
      assert.strictEqual(loaded.predictions[0]!.domain, null)
      const check = new Database(file, { readonly: true })
      const schema = (check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'runs'`).get() as { sql: string }).sql
      const index = check.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'runs_started_at'`)
        .get()
      const violations = check.prepare(`PRAGMA foreign_key_check`).all()
      check.close()
      assert.include(schema, "'budget_stopped'")
      assert.isDefined(index)
      assert.deepStrictEqual(violations, [])
    }))
})
