import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Array as Arr, Clock, Effect, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { firstDecodeIssue, issueLine } from "../../domain/DecodeIssue.js"
import { StopReason } from "../../domain/Prediction.js"
import { ProviderErrorReason } from "../../domain/ProviderError.js"
import { ReplyShape } from "../../domain/Protocol.js"
import type { CallRecord } from "../../services/CallLog.js"
import { migrate } from "./Migrations.js"
import type { LoadedRun, RunRow, RunStoreShape } from "../../services/RunStore.js"
import { RunStatus, RunStore, RunStoreError } from "../../services/RunStore.js"

export interface SqliteRunStoreOptions {
  readonly filename: string
  /** Readers (`vtree report`) must not create an empty database where the user mistyped a path. */
  readonly mustExist?: boolean
}

/**
 * The run store over one SQLite file (WAL, foreign keys on, migrations applied on open). Also exposes
 * the SqlClient, for callers that need an ad-hoc query against the same connection.
 */
export const layer = (options: SqliteRunStoreOptions): Layer.Layer<RunStore | SqlClient.SqlClient, RunStoreError> => {
  const { filename } = options
  const client = SqliteClient.layer({ filename })
  const ready = Layer.effectDiscard(prepare).pipe(Layer.provideMerge(client))
  const store = Layer.effect(RunStore, make(filename)).pipe(Layer.provideMerge(ready))
  const opened = Layer.mapError(store, (cause) =>
    cause instanceof RunStoreError ? cause : new RunStoreError({
      reason: "DbUnreadable",
      message: `${filename}: cannot open the run database (${describeCause(cause)}) — ` +
        `check the file, or pass --db with another path`
    }))
  return Layer.unwrapEffect(Effect.as(checkFile(options), opened))
}

// better-sqlite3 throws (a defect, not an error) from inside the client's constructor for a missing
// directory or a file that is not SQLite, so those are checked first, with a message that says why.
const checkFile = (options: SqliteRunStoreOptions) =>
  Effect.suspend(() => {
    const { filename } = options
    const fail = (reason: RunStoreError["reason"], message: string) =>
      Effect.fail(new RunStoreError({ reason, message }))
    if (!fs.existsSync(filename)) {
      if (options.mustExist === true) {
        return fail("DbMissing", `${filename}: no such database — run \`vtree infer\` first, or pass --db with the right path`)
      }
      const dir = nodePath.dirname(nodePath.resolve(filename))
      if (!fs.existsSync(dir)) {
        return fail("DbUnreadable", `${filename}: the directory ${dir} does not exist — create it or pass another --db path`)
      }
      return Effect.void
    }
    const stat = fs.statSync(filename)
    if (!stat.isFile()) {
      return fail("DbUnreadable", `${filename}: not a file — pass --db with the path of a database file`)
    }
    if (stat.size > 0 && !hasSqliteHeader(filename)) {
      return fail("DbUnreadable", `${filename}: not an SQLite database — pass --db with a vtree database file`)
    }
    return Effect.void
  })

const sqliteMagic = Buffer.from("SQLite format 3\u0000", "latin1")

const hasSqliteHeader = (filename: string): boolean => {
  const fd = fs.openSync(filename, "r")
  try {
    const head = Buffer.alloc(sqliteMagic.length)
    const read = fs.readSync(fd, head, 0, head.length, 0)
    return read === head.length && head.equals(sqliteMagic)
  } finally {
    fs.closeSync(fd)
  }
}

const prepare = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Foreign keys drive the cascade that makes re-saving a question replace it; NORMAL sync under WAL
  // survives a killed process (only power loss can drop the last commits) at a fraction of FULL's cost.
  yield* sql`PRAGMA foreign_keys = ON`
  yield* sql`PRAGMA synchronous = NORMAL`
  yield* sql`PRAGMA busy_timeout = 5000`
  yield* migrate
})

const describeCause = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    const inner = (cause as { cause?: unknown }).cause
    if (inner instanceof Error) return inner.message
    const message = (cause as { message?: unknown }).message
    if (typeof message === "string" && message.length > 0) return message
  }
  return String(cause)
}

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

const RunRowSchema = Schema.Struct({
  runId: column("run_id", Schema.String),
  startedAt: column("started_at", Schema.Number),
  finishedAt: column("finished_at", Schema.NullOr(Schema.Number)),
  status: RunStatus,
  config: column("config_json", jsonColumn(true))
})

const RunId = column("run_id", Schema.String)
const QuestionId = column("question_id", Schema.String)

