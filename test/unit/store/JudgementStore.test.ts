import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { JudgementRow } from "../../../src/domain/Judgement.js"
import * as JudgementRepository from "../../../src/layers/sql/JudgementRepository.js"
import { migrations } from "../../../src/layers/sql/Migrations.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { JudgementStore } from "../../../src/services/JudgementStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { call } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("judgements")

const stores = (filename: string, options: { readonly readOnly?: boolean } = {}) =>
  Layer.provideMerge(JudgementRepository.layer(filename), SqliteRunStore.layer({ filename, ...options }))

const row = (overrides: Partial<JudgementRow> = {}): JudgementRow => ({
  questionId: "q1",
  judgeModel: "judge-a",
  verdict: "correct",
  reason: "same city",
  promptTokens: 120,
  completionTokens: 12,
  costUsd: 0.0002,
  cacheKey: "k1",
  cached: false,
  judgedAt: 5_000,
  ...overrides
})

// Migrations 0001–0010: a database written before judging.
const olderDatabase = (file: string) =>
  SqliteMigrator.make({})({
    loader: SqliteMigrator.fromRecord(
      Object.fromEntries(Object.entries(migrations).filter(([id]) => Number.parseInt(id, 10) <= 10))
    )
  }).pipe(Effect.provide(SqliteClient.layer({ filename: file })), Effect.scoped)

describe("judgement store (SQLite)", () => {
  it.scoped("an older database reads no judgements read-only, and once migrated keeps its calls and takes judge calls", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "old.db")
      yield* olderDatabase(file)
      // Written by the older schema: a run, a question and two of its calls.
      const raw = new Database(file)
      raw.exec(`INSERT INTO runs (run_id, started_at, status, config_json) VALUES ('r1', 1, 'completed', '{}')`)
      raw.exec(`INSERT INTO predictions (run_id, question_id, video_id, question, options_json, correct, steps_used,
        stop_reason, prompt_tokens, completion_tokens, started_at, finished_at)
        VALUES ('r1', 'q1', 'v', 'Why?', '[]', 0, 1, 'finished', 1, 1, 1, 2)`)
      raw.exec(`INSERT INTO llm_calls (run_id, question_id, role, model, started_at, duration_ms, prompt_tokens,
        completion_tokens, status) VALUES ('r1', 'q1', 'agent', 'm', 1, 5, 10, 2, 'ok'), ('r1', 'q1', 'tool', 'm', 2, 5, 10, 2, 'ok')`)
      assert.throws(() =>
        raw.exec(`INSERT INTO llm_calls (run_id, role, model, started_at, duration_ms, prompt_tokens,
          completion_tokens, status) VALUES ('r1', 'judge', 'j', 3, 5, 10, 2, 'ok')`)
      )
      raw.pragma("wal_checkpoint(TRUNCATE)")
      raw.close()
      const stored = yield* Effect.scoped(
        Effect.gen(function*() {
          const store = yield* RunStore
          yield* store.saveRunCalls("r1", [call({ role: "judge", model: "judge-a", parentStep: null })])
          return (yield* store.loadRun("r1")).calls
        }).pipe(Effect.provide(stores(file)))
      )
      // Migration 0012 rebuilt llm_calls: the calls kept with their ids, the judge's taken after them.
      assert.deepStrictEqual(stored.map((c) => [c.callId, c.role, c.questionId]), [
        [1, "agent", "q1"],
        [2, "tool", "q1"],
        [3, "judge", null]
      ])
    }))

  it.scoped("a database without the judgements table reads none, read-only, without writing", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "old.db")
      yield* olderDatabase(file)
      const judged = yield* Effect.scoped(
        Effect.flatMap(JudgementStore, (store) => store.judgements("r1")).pipe(
          Effect.provide(stores(file, { readOnly: true }))
        )
      )
      assert.deepStrictEqual(judged, [])
    }))

  it.scoped("keeps one verdict per run, question and judge, replaced when judged again, and caches verdicts for every run", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "vtree.db")
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        const judgements = yield* JudgementStore
        yield* runs.startRun({ runId: "r1", config: {}, startedAt: 1_000 })
        yield* runs.startRun({ runId: "r2", config: {}, startedAt: 2_000 })
        assert.isTrue(Option.isNone(yield* judgements.cached("k1")))
        const cache = {
          cacheKey: "k1",
          judgeModel: "judge-a",
          verdict: "correct" as const,
          reason: "same city",
          promptTokens: 120,
          completionTokens: 12
        }
        yield* judgements.save("r1", row(), cache)
        yield* judgements.save("r1", row({ judgeModel: "judge-b", verdict: null, reason: "no JSON", costUsd: null }))
        // Judged again by judge-a: replaced, not added.
        yield* judgements.save("r1", row({ reason: "again", cached: true, costUsd: 0 }), cache)
        yield* judgements.save("r2", row({ questionId: "q9", cached: true, costUsd: 0 }))
        assert.deepStrictEqual(yield* judgements.cached("k1"), Option.some(cache))
        assert.deepStrictEqual(yield* judgements.judgements("r1"), [
          row({ reason: "again", cached: true, costUsd: 0 }),
          row({ judgeModel: "judge-b", verdict: null, reason: "no JSON", costUsd: null })
        ])
        assert.deepStrictEqual((yield* judgements.judgements("r2")).map((j) => j.questionId), ["q9"])
      }).pipe(Effect.provide(stores(file)))
    }))
})
