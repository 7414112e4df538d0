import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Array as Arr, Cause, Clock, Effect, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { firstDecodeIssue, issueLine } from "../../domain/DecodeIssue.js"
import { StopReason } from "../../domain/Prediction.js"
import { ProviderErrorReason } from "../../domain/ProviderError.js"
import { ReplyShape } from "../../domain/Protocol.js"
import { type CallRecord, callRoles } from "../../services/CallLog.js"
import { checkFile, prepare, SchemaFacts, storageError } from "./SqliteFile.js"
import type { LoadedRun, RunClaim, RunProgress, RunRow, RunState, RunStoreShape } from "../../services/RunStore.js"
import { defaultLeaseMs, RunStatus, RunStore, RunStoreError } from "../../services/RunStore.js"

export interface SqliteRunStoreOptions {
  readonly filename: string
  /** Readers (`vtree report`) must not create an empty database where the user mistyped a path. */
  readonly mustExist?: boolean
  /**
   * Open read-only and never write: no migrations, no pragma that writes. A database of an older
   * schema still reads (what it lacks reads as absent). Implies `mustExist`.
   */
  readonly readOnly?: boolean
  /**
   * How many live claims a run may have: `one` (default, a lease: a second process on a live run is
   * refused) or `many` (processes on this machine share runs as workers, as on PostgreSQL).
   */
  readonly owners?: "one" | "many"
}

/**
 * The run store over one SQLite file (WAL, foreign keys on, migrations applied on open unless
 * read-only). Refuses a file that is not a vtree database, or was written by a newer vtree, before
 * anything is written. Also exposes the SqlClient, for callers that need an ad-hoc query against
 * the same connection.
 */
export const layer = (options: SqliteRunStoreOptions): Layer.Layer<RunStore | SqlClient.SqlClient, RunStoreError> => {
  const { filename } = options
  const readOnly = options.readOnly === true
  const owners = options.owners ?? "one"
  const direct = open(filename, filename, readOnly, owners)
  // SQLite cannot open a WAL database read-only where it may not create the -shm file beside it (a
  // read-only mount): `vtree report` then reads a private copy of the file, which it never writes.
  const opened = readOnly
    ? Layer.catchAll(direct, (error) => error.reason === "DbReadOnly" ? readCopy(filename, owners) : Layer.fail(error))
    : direct
  return Layer.unwrapEffect(Effect.as(checkFile({ ...options, mustExist: options.mustExist === true || readOnly }), opened))
}

/** The store over `file`; messages name `shown`, the path the user gave. */
const open = (file: string, shown: string, readOnly: boolean, owners: "one" | "many") => {
  // WAL is switched on by prepare, after the file has been found to be vtree's: setting it is a write.
  const client = SqliteClient.layer({ filename: file, readonly: readOnly, disableWAL: true })
  const ready = Layer.effect(SchemaFacts, prepare(shown, readOnly)).pipe(Layer.provideMerge(client))
  const store = Layer.effect(RunStore, make(shown, { owners })).pipe(Layer.provideMerge(ready))
  // better-sqlite3 throws from inside the client's constructor (a defect, not an error) for a file it
  // cannot open: every way of failing to open ends as one RunStoreError.
  return Layer.catchAllCause(store, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value instanceof RunStoreError) return Layer.fail(failure.value)
    const error = Option.isSome(failure) ? failure.value : Cause.squash(cause)
    return Layer.fail(storageError(shown, "opening the database", error, "cannot open the run database"))
  })
}

const readCopy = (filename: string, owners: "one" | "many") =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "vtree-report-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const copy = nodePath.join(dir, "copy.db")
    yield* Effect.try({
      try: () => {
        fs.copyFileSync(filename, copy)
        // Commits not yet checkpointed live in the -wal file: without it the copy would miss them.
        if (fs.existsSync(`${filename}-wal`)) fs.copyFileSync(`${filename}-wal`, `${copy}-wal`)
      },
      catch: (error) => storageError(filename, "copying the database to read it", error)
    })
    return open(copy, filename, true, owners)
  }))

const credentialKey = (key: string): boolean => {
  const k = key.toLowerCase().replace(/[-_]/g, "")
  return k.endsWith("apikey") || k.endsWith("token") || k.includes("secret") || k.includes("password") ||
    k === "authorization"
}

/**
 * A JSON-ready copy of `value`. `Redacted` values are dropped (object keys omitted, array slots null),
 * and with `stripCredentials` so are keys named like credentials, so config_json can never hold a key
 * even if a caller forgot to redact it. Never throws: cycles, bigints and functions are tamed.
 */
