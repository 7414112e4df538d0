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
import type { CallRecord } from "../../services/CallLog.js"
import { checkFile, prepare, SchemaFacts, storageError } from "./SqliteFile.js"
import type { LoadedRun, RunClaim, RunRow, RunState, RunStoreShape } from "../../services/RunStore.js"
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
  const direct = open(filename, filename, readOnly)
  // SQLite cannot open a WAL database read-only where it may not create the -shm file beside it (a
  // read-only mount): `vtree report` then reads a private copy of the file, which it never writes.
  const opened = readOnly
    ? Layer.catchAll(direct, (error) => error.reason === "DbReadOnly" ? readCopy(filename) : Layer.fail(error))
    : direct
  return Layer.unwrapEffect(Effect.as(checkFile({ ...options, mustExist: options.mustExist === true || readOnly }), opened))
}

/** The store over `file`; messages name `shown`, the path the user gave. */
const open = (file: string, shown: string, readOnly: boolean) => {
  // WAL is switched on by prepare, after the file has been found to be vtree's: setting it is a write.
  const client = SqliteClient.layer({ filename: file, readonly: readOnly, disableWAL: true })
  const ready = Layer.effect(SchemaFacts, prepare(shown, readOnly)).pipe(Layer.provideMerge(client))
  const store = Layer.effect(RunStore, make(shown)).pipe(Layer.provideMerge(ready))
  // better-sqlite3 throws from inside the client's constructor (a defect, not an error) for a file it
  // cannot open: every way of failing to open ends as one RunStoreError.
  return Layer.catchAllCause(store, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value instanceof RunStoreError) return Layer.fail(failure.value)
    const error = Option.isSome(failure) ? failure.value : Cause.squash(cause)
    return Layer.fail(storageError(shown, "opening the database", error, "cannot open the run database"))
  })
}

const readCopy = (filename: string) =>
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
    return open(copy, filename, true)
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

const RunRowSchema = Schema.Struct({
  runId: column("run_id", Schema.String),
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

/** A run as read: its row, its question set and its claim (the claim columns are null when unclaimed). */
const StoredRunSchema = Schema.Struct({
  ...RunRowSchema.fields,
  selection: laterColumn("selection_json", Schema.NullOr(Schema.parseJson(SelectionSchema)), () => null),
  ownerId: laterColumn("owner_id", Schema.NullOr(Schema.String), () => null),
  host: laterColumn("host", Schema.NullOr(Schema.String), () => null),
  pid: laterColumn("pid", Schema.NullOr(Schema.Number), () => null),
  claimedAt: laterColumn("claimed_at", Schema.NullOr(Schema.Number), () => null),
  heartbeatAt: laterColumn("heartbeat_at", Schema.NullOr(Schema.Number), () => null),
  expiresAt: laterColumn("expires_at", Schema.NullOr(Schema.Number), () => null)
})
type StoredRun = typeof StoredRunSchema.Type

/** `stale`: stored as running, but nobody holds a live claim (the owner died without closing the run). */
export const runState = (status: RunStatus, claim: RunClaim | null, now: number): RunState =>
  status === "running" && (claim === null || claim.expiresAt <= now) ? "stale" : status

const toRunRow = (stored: StoredRun, now: number): RunRow => {
  const claim: RunClaim | null = stored.ownerId === null ? null : {
    ownerId: stored.ownerId,
    host: stored.host ?? "",
    pid: stored.pid ?? 0,
    claimedAt: stored.claimedAt ?? 0,
    heartbeatAt: stored.heartbeatAt ?? 0,
    expiresAt: stored.expiresAt ?? 0
  }
  return {
    runId: stored.runId,
    startedAt: stored.startedAt,
    finishedAt: stored.finishedAt,
    status: runState(stored.status, claim, now),
    config: stored.config,
    selection: stored.selection,
    claim
  }
}

/** "host:pid:abcd (heartbeat 3 s ago, lease until 10:31:02 UTC)", for messages. */
export const describeClaim = (claim: RunClaim, now: number): string => {
  const ago = Math.max(0, Math.round((now - claim.heartbeatAt) / 1000))
  const until = new Date(claim.expiresAt).toISOString().slice(11, 19)
  return `${claim.ownerId} (heartbeat ${ago} s ago, lease until ${until} UTC)`
}

const RunId = column("run_id", Schema.String)
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
  replyShapes: laterColumn("reply_shapes_json", Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Number })), () => ({}))
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
  role: Schema.Literal("agent", "tool", "vlm", "embed", "ocr"),
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
const CallInsert = Schema.Struct({ runId: RunId, ...callFields, endpoint: Schema.NullOr(Schema.String) })

const insertBatch = 200

