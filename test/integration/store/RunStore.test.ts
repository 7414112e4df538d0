import { SqlClient } from "@effect/sql"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted, type Scope, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { migrations } from "../../../src/layers/sql/Migrations.js"
import * as PgRunStore from "../../../src/layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore, type RunStoreError } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"
import { useCluster } from "../../support/postgres/vitest.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("store")

/** Runs `body` against a store on a fresh file; the connection closes before the directory goes. */
const withStore = <A, E>(
  body: (file: string) => Effect.Effect<A, E, RunStore | SqlClient.SqlClient>
) =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const file = path.join(dir, "vtree.db")
    return yield* body(file).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))
  })

const openAgain = <A, E>(file: string, body: Effect.Effect<A, E, RunStore | SqlClient.SqlClient>) =>
  body.pipe(Effect.provide(SqliteRunStore.layer({ filename: file, mustExist: true })))

const failureOf = <A>(exit: Exit.Exit<A, RunStoreError>): RunStoreError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure === undefined) throw new Error(`expected a typed failure, got ${exit.cause._tag}`)
  return failure
}

const columns = (sql: SqlClient.SqlClient, table: string) =>
  Effect.map(sql.unsafe<{ name: string }>(`PRAGMA table_info(${table})`), (rows) => rows.map((row) => row.name))

// Two tables whose columns both engines' migrations must end with, in this order (DESIGN §8).
const runsColumns = [
  "run_id",
  "started_at",
  "finished_at",
  "status",
  "config_json",
  "selection_json"
]
const callsColumns = [
  "call_id",
  "run_id",
  "question_id",
  "parent_step",
  "role",
  "model",
  "started_at",
  "duration_ms",
  "prompt_tokens",
  "completion_tokens",
  "status",
  "error_reason",
  "cached_prompt_tokens",
  "reasoning_tokens",
  "superseded",
  "endpoint",
  "attempts"
]

const ownerA = { ownerId: "host-a:101:aaaa", host: "host-a", pid: 101 }
const ownerB = { ownerId: "host-b:202:bbbb", host: "host-b", pid: 202 }

