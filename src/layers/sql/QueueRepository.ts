// The statements over `run_questions`: a run's question set as a work queue, claimed a few at a time
// by its owners and marked done as each question is saved.
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Array as Arr, Effect, Schema } from "effect"
import { ProgressStored, QuestionKey, QueueInsert } from "./Rows.js"
import type { StoreContext } from "./StoreContext.js"

/** Rows per INSERT: well under SQLite's bound-parameter limit. */
export const insertBatch = 200

/** How far runs are: per run, the questions there are, done, and claimed under a live lease. */
const queueCounts = ({ facts, sql }: StoreContext) => {
  const nothing = sql`SELECT 1 WHERE 1 = 0`
  return {
    /** Per run (every run, for null): `claimed` counts open questions whose holder's lease is live. */
    progressOf: SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.NullOr(Schema.String), now: Schema.Number }),
      Result: ProgressStored,
      execute: ({ now, runId }) =>
        !facts.queue ? nothing : sql`
          SELECT q.run_id, COUNT(*) AS total, SUM(q.done) AS done,
            SUM(CASE WHEN q.done = 0 AND c.owner_id IS NOT NULL THEN 1 ELSE 0 END) AS claimed
          FROM run_questions q
          LEFT JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by AND c.expires_at > ${now}
          ${runId === null ? sql`` : sql`WHERE q.run_id = ${runId}`}
          GROUP BY q.run_id`
    }),
    heldElsewhere: SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String, now: Schema.Number }),
      Result: Schema.Struct({ held: Schema.Number }),
      execute: ({ now, ownerId, runId }) =>
        sql`SELECT COUNT(*) AS held FROM run_questions q
            JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by
            WHERE q.run_id = ${runId} AND q.done = 0 AND q.claimed_by <> ${ownerId} AND c.expires_at > ${now}`
    })
  }
}

/** Planning a run's queue: its questions inserted, those saved before marked done, errors reopened. */
const queuePlanning = ({ sql }: StoreContext) => ({
  insertQueue: SqlSchema.void({
    Request: Schema.Array(QueueInsert),
    execute: (rows) =>
      Effect.forEach(
        Arr.chunksOf(rows, insertBatch),
        (batch) => sql`INSERT INTO run_questions ${sql.insert(batch)} ON CONFLICT (run_id, question_id) DO NOTHING`,
        { discard: true }
      )
  }),
  /** A run from before the queue (or saved without it) has predictions the queue must know of. */
  markSaved: SqlSchema.void({
    Request: Schema.String,
    execute: (runId) =>
      sql`UPDATE run_questions SET done = 1 WHERE run_id = ${runId} AND done = 0
          AND question_id IN (SELECT question_id FROM predictions WHERE run_id = ${runId})`
  }),
  /** --retry-errors: questions saved with stop reason `error` are open again. */
  reopenErrors: SqlSchema.void({
    Request: Schema.String,
    execute: (runId) =>
      sql`UPDATE run_questions SET done = 0, claimed_by = NULL, claimed_at = NULL
          WHERE run_id = ${runId} AND done = 1
          AND question_id IN (SELECT question_id FROM predictions WHERE run_id = ${runId} AND stop_reason = 'error')`
  })
})

/** Claims on a run's questions: taken a few at a time, handed back, and marked done as each is saved. */
const queueClaims = ({ sql }: StoreContext) => {
  const QuestionOfRun = Schema.Struct({ runId: Schema.String, questionId: Schema.String })
  // Row locks of questions another worker is claiming right now are skipped, not waited for: the
  // work-queue pattern of PostgreSQL job systems. SQLite has one writer at a time and no such clause.
  const skipLocked = sql.onDialectOrElse({
    pg: () => sql.literal("FOR UPDATE SKIP LOCKED"),
    orElse: () => sql.literal("")
  })
  return {
    takeQuestions: SqlSchema.findAll({
      Request: Schema.Struct({
        runId: Schema.String,
        ownerId: Schema.String,
        now: Schema.Number,
        limit: Schema.Number
      }),
      Result: Schema.Struct({ questionId: Schema.String, position: Schema.Number }),
      execute: ({ limit, now, ownerId, runId }) =>
        sql`UPDATE run_questions SET claimed_by = ${ownerId}, claimed_at = ${now}
            WHERE run_id = ${runId} AND question_id IN (
              SELECT q.question_id FROM run_questions q
              WHERE q.run_id = ${runId} AND q.done = 0 AND (q.claimed_by IS NULL OR (q.claimed_by <> ${ownerId} AND NOT EXISTS (
                SELECT 1 FROM run_claims c WHERE c.run_id = q.run_id AND c.owner_id = q.claimed_by AND c.expires_at > ${now})))
              ORDER BY q.position LIMIT ${limit} ${skipLocked})
            RETURNING question_id, position`
    }),
    /** An owner leaving hands its unsaved questions back. */
    releaseQuestions: SqlSchema.void({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String }),
      execute: ({ ownerId, runId }) =>
        sql`UPDATE run_questions SET claimed_by = NULL, claimed_at = NULL
            WHERE run_id = ${runId} AND claimed_by = ${ownerId} AND done = 0`
    }),
    // Done for this owner: the question is unclaimed or its own. A question another owner claimed
    // after this one's lease lapsed is that owner's to save.
    finishQuestion: SqlSchema.findOne({
      Request: Schema.Struct({
        runId: Schema.String,
        questionId: Schema.String,
        ownerId: Schema.NullOr(Schema.String)
      }),
      Result: QuestionKey,
      execute: ({ ownerId, questionId, runId }) =>
        ownerId === null
          ? sql`UPDATE run_questions SET done = 1 WHERE run_id = ${runId} AND question_id = ${questionId} RETURNING question_id`
          : sql`UPDATE run_questions SET done = 1, claimed_by = ${ownerId}
                WHERE run_id = ${runId} AND question_id = ${questionId} AND (claimed_by IS NULL OR claimed_by = ${ownerId})
                RETURNING question_id`
    }),
    queued: SqlSchema.findOne({
      Request: QuestionOfRun,
      Result: QuestionKey,
      execute: ({ questionId, runId }) =>
        sql`SELECT question_id FROM run_questions WHERE run_id = ${runId} AND question_id = ${questionId}`
    })
  }
}

export const queueRepository = (ctx: StoreContext) => ({
  ...queueCounts(ctx),
  ...queuePlanning(ctx),
  ...queueClaims(ctx)
})

export type QueueRepository = ReturnType<typeof queueRepository>
