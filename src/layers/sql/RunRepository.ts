// The statements over `runs` and `run_claims`: a run's row, and who may write it until when.
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Schema } from "effect"
import { RunClaim, RunStatus } from "../../domain/RunRecord.js"
import { databaseNow } from "./DbClock.js"
import { ClaimStored, RunKey, RunStored } from "./Rows.js"
import type { StoreContext } from "./StoreContext.js"

const RunStatusChange = Schema.Struct({ runId: Schema.String, status: RunStatus, at: Schema.Number })
const OwnerOfRun = Schema.Struct({ runId: Schema.String, ownerId: Schema.String })
const ClaimOwner = Schema.Struct({
  runId: Schema.String,
  ownerId: Schema.String,
  host: Schema.String,
  pid: Schema.Number
})

// An older database read as it is may lack a table (run_claims before 0004) or hold none at all.
const nothingOf = ({ sql }: StoreContext) => sql`SELECT 1 WHERE 1 = 0`

/** The statements over `runs`: a run's row and its status. */
const runStatements = (ctx: StoreContext) => {
  const { facts, sql } = ctx
  const nothing = nothingOf(ctx)
  return {
    findRun: SqlSchema.findOne({
      Request: Schema.String,
      Result: RunStored,
      execute: (runId) => facts.empty ? nothing : sql`SELECT * FROM runs WHERE run_id = ${runId}`
    }),
    allRuns: SqlSchema.findAll({
      Request: Schema.Void,
      Result: RunStored,
      execute: () => facts.empty ? nothing : sql`SELECT * FROM runs ORDER BY started_at DESC, run_id DESC`
    }),
    // Two workers starting one shared run at the same moment: the second finds it taken.
    insertRun: SqlSchema.findOne({
      Request: RunStored,
      Result: RunKey,
      execute: (row) => sql`INSERT INTO runs ${sql.insert(row)} ON CONFLICT (run_id) DO NOTHING RETURNING run_id`
    }),
    // A write first: on SQLite it takes the database's write lock, on PostgreSQL the run's row lock,
    // so the claims, releases and plans of one run happen one after another.
    lockRun: SqlSchema.findOne({
      Request: Schema.String,
      Result: RunKey,
      execute: (runId) => sql`UPDATE runs SET status = status WHERE run_id = ${runId} RETURNING run_id`
    }),
    // A completed run stays closed (status and time) for a worker that joins it with nothing left to
    // do; it opens again only when questions are open in it (--retry-errors reopens them).
    reopenRun: SqlSchema.void({
      Request: Schema.String,
      execute: (runId) =>
        sql`UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ${runId}
            AND (status <> 'completed'
                 OR EXISTS (SELECT 1 FROM run_questions q WHERE q.run_id = ${runId} AND q.done = 0))`
    }),
    closeRun: SqlSchema.findOne({
      Request: RunStatusChange,
      Result: RunKey,
      execute: ({ at, runId, status }) =>
        sql`UPDATE runs SET status = ${status}, finished_at = ${at} WHERE run_id = ${runId} RETURNING run_id`
    }),
    /** Closed once: a worker that leaves after the run was closed keeps its status and time. */
    closeRunning: SqlSchema.findOne({
      Request: RunStatusChange,
      Result: RunKey,
      execute: ({ at, runId, status }) =>
        sql`UPDATE runs SET status = ${status}, finished_at = ${at} WHERE run_id = ${runId} AND status = 'running' RETURNING run_id`
    })
  }
}

/** The statements over `run_claims`: who may write a run until when. */
const claimStatements = (ctx: StoreContext) => {
  const { facts, sql } = ctx
  const nothing = nothingOf(ctx)
  const now = databaseNow(sql)
  return {
    /** Every claim row of the run (of every run, for null), newest heartbeat first. */
    claimsOf: SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: ClaimStored,
      execute: (runId) =>
        !facts.ownership ? nothing : runId === null
          ? sql`SELECT * FROM run_claims ORDER BY heartbeat_at DESC, owner_id`
          : sql`SELECT * FROM run_claims WHERE run_id = ${runId} ORDER BY heartbeat_at DESC, owner_id`
    }),
    /** Claims live by the database's clock. */
    liveClaims: SqlSchema.findAll({
      Request: Schema.String,
      Result: RunClaim,
      execute: (runId) =>
        sql`SELECT * FROM run_claims WHERE run_id = ${runId} AND expires_at > ${now} ORDER BY heartbeat_at DESC`
    }),
    /** A claim from now (the database's) for `leaseMs`. */
    insertClaim: SqlSchema.findAll({
      Request: Schema.Struct({ ...ClaimOwner.fields, leaseMs: Schema.Number }),
      Result: RunClaim,
      execute: ({ host, leaseMs, ownerId, pid, runId }) =>
        sql`INSERT INTO run_claims (run_id, owner_id, host, pid, claimed_at, heartbeat_at, expires_at)
            VALUES (${runId}, ${ownerId}, ${host}, ${pid}, ${now}, ${now}, ${now} + ${leaseMs}) RETURNING *`
    }),
    /** The owner's earlier claim and every expired one go: the owners that died are gone. */
    dropStaleClaims: SqlSchema.void({
      Request: OwnerOfRun,
      execute: ({ ownerId, runId }) =>
        sql`DELETE FROM run_claims WHERE run_id = ${runId} AND (owner_id = ${ownerId} OR expires_at <= ${now})`
    }),
    extendClaim: SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String, leaseMs: Schema.Number }),
      Result: RunClaim,
      execute: ({ leaseMs, ownerId, runId }) =>
        sql`UPDATE run_claims SET heartbeat_at = ${now}, expires_at = ${now} + ${leaseMs}
            WHERE run_id = ${runId} AND owner_id = ${ownerId} RETURNING *`
    }),
    // A write (not a read) first, so the transaction holds the write lock from its first statement.
    fence: SqlSchema.findOne({
      Request: OwnerOfRun,
      Result: RunKey,
      execute: ({ ownerId, runId }) =>
        sql`UPDATE run_claims SET owner_id = owner_id WHERE run_id = ${runId} AND owner_id = ${ownerId} RETURNING run_id`
    }),
    dropClaim: SqlSchema.findOne({
      Request: OwnerOfRun,
      Result: RunKey,
      execute: ({ ownerId, runId }) =>
        sql`DELETE FROM run_claims WHERE run_id = ${runId} AND owner_id = ${ownerId} RETURNING run_id`
    })
  }
}

export const runRepository = (ctx: StoreContext) => ({ ...runStatements(ctx), ...claimStatements(ctx) })

export type RunRepository = ReturnType<typeof runRepository>