/**
 * The store over whatever SqlClient is provided: its SQL is portable (SQLite and PostgreSQL, see
 * Migrations.ts), so the Postgres layer uses it too. `filename` names the database in messages (a
 * path, or a URL without its password).
 */
export const make = (filename: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const facts = yield* SchemaFacts

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

    // An older database read as it is has no run_claims table and no selection column.
    const runColumns = facts.ownership
      ? sql`SELECT runs.*, c.owner_id, c.host, c.pid, c.claimed_at, c.heartbeat_at, c.expires_at
            FROM runs LEFT JOIN run_claims c ON c.run_id = runs.run_id`
      : sql`SELECT runs.* FROM runs`
    const findRun = SqlSchema.findOne({
      Request: Schema.String,
      Result: StoredRunSchema,
      execute: (runId) => facts.empty ? sql`SELECT 1 WHERE 0` : sql`${runColumns} WHERE runs.run_id = ${runId}`
    })
    const allRuns = SqlSchema.findAll({
      Request: Schema.Void,
      Result: StoredRunSchema,
      execute: () => facts.empty ? sql`SELECT 1 WHERE 0` : sql`${runColumns} ORDER BY runs.started_at DESC, runs.run_id DESC`
    })
    const insertRun = SqlSchema.void({
      Request: Schema.Struct({ ...RunRowSchema.fields, selection: column("selection_json", Schema.NullOr(Schema.parseJson(SelectionSchema))) }),
      execute: (row) => sql`INSERT INTO runs ${sql.insert(row)}`
    })
    const ClaimInsert = Schema.Struct({ runId: RunId, ...ClaimSchema.fields })
    const insertClaim = SqlSchema.void({
      Request: ClaimInsert,
      execute: (row) => sql`INSERT INTO run_claims ${sql.insert(row)}`
    })
    // One statement, so two processes claiming at once cannot both win: the row is taken when it is
    // absent, expired, or already this owner's.
    const takeClaim = SqlSchema.findOne({
      Request: ClaimInsert,
      Result: Schema.Struct({ ownerId: column("owner_id", Schema.String) }),
      execute: (row) =>
        sql`INSERT INTO run_claims ${sql.insert(row)}
            ON CONFLICT (run_id) DO UPDATE SET owner_id = excluded.owner_id, host = excluded.host, pid = excluded.pid,
              claimed_at = excluded.claimed_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
            WHERE run_claims.owner_id = excluded.owner_id OR run_claims.expires_at <= excluded.heartbeat_at
            RETURNING owner_id`
    })
    const claimOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: ClaimSchema,
      execute: (runId) => sql`SELECT * FROM run_claims WHERE run_id = ${runId}`
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
    const reopenRun = SqlSchema.void({
      Request: Schema.String,
      execute: (runId) => sql`UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ${runId}`
    })
    const closeRun = SqlSchema.findOne({
      Request: Schema.Struct({ runId: Schema.String, status: Schema.String, at: Schema.Number }),
      Result: Schema.Struct({ runId: RunId }),
      execute: ({ at, runId, status }) =>
        sql`UPDATE runs SET status = ${status}, finished_at = ${at} WHERE run_id = ${runId} RETURNING run_id`
    })
    const questionIds = SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, exceptErrors: Schema.Boolean }),
      Result: Schema.Struct({ questionId: QuestionId }),
      execute: ({ exceptErrors, runId }) =>
        exceptErrors
          ? sql`SELECT question_id FROM predictions WHERE run_id = ${runId} AND stop_reason <> 'error'`
          : sql`SELECT question_id FROM predictions WHERE run_id = ${runId}`
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
      Effect.flatMap(claimOf(runId), (claim) =>
        Effect.fail(
          new RunStoreError({
            reason: "ClaimLost",
            message: `run "${runId}": this process (${ownerId}) no longer holds the run${
              Option.isSome(claim) ? ` — ${claim.value.ownerId} took it over after the lease expired` : ""
            }; it stopped writing (its finished questions are saved)`
          })
        ))

    const insertCalls = (
      runId: string,
      questionId: (call: CallRecord) => string | null,
      calls: ReadonlyArray<CallRecord>
    ) =>
      insertCallRows(calls.map((call) => ({
        ...call,
        runId,
        questionId: questionId(call),
        endpoint: call.endpoint ?? null,
        startedAt: Math.round(call.startedAt),
        durationMs: Math.round(call.durationMs)
      })))

    const readRun = (runId: string) =>
      Effect.flatMap(findRun(runId), (stored) =>
        Effect.map(Clock.currentTimeMillis, (now) => Option.map(stored, (row) => toRunRow(row, now))))

    const startRun: RunStoreShape["startRun"] = Effect.fn("RunStore.startRun")(function*(input) {
      const startedAt = input.startedAt ?? (yield* Clock.currentTimeMillis)
      const existing = yield* readRun(input.runId)
      if (Option.isSome(existing)) {
        const claim = existing.value.claim
        const now = yield* Clock.currentTimeMillis
        return yield* new RunStoreError({
          reason: "RunExists",
          message: `${filename}: run "${input.runId}" already exists${
            claim != null && claim.expiresAt > now ? ` and is being run by ${describeClaim(claim, now)}` : ""
          } — pass --resume to continue it, or another --run-id`
        })
      }
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
      yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        yield* insertRun(row)
        if (claim !== null) yield* insertClaim({ runId: input.runId, ...claim })
      })))
      const run: RunRow = { ...row, claim }
      return run
    }, guarded("starting the run"))

    const claimRun: RunStoreShape["claimRun"] = Effect.fn("RunStore.claimRun")(function*(input) {
      const { leaseMs, owner, runId } = input
      if (Option.isNone(yield* findRun(runId))) return yield* notFound(runId)
      // A second round only when the holder released the run between the two statements below.
      for (let attempt = 0; attempt < 2; attempt++) {
        const now = yield* Clock.currentTimeMillis
        const claim = { runId, ...owner, claimedAt: now, heartbeatAt: now, expiresAt: now + leaseMs }
        const won = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
          const taken = yield* takeClaim(claim)
          if (Option.isNone(taken)) return false
          yield* reopenRun(runId)
          return true
        })))
        if (won) {
          const run = yield* readRun(runId)
          return Option.isSome(run) ? run.value : yield* notFound(runId)
        }
        const holder = yield* claimOf(runId)
        if (Option.isSome(holder)) return yield* leased(runId, holder.value, now)
      }
      return yield* new RunStoreError({ reason: "RunLeased", message: `run "${runId}" is being claimed by another process — try again` })
    }, guarded("claiming the run"))

    const renewClaim: RunStoreShape["renewClaim"] = Effect.fn("RunStore.renewClaim")(function*(runId, ownerId, leaseMs) {
      const now = yield* Clock.currentTimeMillis
      const renewed = yield* extendClaim({ runId, ownerId, at: now, until: now + leaseMs })
      return Option.isSome(renewed) ? renewed.value : yield* claimLost(runId, ownerId)
    }, guarded("renewing the run's lease"))

    const releaseRun: RunStoreShape["releaseRun"] = Effect.fn("RunStore.releaseRun")(
      function*(runId, ownerId, status, finishedAt) {
        const at = finishedAt ?? (yield* Clock.currentTimeMillis)
        const released = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
          if (Option.isNone(yield* dropClaim({ runId, ownerId }))) return false
          yield* closeRun({ runId, status, at })
          return true
        })))
        if (!released) return yield* claimLost(runId, ownerId)
      },
      guarded("closing the run")
    )

    const finishRun: RunStoreShape["finishRun"] = Effect.fn("RunStore.finishRun")(function*(runId, status, finishedAt) {
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      if (Option.isNone(yield* closeRun({ runId, status, at }))) return yield* notFound(runId)
    }, guarded("finishing the run"))

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
          if (ownerId !== undefined && Option.isNone(yield* fence({ runId, ownerId }))) return false
          // The earlier attempt's calls stay, superseded: tokens reported are tokens spent.
          yield* sql`UPDATE llm_calls SET superseded = 1 WHERE run_id = ${runId} AND question_id = ${p.questionId}`
          yield* sql`DELETE FROM steps WHERE run_id = ${runId} AND question_id = ${p.questionId}`
          yield* upsertPrediction({
            ...p,
            runId,
            startedAt: Math.round(p.startedAt),
            finishedAt: Math.round(p.finishedAt),
            replyShapes: p.replyShapes ?? {}
          })
          yield* insertSteps(record.steps.map((step) => ({ ...step, runId, questionId: p.questionId, replyShapes: step.replyShapes ?? [] })))
          yield* insertCalls(runId, () => p.questionId, record.calls)
          return true
        })
        // Uninterruptible: a question that finished while Ctrl-C arrives is still kept whole.
        const saved = yield* Effect.uninterruptible(sql.withTransaction(write))
        if (!saved && ownerId !== undefined) return yield* claimLost(runId, ownerId)
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
      return rows.map((row) => toRunRow(row, now))
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
      startRun,
      claimRun,
      renewClaim,
      releaseRun,
      finishRun,
      finishedQuestionIds,
      saveQuestion,
      saveRunCalls,
      getRun,
      listRuns,
      loadRun
    })
  })