export const toJsonValue = (value: unknown, stripCredentials = false): unknown => {
  const seen = new WeakSet<object>()
  const dropped = Symbol("dropped")
  const walk = (v: unknown): unknown => {
    if (Redacted.isRedacted(v)) return dropped
    if (v === null || typeof v === "string" || typeof v === "boolean") return v
    if (typeof v === "number") return Number.isFinite(v) ? v : String(v)
    if (typeof v === "bigint") return v.toString()
    if (typeof v === "undefined" || typeof v === "function" || typeof v === "symbol") return dropped
    if (v instanceof Date) return v.toISOString()
    const object = v as object
    if (seen.has(object)) return "[circular]"
    seen.add(object)
    try {
      if (Array.isArray(object)) return object.map((item) => {
        const out = walk(item)
        return out === dropped ? null : out
      })
      if (object instanceof Map) return walk(Object.fromEntries(object))
      if (object instanceof Set) return walk([...object])
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(object)) {
        if (stripCredentials && credentialKey(key)) continue
        const converted = walk(item)
        if (converted !== dropped) out[key] = converted
      }
      return out
    } finally {
      seen.delete(object)
    }
  }
  const result = walk(value)
  return result === dropped ? null : result
}

const jsonText = (value: unknown, stripCredentials = false): string => JSON.stringify(toJsonValue(value, stripCredentials))

// ---- Rows: one schema per table, decoding what SQLite returns into the port's row types and encoding
// them back for INSERT (column names, 0/1 flags and JSON text columns included).

const column = <S extends Schema.Schema.All>(name: string, schema: S) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(name))

/**
 * A nullable count column read as an optional field. The key is always written (null when absent):
 * a batch INSERT takes its columns from the first row, so every row must name the same ones.
 */
const optionalCount = (name: string) =>
  // The column itself may be missing too: a database of an older schema read as it is (read-only).
  Schema.optionalToOptional(Schema.NullOr(Schema.Number), Schema.Number, {
    decode: (stored) => Option.flatMap(stored, Option.fromNullable),
    encode: (value) => Option.some(Option.getOrNull(value))
  }).pipe(Schema.fromKey(name))

/** A JSON text column: written through `toJsonValue` (never throws, secrets dropped), read with JSON.parse. */
const jsonColumn = (stripCredentials: boolean) =>
  Schema.transformOrFail(Schema.String, Schema.Unknown, {
    strict: true,
    decode: (text, _, ast) =>
      ParseResult.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => new ParseResult.Type(ast, text, "expected JSON text")
      }),
    encode: (value) => ParseResult.succeed(jsonText(value, stripCredentials))
  })
const Json = jsonColumn(false)

const Flag = Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
  strict: true,
  decode: (bit) => bit === 1,
  encode: (flag) => (flag ? 1 : 0)
})

/** A column added by a later migration: absent in an older database read as it is. */
const laterColumn = <A, I>(name: string, schema: Schema.Schema<A, I>, absent: () => A) =>
  Schema.optionalWith(schema, { default: absent }).pipe(Schema.fromKey(name))

const RunId = column("run_id", Schema.String)

const RunRowSchema = Schema.Struct({
  runId: RunId,
  startedAt: column("started_at", Schema.Number),
  finishedAt: column("finished_at", Schema.NullOr(Schema.Number)),
  status: RunStatus,
  config: column("config_json", jsonColumn(true))
})

const SelectionSchema = Schema.Struct({
  questionsPath: Schema.String,
  questionsSha256: Schema.String,
  videoIds: Schema.NullOr(Schema.Array(Schema.String)),
  questionIds: Schema.NullOr(Schema.Array(Schema.String)),
  taskTypes: Schema.NullOr(Schema.Array(Schema.String)),
  nSamples: Schema.NullOr(Schema.Number),
  count: Schema.Number,
  idsSha256: Schema.String
})

const ClaimSchema = Schema.Struct({
  ownerId: column("owner_id", Schema.String),
  host: Schema.String,
  pid: Schema.Number,
  claimedAt: column("claimed_at", Schema.Number),
  heartbeatAt: column("heartbeat_at", Schema.Number),
  expiresAt: column("expires_at", Schema.Number)
})

/** A run as read: its row and its question set (claims and progress are read beside it). */
const StoredRunSchema = Schema.Struct({
  ...RunRowSchema.fields,
  selection: laterColumn("selection_json", Schema.NullOr(Schema.parseJson(SelectionSchema)), () => null)
})
type StoredRun = typeof StoredRunSchema.Type

const ClaimRowSchema = Schema.Struct({ runId: RunId, ...ClaimSchema.fields })

const ProgressRowSchema = Schema.Struct({
  runId: RunId,
  total: Schema.Number,
  done: Schema.Number,
  claimed: Schema.Number
})

/** `stale`: stored as running, but nobody holds a live claim (the owner died without closing the run). */
export const runState = (status: RunStatus, claims: ReadonlyArray<RunClaim>, now: number): RunState =>
  status === "running" && !claims.some((claim) => claim.expiresAt > now) ? "stale" : status

/** The live claim heard from last, else the newest expired one. */
const leadingClaim = (claims: ReadonlyArray<RunClaim>, now: number): RunClaim | null =>
  claims.find((claim) => claim.expiresAt > now) ?? claims[0] ?? null

const toRunRow = (stored: StoredRun, claims: ReadonlyArray<RunClaim>, progress: RunProgress | null, now: number): RunRow => ({
  runId: stored.runId,
  startedAt: stored.startedAt,
  finishedAt: stored.finishedAt,
  status: runState(stored.status, claims, now),
  config: stored.config,
  selection: stored.selection,
  claim: leadingClaim(claims, now),
  claims,
  progress
})

