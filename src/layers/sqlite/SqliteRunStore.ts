import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Chunk, Clock, Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { CallRecord } from "../../services/CallLog.js"
import { migrate } from "./Migrations.js"
import type {
  CallRow,
  LoadedRun,
  PredictionRow,
  RunRow,
  RunStatus,
  RunStoreShape,
  StepRow,
  StopReason
} from "../../services/RunStore.js"
import { RunStore, RunStoreError } from "../../services/RunStore.js"

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

interface RunRaw {
  readonly run_id: string
  readonly started_at: number
  readonly finished_at: number | null
  readonly status: RunStatus
  readonly config_json: string
}

interface PredictionRaw {
  readonly question_id: string
  readonly video_id: string
  readonly task_type: string | null
  readonly duration: string | null
  readonly question: string
  readonly options_json: string
  readonly answer: string | null
  readonly prediction: string | null
  readonly correct: number
  readonly evidence: string | null
  readonly reasoning: string | null
  readonly steps_used: number
  readonly stop_reason: StopReason
  readonly error: string | null
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly started_at: number
  readonly finished_at: number
}

interface StepRaw {
  readonly question_id: string
  readonly step: number
  readonly tool: string
  readonly args_json: string
  readonly output: string
  readonly thought: string | null
  readonly reflect_json: string
  readonly plan_json: string
}