describe("SqliteRunStore", () => {
  it.scoped("migrates the four tables of DESIGN §8, in WAL mode, once", () =>
    withStore((file) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* columns(sql, "runs"), runsColumns)
        assert.deepStrictEqual(yield* columns(sql, "run_claims"), [
          "run_id",
          "owner_id",
          "host",
          "pid",
          "claimed_at",
          "heartbeat_at",
          "expires_at"
        ])
        assert.deepStrictEqual(yield* columns(sql, "predictions"), [
          "run_id",
          "question_id",
          "video_id",
          "task_type",
          "duration",
          "question",
          "options_json",
          "answer",
          "prediction",
          "correct",
          "evidence",
          "reasoning",
          "steps_used",
          "stop_reason",
          "error",
          "prompt_tokens",
          "completion_tokens",
          "started_at",
          "finished_at",
          "reply_shapes_json",
          "cached_prompt_tokens",
          "reasoning_tokens",
          "domain",
          "worker",
          "benchmark_json",
          "forced",
          "answer_text",
          "answer_form",
          "save_token"
        ])
        assert.deepStrictEqual(yield* columns(sql, "steps"), [
          "run_id",
          "question_id",
          "step",
          "tool",
          "args_json",
          "output",
          "thought",
          "reflect_json",
          "plan_json",
          "reply_shapes"
        ])
        assert.deepStrictEqual(yield* columns(sql, "llm_calls"), callsColumns)
        const [mode] = yield* sql.unsafe<{ journal_mode: string }>("PRAGMA journal_mode")
        assert.strictEqual(mode?.journal_mode, "wal")
        const store = yield* RunStore
        yield* store.startRun({ runId: "r1", config: {} })

        // Reopening applies nothing again and keeps the data.
        const reopened = yield* openAgain(
          file,
          Effect.gen(function*() {
            const sql2 = yield* SqlClient.SqlClient
            const applied = yield* sql2<{ n: number }>`SELECT COUNT(*) AS n FROM effect_sql_migrations`
            const runs = yield* (yield* RunStore).listRuns
            return { applied: applied[0]?.n, runs: runs.map((run) => run.runId) }
          })
        )
        assert.deepStrictEqual(reopened, { applied: Object.keys(migrations).length, runs: ["r1"] })
      })
    ))

  it.scoped("opens a database written before usage details, reading its rows without them", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "old.db")
      // The schema as 0002 left it, with one question saved; opening the store must migrate it.
      const { "0001_initial": initial, "0002_reply_shapes": replyShapes } = migrations
      yield* Effect.gen(function*() {
        yield* SqliteMigrator.make({})({
          loader: SqliteMigrator.fromRecord({ "0001_initial": initial, "0002_reply_shapes": replyShapes })
        })
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO runs VALUES ('old', 1, 2, 'completed', '{}')`
        yield* sql`INSERT INTO predictions (run_id, question_id, video_id, question, options_json, correct, steps_used,
          stop_reason, prompt_tokens, completion_tokens, started_at, finished_at)
          VALUES ('old', 'q1', 'v', 'Q?', '[]', 0, 1, 'finished', 100, 20, 1, 2)`
        yield* sql`INSERT INTO llm_calls (run_id, question_id, role, model, started_at, duration_ms, prompt_tokens,
          completion_tokens, status) VALUES ('old', 'q1', 'agent', 'm', 1, 1, 40, 10, 'ok')`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: file })))

      const loaded = yield* openAgain(file, Effect.flatMap(RunStore, (store) => store.loadRun("old")))
      assert.strictEqual(loaded.predictions[0]?.promptTokens, 100)
      assert.isFalse("cachedPromptTokens" in loaded.predictions[0]! || "reasoningTokens" in loaded.predictions[0]!)
      assert.deepStrictEqual(loaded.calls.map((c) => [c.promptTokens, c.cachedPromptTokens, c.reasoningTokens]), [[
        40,
        undefined,
        undefined
      ]])
    }))

  it.scoped("opens a database written before forced answers were kept: none read forced, and writing migrates it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "old.db")
      // The schema as it stood before 0009: later migrations left out too.
      const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => Number.parseInt(id, 10) < 9))
      yield* Effect.gen(function*() {
        yield* SqliteMigrator.make({})({ loader: SqliteMigrator.fromRecord(before) })
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO runs (run_id, started_at, finished_at, status, config_json) VALUES ('old', 1, 2, 'completed', '{}')`
        yield* sql`INSERT INTO predictions (run_id, question_id, video_id, question, options_json, correct, steps_used,
          stop_reason, prompt_tokens, completion_tokens, started_at, finished_at)
          VALUES ('old', 'q1', 'v', 'Q?', '[]', 0, 15, 'budget_exceeded', 100, 20, 1, 2)`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: file })))
      const read = yield* Effect.flatMap(RunStore, (store) => store.loadRun("old")).pipe(
        Effect.provide(SqliteRunStore.layer({ filename: file, mustExist: true, readOnly: true }))
      )
      assert.isFalse("forced" in read.predictions[0]!)
      const written = yield* openAgain(
        file,
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.saveQuestion("old", {
            prediction: prediction({ questionId: "q2", stopReason: "budget_exceeded", forced: true }),
            steps: [],
            calls: []
          })
          return (yield* store.loadRun("old")).predictions.map((p) => [p.questionId, p.forced])
        })
      )
      assert.deepStrictEqual(written, [["q1", undefined], ["q2", true]])
    }))

  it.scoped("opens a database written before answers were kept whole: none read, and writing migrates it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "old.db")
      // The schema as it stood before 0011.
      const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => Number.parseInt(id, 10) < 11))
      yield* Effect.gen(function*() {
        yield* SqliteMigrator.make({})({ loader: SqliteMigrator.fromRecord(before) })
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO runs (run_id, started_at, finished_at, status, config_json) VALUES ('old', 1, 2, 'completed', '{}')`
        yield* sql`INSERT INTO predictions (run_id, question_id, video_id, question, options_json, answer, prediction,
          correct, steps_used, stop_reason, prompt_tokens, completion_tokens, started_at, finished_at)
          VALUES ('old', 'q1', 'v', 'Q?', '["A. x","B. y"]', 'B', 'B', 1, 3, 'finished', 100, 20, 1, 2)`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: file })))
      const read = yield* Effect.flatMap(RunStore, (store) => store.loadRun("old")).pipe(
        Effect.provide(SqliteRunStore.layer({ filename: file, mustExist: true, readOnly: true }))
      )
      assert.isFalse("answerText" in read.predictions[0]! || "answerForm" in read.predictions[0]!)
      assert.strictEqual(read.predictions[0]!.prediction, "B")
      const freeText = "The host fries four eggs.\n\nThen — 盐 — salt, \"quoted\" and 'single'; DROP TABLE runs;"
      const written = yield* openAgain(
        file,
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.saveQuestion("old", {
            prediction: prediction({
              questionId: "q2",
              options: [],
              answer: "eggs",
              prediction: null,
              correct: false,
              answerText: freeText,
              answerForm: "free"
            }),
            steps: [],
            calls: []
          })
          yield* store.saveQuestion("old", {
            prediction: prediction({ questionId: "q3", prediction: null, answerText: "E", answerForm: "invalid" }),
            steps: [],
            calls: []
          })
          const sql = yield* SqlClient.SqlClient
          const stored = yield* sql<
            { text: string | null }
          >`SELECT answer_text AS text FROM predictions ORDER BY question_id`
          return {
            loaded: (yield* store.loadRun("old")).predictions.map((p) => [p.questionId, p.answerText, p.answerForm]),
            stored: stored.map((row) => row.text),
            tallies: yield* store.runTallies
          }
        })
      )
      assert.deepStrictEqual(written.loaded, [["q1", undefined, undefined], ["q2", freeText, "free"], [
        "q3",
        "E",
        "invalid"
      ]])
      assert.deepStrictEqual(written.stored, [null, freeText, "E"])
      // The open-ended question is not keyed: `vtree runs` scores the one keyed right of two keyed.
      assert.deepStrictEqual(
        written.tallies.map((t) => [t.runId, t.saved, t.keyed, t.correct]),
        [["old", 3, 2, 1]]
      )
    }))

  it.scoped("a reader never creates a missing database, and refuses a file that is not one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const missing = path.join(dir, "missing.db")
      const exit = yield* Effect.exit(openAgain(missing, Effect.void))
      const error = failureOf(exit)
      assert.strictEqual(error.reason, "DbMissing")
      assert.include(error.message, missing)
      assert.include(error.message, "vtree infer")
      assert.isFalse(fs.existsSync(missing))

      const notDb = path.join(dir, "notes.txt")
      fs.writeFileSync(notDb, "just some text, long enough to have a header")
      const notDbError = failureOf(yield* Effect.exit(openAgain(notDb, Effect.void)))
      assert.strictEqual(notDbError.reason, "DbUnreadable")
      assert.include(notDbError.message, notDb)

      const noDir = path.join(dir, "absent", "vtree.db")
      const noDirError = failureOf(
        yield* Effect.exit(Effect.provide(Effect.void, SqliteRunStore.layer({ filename: noDir })))
      )
      assert.strictEqual(noDirError.reason, "DbUnreadable")
      assert.include(noDirError.message, "does not exist")
    }))
})

type WithStore = <A, E>(
  body: () => Effect.Effect<A, E, RunStore | SqlClient.SqlClient>
) => Effect.Effect<A, E | RunStoreError, Scope.Scope>

/** The port's behaviour, whichever engine is behind it. */
const contract = (name: string, withStore: WithStore) =>
  describe(`${name}: the RunStore contract`, () => {
    it.scoped("starts, lists, finishes and resumes runs on the clock", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* TestClock.setTime(5_000)
          const first = yield* store.startRun({
            runId: "old",
            config: { concurrency: 4 },
            owner: ownerA,
            leaseMs: 10_000
          })
          const { claim, claims, ...row } = first
          assert.deepStrictEqual(row, {
            runId: "old",
            startedAt: 5_000,
            finishedAt: null,
            status: "running",
            // The keys runs stored before them could only have had their legacy values.
            config: { concurrency: 4, protocol: "json", benchmark: "videomme", answers: null },
            selection: null,
            progress: null
          })
          // The lease is timed by the database's clock (not the TestClock): from its now, for leaseMs.
          assert.deepStrictEqual(claims, claim == null ? [] : [claim])
          assert.deepStrictEqual(
            claim == null ? null : {
              ...claim,
              heartbeatAt: claim.heartbeatAt - claim.claimedAt,
              expiresAt: claim.expiresAt - claim.claimedAt,
              claimedAt: 0
            },
            { ...ownerA, claimedAt: 0, heartbeatAt: 0, expiresAt: 10_000 }
          )
          // Nobody holds "new": a running run without a live claim reads as stale.
          yield* store.startRun({ runId: "new", config: {}, startedAt: 9_000 })
          yield* TestClock.setTime(7_000)
          yield* store.releaseRun("old", ownerA.ownerId, "interrupted")

          const runs = yield* store.listRuns
          assert.deepStrictEqual(runs.map((run) => [run.runId, run.status, run.finishedAt, run.claim ?? null]), [
            ["new", "stale", null, null],
            ["old", "interrupted", 7_000, null]
          ])

          const again = failureOf(yield* Effect.exit(store.startRun({ runId: "old", config: {} })))
          assert.strictEqual(again.reason, "RunExists")
          assert.include(again.message, "--resume")

          const resumed = yield* store.claimRun({ runId: "old", owner: ownerB, leaseMs: 10_000 })
          assert.deepStrictEqual([resumed.status, resumed.finishedAt, resumed.startedAt, resumed.claim?.ownerId], [
            "running",
            null,
            5_000,
            ownerB.ownerId
          ])

          const missing = failureOf(yield* Effect.exit(store.finishRun("nope", "completed")))
          assert.strictEqual(missing.reason, "RunNotFound")
          assert.isTrue(Option.isNone(yield* store.getRun("nope")))
        })
      ))

    it.scoped("never writes a secret into config_json", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          const secret = "sk-live-DO-NOT-STORE"
          yield* store.startRun({
            runId: "r",
            config: {
              providers: {
                llm: {
                  agent: {
                    baseUrl: "http://localhost:8000/v1",
                    apiKey: secret,
                    model: "m",
                    key: Redacted.make(secret)
                  },
                  tool: { baseUrl: "http://localhost:8000/v1", model: "m", token: secret },
                  thinking: "none"
                },
                vlm: { baseUrl: "http://localhost:8000/v1", baseUrls: [Redacted.make(secret), "x"], model: "v" },
                embedding: null,
                ocr: null
              },
              maxSteps: 512
            }
          })
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ config_json: string }>`SELECT config_json FROM runs WHERE run_id = 'r'`
          assert.notInclude(row?.config_json ?? "", secret)
          assert.deepStrictEqual(JSON.parse(row?.config_json ?? "null"), {
            protocol: "json",
            benchmark: "videomme",
            answers: null,
            maxSteps: 512,
            providers: {
              llm: {
                agent: { baseUrl: "http://localhost:8000/v1", model: "m" },
                tool: { baseUrl: "http://localhost:8000/v1", model: "m" },
                thinking: "none"
              },
              // A dropped secret leaves a null slot, which the record reads as no such list.
              vlm: { baseUrl: "http://localhost:8000/v1", model: "v" },
              embedding: null,
              ocr: null
            }
          })
        })
      ))

    it.scoped("keeps which answers were forced at the budget; the others read as not forced", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.startRun({ runId: "r", config: { finalAnswer: true } })
          const forced = prediction({ questionId: "q1", stopReason: "budget_exceeded", forced: true })
          const plain = prediction({ questionId: "q2" })
          for (const p of [forced, plain]) yield* store.saveQuestion("r", { prediction: p, steps: [], calls: [] })
          const loaded = yield* store.loadRun("r")
          assert.deepStrictEqual(loaded.predictions.map((p) => [p.questionId, p.forced]), [["q1", true], [
            "q2",
            undefined
          ]])
          assert.isFalse("forced" in loaded.predictions[1]!)
          // Asked again (--retry-errors), a question's flag follows its new answer.
          yield* store.saveQuestion("r", { prediction: { ...forced, forced: false }, steps: [], calls: [] })
          assert.isUndefined((yield* store.loadRun("r")).predictions[0]!.forced)
        })
      ))

    it.scoped("keeps each submitted answer whole with its form; an open question's options stay empty", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.startRun({ runId: "r", config: {} })
          const text = "She fries four eggs.\n\"Salt\" last — 盐; ' OR 1=1; --"
          const open = prediction({
            questionId: "q1",
            options: [],
            answer: "Four eggs",
            prediction: null,
            correct: false,
            answerText: text,
            answerForm: "free"
          })
          const extracted = prediction({ questionId: "q2", answerText: "The answer is B.", answerForm: "extracted" })
          const none = prediction({
            questionId: "q3",
            prediction: null,
            correct: false,
            stopReason: "budget_exceeded",
            answerText: null,
            answerForm: null
          })
          for (const p of [open, extracted, none]) {
            yield* store.saveQuestion("r", { prediction: p, steps: [], calls: [] })
          }
          const loaded = yield* store.loadRun("r")
          assert.deepStrictEqual(
            loaded.predictions.map((p) => [p.questionId, p.options, p.answerText, p.answerForm]),
            [["q1", [], text, "free"], ["q2", extracted.options, "The answer is B.", "extracted"], [
              "q3",
              none.options,
              undefined,
              undefined
            ]]
          )
          // Asked again, a question's answer follows its new submission.
          yield* store.saveQuestion("r", {
            prediction: { ...extracted, answerText: "B", answerForm: "clean" },
            steps: [],
            calls: []
          })
          const again = (yield* store.loadRun("r")).predictions[1]!
          assert.deepStrictEqual([again.answerText, again.answerForm], ["B", "clean"])
          const tally = (yield* store.runTallies).find((t) => t.runId === "r")!
          assert.deepStrictEqual([tally.saved, tally.keyed, tally.correct], [3, 2, 1])
        })
      ))

    it.scoped("saves a question whole and loads it back in order", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.startRun({ runId: "r", config: {} })
          yield* store.saveQuestion("r", {
            prediction: prediction({ questionId: "q2", replyShapes: { clean: 1, "think-stripped": 1, fenced: 1 } }),
            steps: [
              { ...step(1), replyShapes: ["think-stripped", "fenced"] },
              step(2, { tool: "submit_answer", thought: null, args: { answer: "B" } })
            ],
            // A call recorded without a question id still belongs to the question it is saved with.
            calls: [call({ questionId: null }), call({ role: "tool", model: "summarizer", parentStep: 2 })]
          })
          yield* store.saveQuestion("r", {
            prediction: prediction({ questionId: "q1", prediction: null, correct: false, stopReason: "parse_error" }),
            steps: [],
            calls: [call({ status: "error", errorReason: "RateLimited", promptTokens: 0, completionTokens: 0 })]
          })
          yield* store.saveRunCalls("r", [call({ role: "embed", model: "embedder", parentStep: null })])

          const loaded = yield* store.loadRun("r")
          assert.deepStrictEqual(loaded.predictions.map((p) => p.questionId), ["q1", "q2"])
          assert.deepStrictEqual(
            loaded.predictions[1],
            prediction({ questionId: "q2", replyShapes: { clean: 1, "think-stripped": 1, fenced: 1 } })
          )
          // Rows saved without shapes read back as none, not as a made-up "clean".
          assert.deepStrictEqual(loaded.predictions[0]?.replyShapes, {})
          assert.strictEqual(loaded.predictions[0]?.prediction, null)
          assert.deepStrictEqual(loaded.steps, [
            { questionId: "q2", ...step(1), replyShapes: ["think-stripped", "fenced"] },
            {
              questionId: "q2",
              ...step(2, { tool: "submit_answer", thought: null, args: { answer: "B" } }),
              replyShapes: []
            }
          ])
          assert.deepStrictEqual(
            loaded.calls.map((c) => [c.questionId, c.role, c.status, c.errorReason]),
            [["q2", "agent", "ok", null], ["q2", "tool", "ok", null], ["q1", "agent", "error", "RateLimited"], [
              null,
              "embed",
              "ok",
              null
            ]]
          )
          assert.isTrue(loaded.calls.every((c, i) => i === 0 || c.callId > loaded.calls[i - 1]!.callId))
          const light = yield* store.loadRun("r", { includeSteps: false })
          assert.deepStrictEqual([light.steps.length, light.predictions.length, light.calls.length], [0, 2, 4])
          assert.deepStrictEqual([...(yield* store.finishedQuestionIds("r"))].sort(), ["q1", "q2"])
          assert.strictEqual((yield* store.finishedQuestionIds("other")).size, 0)
        })
      ))

    it.scoped("keeps cached and reasoning tokens per call and per question; unreported ones read back absent", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.startRun({ runId: "r", config: {} })
          yield* store.saveQuestion("r", {
            prediction: prediction({ questionId: "q1", cachedPromptTokens: 30, reasoningTokens: 4 }),
            // Mixed in one batch: a call that reported details next to one that did not.
            calls: [
              call({ cachedPromptTokens: 30, reasoningTokens: 4 }),
              call({ role: "tool" }),
              call({ cachedPromptTokens: 0 })
            ],
            steps: []
          })
          const loaded = yield* store.loadRun("r")
          assert.deepStrictEqual(
            loaded.predictions[0],
            prediction({ questionId: "q1", cachedPromptTokens: 30, reasoningTokens: 4, replyShapes: {} })
          )
          assert.deepStrictEqual(
            loaded.calls.map((c) => [c.cachedPromptTokens, c.reasoningTokens]),
            [[30, 4], [undefined, undefined], [0, undefined]]
          )
          assert.isFalse("cachedPromptTokens" in loaded.calls[1]!)
        })
      ))

    it.scoped("writes nothing of a question when any part of it fails", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          const sql = yield* SqlClient.SqlClient
          yield* store.startRun({ runId: "r", config: {} })
          // The duplicate step index violates the key after the prediction and first step went in.
          const duplicateStep = yield* Effect.exit(store.saveQuestion("r", {
            prediction: prediction({ questionId: "q1" }),
            steps: [step(1), step(1)],
            calls: [call()]
          }))
          assert.strictEqual(failureOf(duplicateStep).reason, "Sql")
          assert.include(failureOf(duplicateStep).message, "q1")
          // The bad role fails the last statement, after prediction and steps were written.
          const badCall = yield* Effect.exit(store.saveQuestion("r", {
            prediction: prediction({ questionId: "q2" }),
            steps: [step(1), step(2)],
            calls: [call(), call({ role: "oracle" as never })]
          }))
          assert.strictEqual(failureOf(badCall).reason, "Sql")
          const counts = yield* sql<{ p: number; s: number; c: number }>`SELECT
            (SELECT COUNT(*) FROM predictions) AS p, (SELECT COUNT(*) FROM steps) AS s,
            (SELECT COUNT(*) FROM llm_calls) AS c`
          assert.deepStrictEqual(counts[0], { p: 0, s: 0, c: 0 })
          assert.strictEqual((yield* store.finishedQuestionIds("r")).size, 0)
        })
      ))

    it.scoped("saving a question again replaces its answer and steps, and keeps its earlier calls superseded", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.startRun({ runId: "r", config: {} })
          yield* store.saveQuestion("r", {
            prediction: prediction({ questionId: "q1", stopReason: "error", prediction: null, correct: false }),
            steps: [step(1), step(2), step(3)],
            calls: [call(), call(), call()]
          })
          // --retry-errors: a question that ended in error is not finished for it, and is for a plain resume.
          assert.deepStrictEqual([...(yield* store.finishedQuestionIds("r"))], ["q1"])
          assert.strictEqual((yield* store.finishedQuestionIds("r", { exceptErrors: true })).size, 0)
          yield* store.saveQuestion("r", {
            prediction: prediction({ questionId: "q1" }),
            steps: [step(1)],
            calls: [call()]
          })
          assert.deepStrictEqual([...(yield* store.finishedQuestionIds("r", { exceptErrors: true }))], ["q1"])
          const loaded = yield* store.loadRun("r")
          assert.deepStrictEqual(
            [loaded.predictions.length, loaded.predictions[0]?.stopReason, loaded.steps.length],
            [1, "finished", 1]
          )
          // Tokens reported are tokens spent: the three calls of the failed attempt stay, superseded.
          assert.deepStrictEqual(loaded.calls.map((c) => c.superseded), [true, true, true, false])
        })
      ))

    it.scoped("counts each run's saved, keyed and right questions in the database, for `vtree runs`", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.startRun({ runId: "mixed", config: {}, startedAt: 1 })
          yield* store.startRun({ runId: "empty", config: {}, startedAt: 2 })
          const save = (questionId: string, overrides: Parameters<typeof prediction>[0]) =>
            store.saveQuestion("mixed", { prediction: prediction(overrides), steps: [], calls: [] })
          yield* save("q1", { questionId: "q1", finishedAt: 5_000_000_000_000 })
          yield* save("q2", { questionId: "q2", prediction: "C", correct: false, finishedAt: 3_000 })
          yield* save("q3", { questionId: "q3", prediction: null, correct: false })
          // No key: neither keyed nor right, whatever the stored flag says.
          yield* save("q4", { questionId: "q4", answer: null, correct: true })
          assert.deepStrictEqual(yield* store.runTallies, [
            { runId: "mixed", saved: 4, keyed: 3, correct: 1, lastSavedAt: 5_000_000_000_000 }
          ])
        })
      ))

    it.scoped("an unknown run id names the available ones", () =>
      withStore(() =>
        Effect.gen(function*() {
          const store = yield* RunStore
          const empty = failureOf(yield* Effect.exit(store.loadRun("x")))
          assert.include(empty.message, "vtree infer")
          yield* store.startRun({ runId: "alpha", config: {}, startedAt: 1 })
          yield* store.startRun({ runId: "beta", config: {}, startedAt: 2 })
          const error = failureOf(yield* Effect.exit(store.loadRun("gamma")))
          assert.strictEqual(error.reason, "RunNotFound")
          assert.include(error.message, "available: beta, alpha")
          assert.notInclude(error.message, "\n")
        })
      ))
  })

contract("SqliteRunStore", (body) => withStore(() => body()))

// One throwaway cluster for the file; each test gets a database of its own.
const pg = useCluster()

const freshDatabase = Effect.promise(() => pg.database("store"))

const withPgStore: WithStore = (body) =>
  Effect.flatMap(freshDatabase, (url) => body().pipe(Effect.provide(PgRunStore.layer({ url: Redacted.make(url) }))))

contract("PgRunStore", withPgStore)

describe("PgRunStore", () => {
  it.scoped("migrates the same tables on PostgreSQL, once, with 64-bit times", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const columns = (sql: SqlClient.SqlClient, table: string) =>
        Effect.map(
          sql<{ columnName: string; dataType: string }>`SELECT column_name AS "columnName", data_type AS "dataType"
            FROM information_schema.columns WHERE table_name = ${table} ORDER BY ordinal_position`,
          (rows) => rows.map((row) => row.columnName)
        )
      const inspect = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const applied = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM effect_sql_migrations`
        const types = yield* sql<{ dataType: string }>`SELECT data_type AS "dataType" FROM information_schema.columns
          WHERE table_name = 'predictions' AND column_name = 'started_at'`
        return {
          runs: yield* columns(sql, "runs"),
          calls: yield* columns(sql, "llm_calls"),
          applied: applied[0]?.n,
          startedAt: types[0]?.dataType
        }
      })
      const first = yield* inspect.pipe(Effect.provide(PgRunStore.layer({ url: Redacted.make(url) })))
      assert.deepStrictEqual(first.runs, runsColumns)
      assert.deepStrictEqual(first.calls, callsColumns)
      assert.strictEqual(first.startedAt, "bigint")
      // A second process opening the same database applies nothing again.
      const second = yield* inspect.pipe(Effect.provide(PgRunStore.layer({ url: Redacted.make(url) })))
      assert.strictEqual(second.applied, first.applied)
      assert.strictEqual(first.applied, Object.keys(migrations).length)
    }))

  it.scoped("workers opening a fresh database at the same moment migrate it once, without errors", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const open = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM effect_sql_migrations`
        return row?.n
      }).pipe(Effect.provide(PgRunStore.layer({ url: Redacted.make(url) })))
      const applied = yield* Effect.all([open, open, open, open], { concurrency: "unbounded" })
      const count = Object.keys(migrations).length
      assert.deepStrictEqual(applied, [count, count, count, count])
    }))

  it.scoped("vtree runs lists a PostgreSQL database's runs as it lists an SQLite file's", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        yield* store.startRun({
          runId: "pg-run",
          config: { questions: 2, providers: { llm: { agent: { model: "reasoner" } } } },
          startedAt: 1_000
        })
        yield* store.saveQuestion("pg-run", { prediction: prediction({ questionId: "q1" }), steps: [], calls: [] })
        yield* store.saveQuestion("pg-run", {
          prediction: prediction({ questionId: "q2", prediction: "A", correct: false }),
          steps: [],
          calls: []
        })
        yield* store.finishRun("pg-run", "completed", 5_000)
      }).pipe(Effect.provide(PgRunStore.layer({ url: Redacted.make(url) })))
      const listed = yield* Effect.promise(() => runCli(["runs", "--db", url, "--format", "json"]))
      assert.strictEqual(listed.code, 0, listed.stderr)
      const [run] = JSON.parse(listed.stdout)
      assert.deepInclude(run, {
        runId: "pg-run",
        status: "completed",
        agentModel: "reasoner",
        saved: 2,
        total: 2,
        accuracy: 0.5,
        wallTimeMs: 4_000
      })
    }))

  it.scoped("a server that does not answer is one line naming the URL (without its password) and the fix", () =>
    Effect.gen(function*() {
      const url = `postgres://vtree:hunter2@127.0.0.1:${pg.port() + 1}/nowhere`
      const error = failureOf(
        yield* Effect.exit(Effect.provide(Effect.void, PgRunStore.layer({ url: Redacted.make(url) })))
      )
      assert.strictEqual(error.reason, "DbUnreadable")
      assert.include(error.message, "127.0.0.1")
      assert.include(error.message, "VTREE_DB_URL")
      assert.notInclude(error.message, "hunter2")
      assert.notInclude(error.message, "\n")
    }))
})