/** "host:pid:abcd (heartbeat 3 s ago, lease until 10:31:02 UTC)", for messages. */
export const describeClaim = (claim: RunClaim, now: number): string => {
  const ago = Math.max(0, Math.round((now - claim.heartbeatAt) / 1000))
  const until = new Date(claim.expiresAt).toISOString().slice(11, 19)
  return `${claim.ownerId} (heartbeat ${ago} s ago, lease until ${until} UTC)`
}

const QuestionId = column("question_id", Schema.String)

const predictionFields = {
  questionId: QuestionId,
  videoId: column("video_id", Schema.String),
  taskType: column("task_type", Schema.NullOr(Schema.String)),
  duration: Schema.NullOr(Schema.String),
  domain: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  question: Schema.String,
  options: column("options_json", Schema.parseJson(Schema.Array(Schema.String))),
  answer: Schema.NullOr(Schema.String),
  prediction: Schema.NullOr(Schema.String),
  correct: Flag,
  evidence: Schema.NullOr(Schema.String),
  reasoning: Schema.NullOr(Schema.String),
  stepsUsed: column("steps_used", Schema.Number),
  stopReason: column("stop_reason", StopReason),
  error: Schema.NullOr(Schema.String),
  promptTokens: column("prompt_tokens", Schema.Number),
  completionTokens: column("completion_tokens", Schema.Number),
  cachedPromptTokens: optionalCount("cached_prompt_tokens"),
  reasoningTokens: optionalCount("reasoning_tokens"),
  startedAt: column("started_at", Schema.Number),
  finishedAt: column("finished_at", Schema.Number),
  replyShapes: laterColumn("reply_shapes_json", Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Number })), () => ({})),
  worker: laterColumn("worker", Schema.NullOr(Schema.String), () => null)
}
const PredictionRowSchema = Schema.Struct(predictionFields)
const PredictionInsert = Schema.Struct({ runId: RunId, ...predictionFields })

// A comma-separated list of a handful of fixed words, read back without JSON.
const ShapeList = Schema.transform(Schema.String, Schema.Array(ReplyShape), {
  strict: false,
  decode: (text) => (text === "" ? [] : text.split(",")),
  encode: (shapes) => shapes.join(",")
})

const stepFields = {
  questionId: QuestionId,
  step: Schema.Number,
  tool: Schema.String,
  args: column("args_json", Json),
  output: Schema.String,
  thought: Schema.NullOr(Schema.String),
  reflect: column("reflect_json", Json),
  plan: column("plan_json", Json),
  // A comma-separated list: a handful of fixed words, read back without JSON.
  replyShapes: laterColumn("reply_shapes", ShapeList, () => [])
}
const StepRowSchema = Schema.Struct(stepFields)
const StepInsert = Schema.Struct({ runId: RunId, ...stepFields })

const callFields = {
  questionId: column("question_id", Schema.NullOr(Schema.String)),
  parentStep: column("parent_step", Schema.NullOr(Schema.Number)),
  role: Schema.Literal(...callRoles),
  model: Schema.String,
  startedAt: column("started_at", Schema.Number),
  durationMs: column("duration_ms", Schema.Number),
  promptTokens: column("prompt_tokens", Schema.Number),
  completionTokens: column("completion_tokens", Schema.Number),
  cachedPromptTokens: optionalCount("cached_prompt_tokens"),
  reasoningTokens: optionalCount("reasoning_tokens"),
  status: Schema.Literal("ok", "error"),
  errorReason: column("error_reason", Schema.NullOr(ProviderErrorReason))
}
// endpoint: which replica served the call; NULL for calls stored before it was recorded, and for local fakes.
const CallRowSchema = Schema.Struct({
  callId: column("call_id", Schema.Number),
  ...callFields,
  endpoint: Schema.optionalWith(Schema.String, { nullable: true, exact: true }),
  superseded: laterColumn("superseded", Flag, () => false)
})
const CallInsert = Schema.Struct({ runId: RunId, ...callFields, endpoint: Schema.NullOr(Schema.String), superseded: Flag })

const insertBatch = 200

export interface StoreOptions {
  /** How many live claims a run may have: see RunStoreShape.owners. */
  readonly owners: "one" | "many"
}

/**
 * The store over whatever SqlClient is provided: its SQL is portable (SQLite and PostgreSQL, see
 * Migrations.ts), so the Postgres layer uses it too. `filename` names the database in messages (a
 * path, or a URL without its password).
 */