interface CallRaw {
  readonly call_id: number
  readonly question_id: string | null
  readonly parent_step: number | null
  readonly role: CallRow["role"]
  readonly model: string
  readonly started_at: number
  readonly duration_ms: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly status: CallRow["status"]
  readonly error_reason: CallRow["errorReason"]
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const runFromRaw = (raw: RunRaw): RunRow => ({
  runId: raw.run_id,
  startedAt: raw.started_at,
  finishedAt: raw.finished_at,
  status: raw.status,
  config: parseJson(raw.config_json)
})

const predictionFromRaw = (raw: PredictionRaw): PredictionRow => {
  const options = parseJson(raw.options_json)
  return {
    questionId: raw.question_id,
    videoId: raw.video_id,
    taskType: raw.task_type,
    duration: raw.duration,
    question: raw.question,
    options: Array.isArray(options) ? options.map(String) : [],
    answer: raw.answer,
    prediction: raw.prediction,
    correct: raw.correct === 1,
    evidence: raw.evidence,
    reasoning: raw.reasoning,
    stepsUsed: raw.steps_used,
    stopReason: raw.stop_reason,
    error: raw.error,
    promptTokens: raw.prompt_tokens,
    completionTokens: raw.completion_tokens,
    startedAt: raw.started_at,
    finishedAt: raw.finished_at
  }
}

const stepFromRaw = (raw: StepRaw): StepRow => ({
  questionId: raw.question_id,
  step: raw.step,
  tool: raw.tool,
  args: parseJson(raw.args_json),
  output: raw.output,
  thought: raw.thought,
  reflect: parseJson(raw.reflect_json),
  plan: parseJson(raw.plan_json)
})

const callFromRaw = (raw: CallRaw): CallRow => ({
  callId: raw.call_id,
  questionId: raw.question_id,
  parentStep: raw.parent_step,
  role: raw.role,
  model: raw.model,
  startedAt: raw.started_at,
  durationMs: raw.duration_ms,
  promptTokens: raw.prompt_tokens,
  completionTokens: raw.completion_tokens,
  status: raw.status,
  errorReason: raw.error_reason
})

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

// Keeps each INSERT well under SQLite's bound-parameter limit.
const insertBatch = 200

const callInsertRow = (runId: string, questionId: string | null, call: CallRecord) => ({
  run_id: runId,
  question_id: questionId,
  parent_step: call.parentStep,
  role: call.role,
  model: call.model,
  started_at: Math.round(call.startedAt),
  duration_ms: Math.round(call.durationMs),
  prompt_tokens: call.promptTokens,
  completion_tokens: call.completionTokens,
  status: call.status,
  error_reason: call.errorReason
})

const make = (filename: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const sqlFailure = (what: string) => (error: SqlError) =>
      new RunStoreError({ reason: "Sql", message: `${filename}: ${what} failed: ${describeCause(error)}` })

    const fetchRun = (runId: string) =>
      sql<RunRaw>`SELECT * FROM runs WHERE run_id = ${runId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), runFromRaw))
      )

    const notFound = (runId: string) =>
      sql<{ run_id: string }>`SELECT run_id FROM runs ORDER BY started_at DESC, run_id DESC`.pipe(
        Effect.flatMap((rows) => {
          const ids = rows.map((row) => row.run_id)
          const shown = ids.slice(0, 20).join(", ")
          const more = ids.length > 20 ? ` (and ${ids.length - 20} more)` : ""
          const message = ids.length === 0
            ? `${filename}: no run "${runId}" — the database holds no runs yet; run \`vtree infer\` first`
            : `${filename}: no run "${runId}" — available: ${shown}${more}; pass one of them with --run-id`
          return Effect.fail(new RunStoreError({ reason: "RunNotFound", message }))
        })
      )

    const insertCalls = (runId: string, questionId: (call: CallRecord) => string | null, calls: ReadonlyArray<CallRecord>) =>
      Effect.forEach(
        Chunk.chunksOf(Chunk.fromIterable(calls), insertBatch),
        (batch) =>
          sql`INSERT INTO llm_calls ${sql.insert(Chunk.toArray(batch).map((call) => callInsertRow(runId, questionId(call), call)))}`,
        { discard: true }
      )

    const startRun: RunStoreShape["startRun"] = Effect.fn("RunStore.startRun")(function*(input) {
      const startedAt = input.startedAt ?? (yield* Clock.currentTimeMillis)
      const config = jsonText(input.config, true)
      const existing = yield* fetchRun(input.runId)
      if (Option.isSome(existing)) {
        return yield* new RunStoreError({
          reason: "RunExists",
          message: `${filename}: run "${input.runId}" already exists — pass --resume to continue it, or another --run-id`
        })
      }
      yield* sql`INSERT INTO runs ${
        sql.insert({ run_id: input.runId, started_at: startedAt, finished_at: null, status: "running", config_json: config })
      }`
      return { runId: input.runId, startedAt, finishedAt: null, status: "running" as const, config: JSON.parse(config) }
    }, Effect.catchTag("SqlError", sqlFailure("starting the run")))

    const resumeRun: RunStoreShape["resumeRun"] = Effect.fn("RunStore.resumeRun")(function*(runId) {
      const rows = yield* sql<RunRaw>`UPDATE runs SET status = 'running', finished_at = NULL
        WHERE run_id = ${runId} RETURNING *`
      const row = rows[0]
      if (row === undefined) return yield* notFound(runId)
      return runFromRaw(row)
    }, Effect.catchTag("SqlError", sqlFailure("resuming the run")))

    const finishRun: RunStoreShape["finishRun"] = Effect.fn("RunStore.finishRun")(function*(runId, status, finishedAt) {
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      const rows = yield* sql<{ run_id: string }>`UPDATE runs SET status = ${status}, finished_at = ${at}
        WHERE run_id = ${runId} RETURNING run_id`
      if (rows.length === 0) return yield* notFound(runId)
    }, Effect.catchTag("SqlError", sqlFailure("finishing the run")))

    const finishedQuestionIds: RunStoreShape["finishedQuestionIds"] = Effect.fn("RunStore.finishedQuestionIds")(
      function*(runId, options) {
        const rows = options?.exceptErrors === true
          ? yield* sql<{ question_id: string }>`SELECT question_id FROM predictions WHERE run_id = ${runId} AND stop_reason <> 'error'`
          : yield* sql<{ question_id: string }>`SELECT question_id FROM predictions WHERE run_id = ${runId}`
        return new Set(rows.map((row) => row.question_id))
      },
      Effect.catchTag("SqlError", sqlFailure("reading finished questions"))
    )

    const saveQuestion: RunStoreShape["saveQuestion"] = Effect.fn("RunStore.saveQuestion")(
      function*(runId, record) {
        const p = record.prediction
        const write = Effect.gen(function*() {
          // The cascade removes the earlier steps and calls of this question along with its prediction.
          yield* sql`DELETE FROM predictions WHERE run_id = ${runId} AND question_id = ${p.questionId}`
          yield* sql`INSERT INTO predictions ${
            sql.insert({
              run_id: runId,
              question_id: p.questionId,
              video_id: p.videoId,
              task_type: p.taskType,
              duration: p.duration,
              question: p.question,
              options_json: jsonText(p.options),
              answer: p.answer,
              prediction: p.prediction,
              correct: p.correct ? 1 : 0,
              evidence: p.evidence,
              reasoning: p.reasoning,
              steps_used: p.stepsUsed,
              stop_reason: p.stopReason,
              error: p.error,
              prompt_tokens: p.promptTokens,
              completion_tokens: p.completionTokens,
              started_at: Math.round(p.startedAt),
              finished_at: Math.round(p.finishedAt)
            })
          }`
          yield* Effect.forEach(
            Chunk.chunksOf(Chunk.fromIterable(record.steps), insertBatch),
            (batch) =>
              sql`INSERT INTO steps ${
                sql.insert(Chunk.toArray(batch).map((s) => ({
                  run_id: runId,
                  question_id: p.questionId,
                  step: s.step,
                  tool: s.tool,
                  args_json: jsonText(s.args),
                  output: s.output,
                  thought: s.thought,
                  reflect_json: jsonText(s.reflect),
                  plan_json: jsonText(s.plan)
                })))
              }`,
            { discard: true }
          )
          yield* insertCalls(runId, () => p.questionId, record.calls)
        })
        // Uninterruptible: a question that finished while Ctrl-C arrives is still kept whole.
        yield* Effect.uninterruptible(sql.withTransaction(write))
      },
      (effect, runId, record) =>
        Effect.catchTag(effect, "SqlError", sqlFailure(`saving question "${record.prediction.questionId}" of run "${runId}"`))
    )

    const saveRunCalls: RunStoreShape["saveRunCalls"] = Effect.fn("RunStore.saveRunCalls")(
      function*(runId, calls) {
        yield* Effect.uninterruptible(sql.withTransaction(insertCalls(runId, () => null, calls)))
      },
      Effect.catchTag("SqlError", sqlFailure("saving run-level calls"))
    )

    const getRun: RunStoreShape["getRun"] = Effect.fn("RunStore.getRun")(
      function*(runId) {
        return yield* fetchRun(runId)
      },
      Effect.catchTag("SqlError", sqlFailure("reading the run"))
    )

    const listRuns: RunStoreShape["listRuns"] = sql<RunRaw>`SELECT * FROM runs ORDER BY started_at DESC, run_id DESC`.pipe(
      Effect.map((rows) => rows.map(runFromRaw)),
      Effect.catchTag("SqlError", sqlFailure("listing runs")),
      Effect.withSpan("RunStore.listRuns")
    )

    const loadRun: RunStoreShape["loadRun"] = Effect.fn("RunStore.loadRun")(
      function*(runId, options) {
        const run = yield* fetchRun(runId)
        if (Option.isNone(run)) return yield* notFound(runId)
        // One read transaction, so a run being written meanwhile is seen at a single point in time.
        return yield* sql.withTransaction(Effect.gen(function*() {
          const predictions = yield* sql<PredictionRaw>`SELECT * FROM predictions WHERE run_id = ${runId}
            ORDER BY question_id`
          const steps = options?.includeSteps === false
            ? []
            : yield* sql<StepRaw>`SELECT * FROM steps WHERE run_id = ${runId} ORDER BY question_id, step`
          const calls = yield* sql<CallRaw>`SELECT * FROM llm_calls WHERE run_id = ${runId} ORDER BY call_id`
          const loaded: LoadedRun = {
            run: run.value,
            predictions: predictions.map(predictionFromRaw),
            steps: steps.map(stepFromRaw),
            calls: calls.map(callFromRaw)
          }
          return loaded
        }))
      },
      Effect.catchTag("SqlError", sqlFailure("loading the run"))
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