const predictionFields = {
  questionId: QuestionId,
  videoId: column("video_id", Schema.String),
  taskType: column("task_type", Schema.NullOr(Schema.String)),
  duration: Schema.NullOr(Schema.String),
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
  startedAt: column("started_at", Schema.Number),
  finishedAt: column("finished_at", Schema.Number),
  replyShapes: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Number })).pipe(
    Schema.propertySignature,
    Schema.fromKey("reply_shapes_json")
  )
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
  replyShapes: column("reply_shapes", ShapeList)
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
  status: Schema.Literal("ok", "error"),
  errorReason: column("error_reason", Schema.NullOr(ProviderErrorReason))
}
// Which replica served the call; NULL for calls stored before it was recorded, and for local fakes.
const CallRowSchema = Schema.Struct({
  callId: column("call_id", Schema.Number),
  ...callFields,
  endpoint: Schema.optionalWith(Schema.String, { nullable: true, exact: true })
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

    // Both failures end as one `Sql` error a person reads; a row that does not decode was written by
    // something other than this store.
    const failed = (what: string) => ({
      SqlError: (error: SqlError) =>
        Effect.fail(new RunStoreError({ reason: "Sql", message: `${filename}: ${what} failed: ${describeCause(error)}` })),
      ParseError: (error: ParseResult.ParseError) =>
        Effect.fail(
          new RunStoreError({
            reason: "Sql",
            message: `${filename}: ${what} failed: a stored row does not match (${issueLine(firstDecodeIssue(error))}) — ` +
              `the database was not written by this version of vtree; pass --db with another path`
          })
        )
    })

    const findRun = SqlSchema.findOne({
      Request: Schema.String,
      Result: RunRowSchema,
      execute: (runId) => sql`SELECT * FROM runs WHERE run_id = ${runId}`
    })
    const allRuns = SqlSchema.findAll({
      Request: Schema.Void,
      Result: RunRowSchema,
      execute: () => sql`SELECT * FROM runs ORDER BY started_at DESC, run_id DESC`
    })
    const insertRun = SqlSchema.void({
      Request: RunRowSchema,
      execute: (row) => sql`INSERT INTO runs ${sql.insert(row)}`
    })
    const reopenRun = SqlSchema.findOne({
      Request: Schema.String,
      Result: RunRowSchema,
      execute: (runId) => sql`UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ${runId} RETURNING *`
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
    const insertPrediction = SqlSchema.void({
      Request: PredictionInsert,
      execute: (row) => sql`INSERT INTO predictions ${sql.insert(row)}`
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

    const insertCalls = (runId: string, questionId: (call: CallRecord) => string | null, calls: ReadonlyArray<CallRecord>) =>
      insertCallRows(calls.map((call) => ({
        ...call,
        runId,
        questionId: questionId(call),
        endpoint: call.endpoint ?? null,
        startedAt: Math.round(call.startedAt),
        durationMs: Math.round(call.durationMs)
      })))

    const startRun: RunStoreShape["startRun"] = Effect.fn("RunStore.startRun")(function*(input) {
      const startedAt = input.startedAt ?? (yield* Clock.currentTimeMillis)
      if (Option.isSome(yield* findRun(input.runId))) {
        return yield* new RunStoreError({
          reason: "RunExists",
          message: `${filename}: run "${input.runId}" already exists — pass --resume to continue it, or another --run-id`
        })
      }
      const run: RunRow = {
        runId: input.runId,
        startedAt,
        finishedAt: null,
        status: "running",
        config: toJsonValue(input.config, true)
      }
      yield* insertRun(run)
      return run
    }, Effect.catchTags(failed("starting the run")))

    const resumeRun: RunStoreShape["resumeRun"] = Effect.fn("RunStore.resumeRun")(function*(runId) {
      const run = yield* reopenRun(runId)
      return Option.isSome(run) ? run.value : yield* notFound(runId)
    }, Effect.catchTags(failed("resuming the run")))

    const finishRun: RunStoreShape["finishRun"] = Effect.fn("RunStore.finishRun")(function*(runId, status, finishedAt) {
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      if (Option.isNone(yield* closeRun({ runId, status, at }))) return yield* notFound(runId)
    }, Effect.catchTags(failed("finishing the run")))

    const finishedQuestionIds: RunStoreShape["finishedQuestionIds"] = Effect.fn("RunStore.finishedQuestionIds")(
      function*(runId, options) {
        const rows = yield* questionIds({ runId, exceptErrors: options?.exceptErrors === true })
        return new Set(rows.map((row) => row.questionId))
      },
      Effect.catchTags(failed("reading finished questions"))
    )

    const saveQuestion: RunStoreShape["saveQuestion"] = Effect.fn("RunStore.saveQuestion")(
      function*(runId, record) {
        const p = record.prediction
        const write = Effect.gen(function*() {
          // The cascade removes the earlier steps and calls of this question along with its prediction.
          yield* sql`DELETE FROM predictions WHERE run_id = ${runId} AND question_id = ${p.questionId}`
          yield* insertPrediction({
            ...p,
            runId,
            startedAt: Math.round(p.startedAt),
            finishedAt: Math.round(p.finishedAt),
            replyShapes: p.replyShapes ?? {}
          })
          yield* insertSteps(record.steps.map((step) => ({ ...step, runId, questionId: p.questionId, replyShapes: step.replyShapes ?? [] })))
          yield* insertCalls(runId, () => p.questionId, record.calls)
        })
        // Uninterruptible: a question that finished while Ctrl-C arrives is still kept whole.
        yield* Effect.uninterruptible(sql.withTransaction(write))
      },
      (effect, runId, record) =>
        Effect.catchTags(effect, failed(`saving question "${record.prediction.questionId}" of run "${runId}"`))
    )

    const saveRunCalls: RunStoreShape["saveRunCalls"] = Effect.fn("RunStore.saveRunCalls")(
      function*(runId, calls) {
        yield* Effect.uninterruptible(sql.withTransaction(insertCalls(runId, () => null, calls)))
      },
      Effect.catchTags(failed("saving run-level calls"))
    )

    const getRun: RunStoreShape["getRun"] = Effect.fn("RunStore.getRun")(
      function*(runId) {
        return yield* findRun(runId)
      },
      Effect.catchTags(failed("reading the run"))
    )

    const listRuns: RunStoreShape["listRuns"] = allRuns(undefined).pipe(
      Effect.catchTags(failed("listing runs")),
      Effect.withSpan("RunStore.listRuns")
    )

    const loadRun: RunStoreShape["loadRun"] = Effect.fn("RunStore.loadRun")(
      function*(runId, options) {
        const run = yield* findRun(runId)
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
      Effect.catchTags(failed("loading the run"))
    )

    return RunStore.of({
      startRun,
      resumeRun,
      finishRun,
      finishedQuestionIds,
      saveQuestion,
      saveRunCalls,
      getRun,
      listRuns,
      loadRun
    })
  })
