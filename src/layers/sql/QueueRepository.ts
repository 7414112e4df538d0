// The statements over `run_questions`: a run's question set as a work queue, claimed a few at a time
// by its owners and marked done as each question is saved.
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Array as Arr, Effect, Schema } from "effect"
import { databaseNow } from "./DbClock.js"
import { ProgressStored, QuestionKey, QueueInsert } from "./Rows.js"
import type { StoreContext } from "./StoreContext.js"

/** Rows per INSERT: well under SQLite's bound-parameter limit. */
export const insertBatch = 200

/** How far runs are: per run, the questions there are, done, and claimed under a live lease. */
const queueCounts = ({ facts, sql }: StoreContext) => {
  const nothing = sql`SELECT 1 WHERE 1 = 0`
  const now = databaseNow(sql)
  // Only the few questions held right now are counted (the partial index run_questions_held finds them);
  // total and done are the counts kept beside the queue.
  const held = sql`SELECT COUNT(*) FROM run_questions q
    JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by
    WHERE q.run_id = r.run_id AND q.done = 0 AND q.claimed_by IS NOT NULL AND c.expires_at > ${now}`
  return {
    /** Per run (every run, for null): `claimed` counts open questions whose holder's lease is live. */
    progressOf: SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: ProgressStored,
      execute: (runId) =>
        !facts.queue ? nothing : facts.counts
          ? sql`SELECT r.run_id, r.question_count AS total, r.done_count AS done, (${held}) AS claimed
              FROM run_queues r ${runId === null ? sql`` : sql`WHERE r.run_id = ${runId}`}`
          // A database read as it is from before the counts (0013): the queue's rows counted.
          : sql`
          SELECT q.run_id, COUNT(*) AS total, SUM(q.done) AS done,
            SUM(CASE WHEN q.done = 0 AND c.owner_id IS NOT NULL THEN 1 ELSE 0 END) AS claimed
          FROM run_questions q
          LEFT JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by AND c.expires_at > ${now}
          ${runId === null ? sql`` : sql`WHERE q.run_id = ${runId}`}
          GROUP BY q.run_id`
    }),
    heldElsewhere: SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String }),
      Result: Schema.Struct({ held: Schema.Number }),
      execute: ({ ownerId, runId }) =>
        sql`SELECT COUNT(*) AS held FROM run_questions q
            JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by
            WHERE q.run_id = ${runId} AND q.done = 0 AND q.claimed_by IS NOT NULL AND q.claimed_by <> ${ownerId}
            AND c.expires_at > ${now}`
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
  /** The queue's kept counts and the hash of the question set it was last planned with. */
  queueOf: SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ questionCount: Schema.Number, questionHash: Schema.NullOr(Schema.String) }),
    execute: (runId) => sql`SELECT question_count, question_hash FROM run_queues WHERE run_id = ${runId}`
  }),
  /** The counts taken again from the queue's rows, after planning changed them, with the set's hash. */
  recount: SqlSchema.void({
    Request: Schema.Struct({ runId: Schema.String, hash: Schema.String }),
    execute: ({ hash, runId }) =>
      sql`INSERT INTO run_queues (run_id, question_count, question_hash, done_count)
          SELECT ${runId}, COUNT(*), ${hash}, COALESCE(SUM(done), 0) FROM run_questions WHERE run_id = ${runId}
          ON CONFLICT (run_id) DO UPDATE SET question_count = excluded.question_count,
            question_hash = excluded.question_hash, done_count = excluded.done_count`
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
  const now = databaseNow(sql)
  const QuestionOfRun = Schema.Struct({ runId: Schema.String, questionId: Schema.String })
  // Row locks of questions another worker is claiming right now are skipped, not waited for: the
  // work-queue pattern of PostgreSQL job systems. SQLite has one writer at a time and no such clause.
  const skipLocked = sql.onDialectOrElse({
    pg: () => sql.literal("FOR UPDATE SKIP LOCKED"),
    orElse: () => sql.literal("")
  })
  return {
    takeQuestions: SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String, limit: Schema.Number }),
      Result: Schema.Struct({ questionId: Schema.String, position: Schema.Number }),
      execute: ({ limit, ownerId, runId }) =>
        // The questions are picked once, in a materialized step: as a plain `IN (SELECT … LIMIT n FOR UPDATE
        // SKIP LOCKED)` PostgreSQL may run the subquery again per row and claim more than `limit`, holding
        // questions no fiber of this worker asked for until their lease lapses.
        sql`WITH next AS MATERIALIZED (
              SELECT q.question_id FROM run_questions q
              WHERE q.run_id = ${runId} AND q.done = 0 AND (q.claimed_by IS NULL OR (q.claimed_by <> ${ownerId} AND NOT EXISTS (
                SELECT 1 FROM run_claims c WHERE c.run_id = q.run_id AND c.owner_id = q.claimed_by AND c.expires_at > ${now})))
              ORDER BY q.position LIMIT ${limit} ${skipLocked})
            UPDATE run_questions SET claimed_by = ${ownerId}, claimed_at = ${now}
            WHERE run_id = ${runId} AND question_id IN (SELECT question_id FROM next)
            RETURNING question_id, position`
    }),
    /** An owner leaving hands its unsaved questions back. */
    releaseQuestions: SqlSchema.void({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String }),
      execute: ({ ownerId, runId }) =>
        sql`UPDATE run_questions SET claimed_by = NULL, claimed_at = NULL
            WHERE run_id = ${runId} AND claimed_by = ${ownerId} AND done = 0`
    }),
    // Done now for this owner, open until now: the one save that counts it in the queue's done count.
    finishOpen: SqlSchema.findOne({
      Request: Schema.Struct({
        runId: Schema.String,
        questionId: Schema.String,
        ownerId: Schema.NullOr(Schema.String)
      }),
      Result: QuestionKey,
      execute: ({ ownerId, questionId, runId }) =>
        ownerId === null
          ? sql`UPDATE run_questions SET done = 1 WHERE run_id = ${runId} AND question_id = ${questionId} AND done = 0
                RETURNING question_id`
          : sql`UPDATE run_questions SET done = 1, claimed_by = ${ownerId}
                WHERE run_id = ${runId} AND question_id = ${questionId} AND done = 0
                AND (claimed_by IS NULL OR claimed_by = ${ownerId})
                RETURNING question_id`
    }),
    countDone: SqlSchema.void({
      Request: Schema.String,
      execute: (runId) => sql`UPDATE run_queues SET done_count = done_count + 1 WHERE run_id = ${runId}`
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
