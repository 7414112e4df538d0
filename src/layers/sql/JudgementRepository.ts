// The statements over `judgements` and `judge_cache` (migration 0012), on the run store's database: the
// JudgementStore port. It runs on the store's plain SqlClient (raw column names), so the columns are named
// for the row models with AS.
import { Model } from "@effect/sql"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Layer, Option, Schema } from "effect"
import { CachedVerdict, JudgementRow } from "../../domain/Judgement.js"
import { JudgementStore } from "../../services/JudgementStore.js"
import { storageError } from "./StorageError.js"
import { makeGuard } from "./StoreContext.js"

const JudgementStored = Schema.Struct({ ...JudgementRow.fields, cached: Model.BooleanFromNumber })
const Judgements = Schema.Struct({ present: Schema.Number })

/** The store over the SqlClient provided; `name` names the database in messages (a path, or a URL without its password). */
export const make = Effect.fn("JudgementRepository.make")(function*(name: string) {
  const sql = yield* SqlClient.SqlClient
  const guarded = makeGuard(name, (what, cause) => storageError(name, what, cause))

  // A database written before judging (read-only, so never migrated) has no judgements: nothing to read.
  const hasTable = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Judgements,
    execute: () =>
      sql.onDialectOrElse({
        pg: () => sql`SELECT COUNT(*)::int AS present FROM information_schema.tables WHERE table_name = 'judgements'`,
        orElse: () => sql`SELECT COUNT(*) AS present FROM sqlite_master WHERE type = 'table' AND name = 'judgements'`
      })
  })
  const findCached = SqlSchema.findOne({
    Request: Schema.String,
    Result: CachedVerdict,
    execute: (key) =>
      sql`SELECT cache_key AS "cacheKey", judge_model AS "judgeModel", verdict, reason,
                 prompt_tokens AS "promptTokens", completion_tokens AS "completionTokens"
          FROM judge_cache WHERE cache_key = ${key}`
  })
  const upsert = SqlSchema.void({
    Request: Schema.Struct({ runId: Schema.String, ...JudgementStored.fields }),
    execute: (row) => {
      const values = {
        run_id: row.runId,
        question_id: row.questionId,
        judge_model: row.judgeModel,
        verdict: row.verdict,
        reason: row.reason,
        prompt_tokens: row.promptTokens,
        completion_tokens: row.completionTokens,
        cost_usd: row.costUsd,
        cache_key: row.cacheKey,
        cached: row.cached,
        judged_at: row.judgedAt
      }
      return sql`INSERT INTO judgements ${sql.insert(values)}
        ON CONFLICT (run_id, question_id, judge_model) DO UPDATE SET ${
        sql.update(values, ["run_id", "question_id", "judge_model"])
      }`
    }
  })
  const remember = SqlSchema.void({
    Request: Schema.Struct({ ...CachedVerdict.fields, createdAt: Schema.Number }),
    execute: (row) =>
      sql`INSERT INTO judge_cache ${
        sql.insert({
          cache_key: row.cacheKey,
          judge_model: row.judgeModel,
          verdict: row.verdict,
          reason: row.reason,
          prompt_tokens: row.promptTokens,
          completion_tokens: row.completionTokens,
          created_at: row.createdAt
        })
      } ON CONFLICT (cache_key) DO NOTHING`
  })
  const ofRun = SqlSchema.findAll({
    Request: Schema.String,
    Result: JudgementStored,
    execute: (runId) =>
      sql`SELECT question_id AS "questionId", judge_model AS "judgeModel", verdict, reason,
                 prompt_tokens AS "promptTokens", completion_tokens AS "completionTokens", cost_usd AS "costUsd",
                 cache_key AS "cacheKey", cached, judged_at AS "judgedAt"
          FROM judgements WHERE run_id = ${runId} ORDER BY question_id, judge_model`
  })

  return JudgementStore.of({
    cached: (cacheKey) => findCached(cacheKey).pipe(guarded("reading the judge cache")),
    save: (runId, row, cache) =>
      Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        yield* upsert({ runId, ...row })
        if (cache !== undefined) yield* remember({ ...cache, createdAt: row.judgedAt })
      }))).pipe(guarded(`saving the verdict of ${row.judgeModel} on question ${row.questionId} of run ${runId}`)),
    judgements: (runId) =>
      hasTable(undefined).pipe(
        Effect.flatMap((found) =>
          Option.exists(found, ({ present }) => present > 0) ? ofRun(runId) : Effect.succeed([])
        ),
        guarded(`reading the judgements of run ${runId}`)
      )
  })
})

/** The JudgementStore over the run store's SqlClient (SqliteRunStore.layer and PgRunStore.layer provide it). */
export const layer = (name: string): Layer.Layer<JudgementStore, never, SqlClient.SqlClient> =>
  Layer.effect(JudgementStore, make(name))