export const make = (filename: string, options: StoreOptions = { owners: "one" }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const facts = yield* SchemaFacts
    const { owners } = options

    // Every failure ends as one RunStoreError a person reads; a row that does not decode was written
    // by something other than this store.
    const failed = (what: string) => ({
      SqlError: (error: SqlError) => Effect.fail(storageError(filename, what, error)),
      ParseError: (error: ParseResult.ParseError) =>
        Effect.fail(
          new RunStoreError({
            reason: "Sql",
            message: `${filename}: ${what} failed: a stored row does not match (${issueLine(firstDecodeIssue(error))}) — ` +
              `the database was not written by this version of vtree; pass --db with another path`
          })
        )
    })

    // @effect/sql turns a failed COMMIT or ROLLBACK into a defect; on a full disk or a read-only file
    // that is exactly where SQLite reports it, so those defects end as the same one line.
    const guarded = (what: string) => <A, R>(effect: Effect.Effect<A, RunStoreError | SqlError | ParseResult.ParseError, R>) =>
      effect.pipe(
        Effect.catchTags(failed(what)),
        Effect.catchSomeDefect((defect) =>
          defect instanceof SqlError ? Option.some(Effect.fail(storageError(filename, what, defect))) : Option.none()
        )
      )

    const nothing = sql`SELECT 1 WHERE 1 = 0`
    const findRun = SqlSchema.findOne({
      Request: Schema.String,
      Result: StoredRunSchema,
      execute: (runId) => facts.empty ? nothing : sql`SELECT * FROM runs WHERE run_id = ${runId}`
    })
    const allRuns = SqlSchema.findAll({
      Request: Schema.Void,
      Result: StoredRunSchema,
      execute: () => facts.empty ? nothing : sql`SELECT * FROM runs ORDER BY started_at DESC, run_id DESC`
    })
    // An older database read as it is has no run_claims (before 0004) or run_questions (before 0007).
    const claimsOf = SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: ClaimRowSchema,
      execute: (runId) =>
        !facts.ownership ? nothing : runId === null
        ? sql`SELECT * FROM run_claims ORDER BY heartbeat_at DESC, owner_id`
        : sql`SELECT * FROM run_claims WHERE run_id = ${runId} ORDER BY heartbeat_at DESC, owner_id`
    })
    // `claimed` counts open questions whose holder's lease is live.
    const progressOf = SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.NullOr(Schema.String), now: Schema.Number }),
      Result: ProgressRowSchema,
      execute: ({ now, runId }) =>
        !facts.queue ? nothing : sql`
          SELECT q.run_id, COUNT(*) AS total, SUM(q.done) AS done,
            SUM(CASE WHEN q.done = 0 AND c.owner_id IS NOT NULL THEN 1 ELSE 0 END) AS claimed
          FROM run_questions q
          LEFT JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by AND c.expires_at > ${now}
          ${runId === null ? sql`` : sql`WHERE q.run_id = ${runId}`}
          GROUP BY q.run_id`
    })
    const insertRun = SqlSchema.findOne({
      Request: Schema.Struct({ ...RunRowSchema.fields, selection: column("selection_json", Schema.NullOr(Schema.parseJson(SelectionSchema))) }),
      Result: Schema.Struct({ runId: RunId }),
      // Two workers starting one shared run at the same moment: the second finds it taken.
      execute: (row) => sql`INSERT INTO runs ${sql.insert(row)} ON CONFLICT (run_id) DO NOTHING RETURNING run_id`
    })
    const insertClaim = SqlSchema.void({
      Request: ClaimRowSchema,
      execute: (row) => sql`INSERT INTO run_claims ${sql.insert(row)}`
    })
    // A write first: on SQLite it takes the database's write lock, on PostgreSQL the run's row lock,
    // so the claims, releases and plans of one run happen one after another.
    const lockRun = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ runId: RunId }),
      execute: (runId) => sql`UPDATE runs SET status = status WHERE run_id = ${runId} RETURNING run_id`
    })
    const extendClaim = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String, at: Schema.Number, until: Schema.Number }),
      Result: ClaimSchema,
      execute: ({ at, ownerId, runId, until }) =>
        sql`UPDATE run_claims SET heartbeat_at = ${at}, expires_at = ${until}
            WHERE run_id = ${runId} AND owner_id = ${ownerId} RETURNING *`
    })
    // A write (not a read) first, so the transaction holds the write lock from its first statement.
    const fence = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String }),
      Result: Schema.Struct({ runId: RunId }),
      execute: ({ ownerId, runId }) =>
        sql`UPDATE run_claims SET owner_id = owner_id WHERE run_id = ${runId} AND owner_id = ${ownerId} RETURNING run_id`
    })
    const dropClaim = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String }),
      Result: Schema.Struct({ runId: RunId }),
      execute: ({ ownerId, runId }) =>
        sql`DELETE FROM run_claims WHERE run_id = ${runId} AND owner_id = ${ownerId} RETURNING run_id`
    })
    const liveClaims = SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, now: Schema.Number }),
      Result: ClaimSchema,
      execute: ({ now, runId }) =>
        sql`SELECT * FROM run_claims WHERE run_id = ${runId} AND expires_at > ${now} ORDER BY heartbeat_at DESC`
    })
    // A completed run stays closed (status and time) for a worker that joins it with nothing left to
    // do; it opens again only when questions are open in it (--retry-errors reopens them).
    const reopenRun = SqlSchema.void({
      Request: Schema.String,
      execute: (runId) =>
        sql`UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ${runId}
            AND (status <> 'completed'
                 OR EXISTS (SELECT 1 FROM run_questions q WHERE q.run_id = ${runId} AND q.done = 0))`
    })
    const closeRun = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, status: Schema.String, at: Schema.Number }),
      Result: Schema.Struct({ runId: RunId }),
      execute: ({ at, runId, status }) =>
        sql`UPDATE runs SET status = ${status}, finished_at = ${at} WHERE run_id = ${runId} RETURNING run_id`
    })
    const closeRunning = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, status: Schema.String, at: Schema.Number }),
      Result: Schema.Struct({ runId: RunId }),
      execute: ({ at, runId, status }) =>
        sql`UPDATE runs SET status = ${status}, finished_at = ${at} WHERE run_id = ${runId} AND status = 'running' RETURNING run_id`
    })
    const questionIds = SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, exceptErrors: Schema.Boolean }),
      Result: Schema.Struct({ questionId: QuestionId }),
      execute: ({ exceptErrors, runId }) =>
        exceptErrors
          ? sql`SELECT question_id FROM predictions WHERE run_id = ${runId} AND stop_reason <> 'error'`
          : sql`SELECT question_id FROM predictions WHERE run_id = ${runId}`
    })
    const QueueInsert = Schema.Struct({ runId: RunId, questionId: QuestionId, position: Schema.Number, done: Schema.Number })
    const insertQueue = SqlSchema.void({
      Request: Schema.Array(QueueInsert),
      execute: (rows) =>
        Effect.forEach(
          Arr.chunksOf(rows, insertBatch),
          (batch) => sql`INSERT INTO run_questions ${sql.insert(batch)} ON CONFLICT (run_id, question_id) DO NOTHING`,
          { discard: true }
        )
    })
    // Row locks of questions another worker is claiming right now are skipped, not waited for: the
    // work-queue pattern of PostgreSQL job systems. SQLite has one writer at a time and no such clause.
    const skipLocked = sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE SKIP LOCKED"), orElse: () => sql.literal("") })
    const takeQuestions = SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String, now: Schema.Number, limit: Schema.Number }),
      Result: Schema.Struct({ questionId: QuestionId, position: Schema.Number }),
      execute: ({ limit, now, ownerId, runId }) =>
        sql`UPDATE run_questions SET claimed_by = ${ownerId}, claimed_at = ${now}
            WHERE run_id = ${runId} AND question_id IN (
              SELECT q.question_id FROM run_questions q
              WHERE q.run_id = ${runId} AND q.done = 0 AND (q.claimed_by IS NULL OR (q.claimed_by <> ${ownerId} AND NOT EXISTS (
                SELECT 1 FROM run_claims c WHERE c.run_id = q.run_id AND c.owner_id = q.claimed_by AND c.expires_at > ${now})))
              ORDER BY q.position LIMIT ${limit} ${skipLocked})
            RETURNING question_id, position`
    })
    const heldElsewhere = SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, ownerId: Schema.String, now: Schema.Number }),
      Result: Schema.Struct({ held: Schema.Number }),
      execute: ({ now, ownerId, runId }) =>
        sql`SELECT COUNT(*) AS held FROM run_questions q
            JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by
            WHERE q.run_id = ${runId} AND q.done = 0 AND q.claimed_by <> ${ownerId} AND c.expires_at > ${now}`
    })
    // Done for this owner: the question is unclaimed or its own. A question another owner claimed
    // after this one's lease lapsed is that owner's to save.
    const finishQuestion = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, questionId: Schema.String, ownerId: Schema.NullOr(Schema.String) }),
      Result: Schema.Struct({ questionId: QuestionId }),
      execute: ({ ownerId, questionId, runId }) =>
        ownerId === null
          ? sql`UPDATE run_questions SET done = 1 WHERE run_id = ${runId} AND question_id = ${questionId} RETURNING question_id`
          : sql`UPDATE run_questions SET done = 1, claimed_by = ${ownerId}
                WHERE run_id = ${runId} AND question_id = ${questionId} AND (claimed_by IS NULL OR claimed_by = ${ownerId})
                RETURNING question_id`
    })
    const queued = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, questionId: Schema.String }),
      Result: Schema.Struct({ questionId: QuestionId }),
      execute: ({ questionId, runId }) =>
        sql`SELECT question_id FROM run_questions WHERE run_id = ${runId} AND question_id = ${questionId}`
    })
    // An update in place, not a delete: deleting the prediction would cascade to its calls, and the
    // calls of an earlier attempt are kept (superseded).
    const upsertPrediction = SqlSchema.void({
      Request: PredictionInsert,
      execute: (row) =>
        sql`INSERT INTO predictions ${sql.insert(row)}
            ON CONFLICT (run_id, question_id) DO UPDATE SET ${sql.update(row, ["run_id", "question_id"])}`
    })
    // Batched so each INSERT stays well under SQLite's bound-parameter limit.
    const insertSteps = SqlSchema.void({
      Request: Schema.Array(StepInsert),
      execute: (rows) =>
        Effect.forEach(Arr.chunksOf(rows, insertBatch), (batch) => sql`INSERT INTO steps ${sql.insert(batch)}`, { discard: true })
    })
    const insertCallRows = SqlSchema.void({
      Request: Schema.Array(CallInsert),
      execute: (rows) =>
        Effect.forEach(Arr.chunksOf(rows, insertBatch), (batch) => sql`INSERT INTO llm_calls ${sql.insert(batch)}`, { discard: true })
    })
    const predictionsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: PredictionRowSchema,
      execute: (runId) => sql`SELECT * FROM predictions WHERE run_id = ${runId} ORDER BY question_id`
    })
    const stepsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: StepRowSchema,
      execute: (runId) => sql`SELECT * FROM steps WHERE run_id = ${runId} ORDER BY question_id, step`
    })
    const callsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: CallRowSchema,
      execute: (runId) => sql`SELECT * FROM llm_calls WHERE run_id = ${runId} ORDER BY call_id`
    })

    const notFound = (runId: string) =>
      allRuns(undefined).pipe(
        Effect.flatMap((runs) => {
          const ids = runs.map((run) => run.runId)
          const shown = ids.slice(0, 20).join(", ")
          const more = ids.length > 20 ? ` (and ${ids.length - 20} more)` : ""
          const message = ids.length === 0
            ? `${filename}: no run "${runId}" — the database holds no runs yet; run \`vtree infer\` first`
            : `${filename}: no run "${runId}" — available: ${shown}${more}; pass one of them with --run-id`
          return Effect.fail(new RunStoreError({ reason: "RunNotFound", message }))
        })
      )

    const leased = (runId: string, claim: RunClaim, now: number) =>
      new RunStoreError({
        reason: "RunLeased",
        message: `run "${runId}" is being run by ${describeClaim(claim, now)} — let it finish; if that process is gone, ` +
          `continue with --resume --takeover --run-id ${runId} once its lease has expired`
      })

    const claimLost = (runId: string, ownerId: string) =>
      Effect.flatMap(claimsOf(runId), (claims) =>
        Effect.fail(
          new RunStoreError({
            reason: "ClaimLost",
            message: `run "${runId}": this process (${ownerId}) no longer holds the run${
              owners === "one" && claims[0] !== undefined
                ? ` — ${claims[0].ownerId} took it over after the lease expired`
                : " — its lease expired (no heartbeat in time) and another worker took its questions"
            }; it stopped writing (its finished questions are saved)`
          })
        ))

    const insertCalls = (
      runId: string,
      questionId: (call: CallRecord) => string | null,
      calls: ReadonlyArray<CallRecord>,
      superseded = false
    ) =>
      insertCallRows(calls.map((call) => ({
        ...call,
        runId,
        questionId: questionId(call),
        endpoint: call.endpoint ?? null,
        superseded,
        startedAt: Math.round(call.startedAt),
        durationMs: Math.round(call.durationMs)
      })))

    const claimRows = (rows: ReadonlyArray<typeof ClaimRowSchema.Type>): Array<RunClaim> =>
      rows.map(({ runId: _, ...claim }) => claim)

    const readRun = (runId: string) =>
      Effect.gen(function*() {
        const stored = yield* findRun(runId)
        if (Option.isNone(stored)) return Option.none<RunRow>()
        const now = yield* Clock.currentTimeMillis
        const claims = claimRows(yield* claimsOf(runId))
        const [progress] = yield* progressOf({ runId, now })
        return Option.some(toRunRow(stored.value, claims, progress === undefined ? null : withoutRunId(progress), now))
      })

    const startRun: RunStoreShape["startRun"] = Effect.fn("RunStore.startRun")(function*(input) {
      const startedAt = input.startedAt ?? (yield* Clock.currentTimeMillis)
      const exists = (claim: RunClaim | null | undefined, now: number) =>
        new RunStoreError({
          reason: "RunExists",
          message: `${filename}: run "${input.runId}" already exists${
            claim != null && claim.expiresAt > now ? ` and is being run by ${describeClaim(claim, now)}` : ""
          } — pass --resume to continue it, or another --run-id`
        })
      const existing = yield* readRun(input.runId)
      if (Option.isSome(existing)) return yield* exists(existing.value.claim, yield* Clock.currentTimeMillis)
      const row = {
        runId: input.runId,
        startedAt,
        finishedAt: null,
        status: "running" as const,
        config: toJsonValue(input.config, true),
        selection: input.selection ?? null
      }
      const owner = input.owner
      const claim: RunClaim | null = owner === undefined ? null : {
        ...owner,
        claimedAt: startedAt,
        heartbeatAt: startedAt,
        expiresAt: startedAt + (input.leaseMs ?? defaultLeaseMs)
      }
      const created = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* insertRun(row))) return false
        if (claim !== null) yield* insertClaim({ runId: input.runId, ...claim })
        return true
      })))
      if (!created) return yield* exists(null, startedAt)
      const run: RunRow = { ...row, claim, claims: claim === null ? [] : [claim], progress: null }
      return run
    }, guarded("starting the run"))

    const claimRun: RunStoreShape["claimRun"] = Effect.fn("RunStore.claimRun")(function*(input) {
      const { leaseMs, owner, runId } = input
      const now = yield* Clock.currentTimeMillis
      const outcome = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* lockRun(runId))) return { _tag: "Missing" as const }
        const live = (yield* liveClaims({ runId, now })).filter((claim) => claim.ownerId !== owner.ownerId)
        if (owners === "one" && live[0] !== undefined) return { _tag: "Leased" as const, holder: live[0] }
        // Owners whose lease expired are gone: their rows go, and their questions are open again.
        yield* sql`DELETE FROM run_claims WHERE run_id = ${runId} AND owner_id <> ${owner.ownerId} AND expires_at <= ${now}`
        yield* sql`DELETE FROM run_claims WHERE run_id = ${runId} AND owner_id = ${owner.ownerId}`
        yield* insertClaim({ runId, ...owner, claimedAt: now, heartbeatAt: now, expiresAt: now + leaseMs })
        yield* reopenRun(runId)
        return { _tag: "Claimed" as const }
      })))
      if (outcome._tag === "Missing") return yield* notFound(runId)
      if (outcome._tag === "Leased") return yield* leased(runId, outcome.holder, now)
      const run = yield* readRun(runId)
      return Option.isSome(run) ? run.value : yield* notFound(runId)
    }, guarded("claiming the run"))

    const renewClaim: RunStoreShape["renewClaim"] = Effect.fn("RunStore.renewClaim")(function*(runId, ownerId, leaseMs) {
      const now = yield* Clock.currentTimeMillis
      const renewed = yield* extendClaim({ runId, ownerId, at: now, until: now + leaseMs })
      return Option.isSome(renewed) ? renewed.value : yield* claimLost(runId, ownerId)
    }, guarded("renewing the run's lease"))

    const releaseRun: RunStoreShape["releaseRun"] = Effect.fn("RunStore.releaseRun")(
      function*(runId, ownerId, status, finishedAt) {
        const at = finishedAt ?? (yield* Clock.currentTimeMillis)
        const now = yield* Clock.currentTimeMillis
        const released = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
          yield* lockRun(runId)
          if (Option.isNone(yield* dropClaim({ runId, ownerId }))) return undefined
          if (facts.queue) {
            yield* sql`UPDATE run_questions SET claimed_by = NULL, claimed_at = NULL
                       WHERE run_id = ${runId} AND claimed_by = ${ownerId} AND done = 0`
          }
          const [progress] = yield* progressOf({ runId, now })
          // Every question saved: the run is complete, whoever saved them and whoever still waits.
          const complete = progress !== undefined && progress.total > 0 && progress.done >= progress.total
          if (!complete && (yield* liveClaims({ runId, now })).length > 0) return "running" as const
          const final = complete ? "completed" : status
          // Closed once: a worker that leaves after the run completed keeps its status and time.
          const closed = yield* closeRunning({ runId, status: final, at })
          if (Option.isSome(closed)) return final
          const current = yield* findRun(runId)
          return Option.isSome(current) ? current.value.status : final
        })))
        return released ?? (yield* claimLost(runId, ownerId))
      },
      guarded("closing the run")
    )

    const finishRun: RunStoreShape["finishRun"] = Effect.fn("RunStore.finishRun")(function*(runId, status, finishedAt) {
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      if (Option.isNone(yield* closeRun({ runId, status, at }))) return yield* notFound(runId)
    }, guarded("finishing the run"))

    const planQuestions: RunStoreShape["planQuestions"] = Effect.fn("RunStore.planQuestions")(
      function*(runId, ids, options) {
        const now = yield* Clock.currentTimeMillis
        yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
          if (Option.isNone(yield* lockRun(runId))) return
          yield* insertQueue(ids.map((questionId, position) => ({ runId, questionId, position, done: 0 })))
          // A run from before the queue (or saved without it) has predictions the queue must know of.
          yield* sql`UPDATE run_questions SET done = 1 WHERE run_id = ${runId} AND done = 0
                     AND question_id IN (SELECT question_id FROM predictions WHERE run_id = ${runId})`
          if (options?.retryErrors === true) {
            yield* sql`UPDATE run_questions SET done = 0, claimed_by = NULL, claimed_at = NULL
                       WHERE run_id = ${runId} AND done = 1
                       AND question_id IN (SELECT question_id FROM predictions WHERE run_id = ${runId} AND stop_reason = 'error')`
          }
          yield* reopenRun(runId)
        })))
        const [progress] = yield* progressOf({ runId, now })
        if (progress === undefined) return yield* notFound(runId)
        return withoutRunId(progress)
      },
      guarded("planning the run's questions")
    )

    const claimQuestions: RunStoreShape["claimQuestions"] = Effect.fn("RunStore.claimQuestions")(
      function*(runId, ownerId, limit) {
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
          if (Option.isNone(yield* fence({ runId, ownerId }))) return undefined
          const taken = yield* takeQuestions({ runId, ownerId, now, limit: Math.max(1, Math.floor(limit)) })
          return [...taken].sort((a, b) => a.position - b.position).map((row) => row.questionId)
        })))
        if (claimed === undefined) return yield* claimLost(runId, ownerId)
        // Counted only when there is nothing to hand out: a count over a large run's open rows at
        // every claim would cost more than the claim.
        if (claimed.length > 0) return { questionIds: claimed, heldByOthers: 0 }
        const [count] = yield* heldElsewhere({ runId, ownerId, now })
        return { questionIds: claimed, heldByOthers: count?.held ?? 0 }
      },
      guarded("claiming questions")
    )

    const finishedQuestionIds: RunStoreShape["finishedQuestionIds"] = Effect.fn("RunStore.finishedQuestionIds")(
      function*(runId, options) {
        const rows = yield* questionIds({ runId, exceptErrors: options?.exceptErrors === true })
        return new Set(rows.map((row) => row.questionId))
      },
      guarded("reading finished questions")
    )

    const saveQuestion: RunStoreShape["saveQuestion"] = Effect.fn("RunStore.saveQuestion")(
      function*(runId, record, options) {
        const p = record.prediction
        const ownerId = options?.ownerId
        const write = Effect.gen(function*() {
          if (ownerId !== undefined && Option.isNone(yield* fence({ runId, ownerId }))) return "lost" as const
          if (facts.queue && Option.isNone(yield* finishQuestion({ runId, questionId: p.questionId, ownerId: ownerId ?? null }))) {
            // Not done by this owner: either outside the queue (saved without one: fine) or another's now.
            const row = yield* queued({ runId, questionId: p.questionId })
            if (Option.isSome(row) && ownerId !== undefined) {
              // Tokens reported are tokens spent: the calls stay, as run-level calls, superseded.
              yield* insertCalls(runId, () => null, record.calls, true)
              return "taken" as const
            }
          }
          // The earlier attempt's calls stay, superseded: tokens reported are tokens spent.
          yield* sql`UPDATE llm_calls SET superseded = 1 WHERE run_id = ${runId} AND question_id = ${p.questionId}`
          yield* sql`DELETE FROM steps WHERE run_id = ${runId} AND question_id = ${p.questionId}`
          yield* upsertPrediction({
            ...p,
            runId,
            startedAt: Math.round(p.startedAt),
            finishedAt: Math.round(p.finishedAt),
            replyShapes: p.replyShapes ?? {},
            worker: ownerId ?? p.worker ?? null
          })
          yield* insertSteps(record.steps.map((step) => ({ ...step, runId, questionId: p.questionId, replyShapes: step.replyShapes ?? [] })))
          yield* insertCalls(runId, () => p.questionId, record.calls)
          return "saved" as const
        })
        // Uninterruptible: a question that finished while Ctrl-C arrives is still kept whole.
        const outcome = yield* Effect.uninterruptible(sql.withTransaction(write))
        if (outcome === "lost") return yield* claimLost(runId, ownerId!)
        return outcome
      },
      (effect, runId, record) =>
        guarded(`saving question "${record.prediction.questionId}" of run "${runId}"`)(effect)
    )

    const saveRunCalls: RunStoreShape["saveRunCalls"] = Effect.fn("RunStore.saveRunCalls")(
      function*(runId, calls) {
        yield* Effect.uninterruptible(sql.withTransaction(insertCalls(runId, () => null, calls)))
      },
      guarded("saving run-level calls")
    )

    const getRun: RunStoreShape["getRun"] = Effect.fn("RunStore.getRun")(
      function*(runId) {
        return yield* readRun(runId)
      },
      guarded("reading the run")
    )

    const listRuns: RunStoreShape["listRuns"] = Effect.gen(function*() {
      const rows = yield* allRuns(undefined)
      const now = yield* Clock.currentTimeMillis
      const claims = Arr.groupBy(yield* claimsOf(null), (claim) => claim.runId)
      const progress = new Map((yield* progressOf({ runId: null, now })).map((row) => [row.runId, withoutRunId(row)]))
      return rows.map((row) => toRunRow(row, claimRows(claims[row.runId] ?? []), progress.get(row.runId) ?? null, now))
    }).pipe(
      guarded("listing runs"),
      Effect.withSpan("RunStore.listRuns")
    )

    const loadRun: RunStoreShape["loadRun"] = Effect.fn("RunStore.loadRun")(
      function*(runId, options) {
        const run = yield* readRun(runId)
        if (Option.isNone(run)) return yield* notFound(runId)
        // One read transaction, so a run being written meanwhile is seen at a single point in time.
        return yield* sql.withTransaction(Effect.gen(function*() {
          const loaded: LoadedRun = {
            run: run.value,
            predictions: yield* predictionsOf(runId),
            steps: options?.includeSteps === false ? [] : yield* stepsOf(runId),
            calls: yield* callsOf(runId)
          }
          return loaded
        }))
      },
      guarded("loading the run")
    )

    return RunStore.of({
      owners,
      startRun,
      claimRun,
      renewClaim,
      releaseRun,
      finishRun,
      planQuestions,
      claimQuestions,
      finishedQuestionIds,
      saveQuestion,
      saveRunCalls,
      getRun,
      listRuns,
      loadRun
    })
  })

const withoutRunId = ({ runId: _, ...progress }: typeof ProgressRowSchema.Type): RunProgress => progress
