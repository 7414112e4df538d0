import type { ReplyShape, ReplyShapeCounts } from "../domain/Protocol.js"
// The run store port: what the harness writes while a benchmark runs and what `vtree report` reads.
// Only types and the Tag live here; the SQLite adapter is src/layers/sqlite/SqliteRunStore.ts.
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"
import type { StopReason } from "../domain/Prediction.js"
import type { CallRecord } from "./CallLog.js"

export type { StopReason } from "../domain/Prediction.js"

/** `budget_stopped`: `infer --max-cost` stopped starting questions; `--resume` with a higher cap continues. */
export const RunStatus = Schema.Literal("running", "completed", "interrupted", "failed", "budget_stopped")
export type RunStatus = typeof RunStatus.Type

/** A row of `runs`. `config` is the parsed config_json (secrets stripped before it was written). */
export interface RunRow {
  readonly runId: string
  readonly startedAt: number
  readonly finishedAt: number | null
  readonly status: RunStatus
  readonly config: unknown
}

/** A row of `predictions`. Times are epoch milliseconds. */
export interface PredictionRow {
  readonly questionId: string
  readonly videoId: string
  readonly taskType: string | null
  readonly duration: string | null
  /** Video-MME's domain (Knowledge, Sports, …); absent or null when the question set has none. */
  readonly domain?: string | null
  readonly question: string
  readonly options: ReadonlyArray<string>
  /** The ground-truth letter; null when the question set carries none. */
  readonly answer: string | null
  /** The normalized option letter; null when the agent's answer could not be parsed (counted wrong). */
  readonly prediction: string | null
  readonly correct: boolean
  readonly evidence: string | null
  readonly reasoning: string | null
  readonly stepsUsed: number
  readonly stopReason: StopReason
  readonly error: string | null
  readonly promptTokens: number
  readonly completionTokens: number
  readonly startedAt: number
  readonly finishedAt: number
  /** Steps per reply shape (how the parser read the agent's replies); {} for rows written before. */
  readonly replyShapes?: ReplyShapeCounts
}

/** A step as the harness hands it over; the question id comes from the prediction it is saved with. */
export interface StepInput {
  readonly step: number
  readonly tool: string
  readonly args: unknown
  readonly output: string
  readonly thought: string | null
  readonly reflect: unknown
  readonly plan: unknown
  readonly replyShapes?: ReadonlyArray<ReplyShape>
}

/** A row of `steps`. */
export interface StepRow extends StepInput {
  readonly questionId: string
}

/** A row of `llm_calls`; `callId` is assigned by the store, increasing in write order. */
export interface CallRow extends CallRecord {
  readonly callId: number
}

/** Everything one finished question leaves behind; written in a single transaction. */
export interface QuestionRecord {
  readonly prediction: PredictionRow
  readonly steps: ReadonlyArray<StepInput>
  /** Stored under the prediction's question id, whatever questionId the records carry. */
  readonly calls: ReadonlyArray<CallRecord>
}

/** A whole run, ordered for reading: predictions by question id, steps by step, calls by callId. */
export interface LoadedRun {
  readonly run: RunRow
  readonly predictions: ReadonlyArray<PredictionRow>
  readonly steps: ReadonlyArray<StepRow>
  readonly calls: ReadonlyArray<CallRow>
}

export const RunStoreErrorReason = Schema.Literal("DbMissing", "DbUnreadable", "RunExists", "RunNotFound", "Sql")
export type RunStoreErrorReason = typeof RunStoreErrorReason.Type

/** `message` is written for people (what failed, what to do) and is one line. */
export class RunStoreError extends Schema.TaggedError<RunStoreError>()("RunStoreError", {
  reason: RunStoreErrorReason,
  message: Schema.String
}) {}

export interface RunStoreShape {
  /**
   * Creates the run with status `running`. `config` should already be free of secrets; any `Redacted`
   * value, and any key named like a credential (apiKey, token, secret, password, authorization), is
   * dropped anyway before config_json is written. Fails with `RunExists` when the id is taken.
   */
  readonly startRun: (input: {
    readonly runId: string
    readonly config: unknown
    readonly startedAt?: number
  }) => Effect.Effect<RunRow, RunStoreError>
  /** For `--resume`: sets the run back to `running` (finished_at cleared); `RunNotFound` when absent. */
  readonly resumeRun: (runId: string) => Effect.Effect<RunRow, RunStoreError>
  readonly finishRun: (
    runId: string,
    status: Exclude<RunStatus, "running">,
    finishedAt?: number
  ) => Effect.Effect<void, RunStoreError>
  /**
   * Question ids with a saved prediction: the ones `--resume` skips. With `exceptErrors`, questions
   * that ended with stop reason `error` are left out, so `--retry-errors` asks them again.
   */
  readonly finishedQuestionIds: (
    runId: string,
    options?: { readonly exceptErrors?: boolean }
  ) => Effect.Effect<ReadonlySet<string>, RunStoreError>
  /**
   * Writes prediction, steps and calls in one transaction, uninterruptibly: all of it or none. Saving a
   * question again replaces its earlier prediction, steps and calls, so a question is never there twice.
   */
  readonly saveQuestion: (runId: string, record: QuestionRecord) => Effect.Effect<void, RunStoreError>
  /** Calls that belong to no question (e.g. embedding a tree while loading it); question_id is NULL. */
  readonly saveRunCalls: (runId: string, calls: ReadonlyArray<CallRecord>) => Effect.Effect<void, RunStoreError>
  readonly getRun: (runId: string) => Effect.Effect<Option.Option<RunRow>, RunStoreError>
  /** Newest first (by started_at). */
  readonly listRuns: Effect.Effect<ReadonlyArray<RunRow>, RunStoreError>
  /**
   * `RunNotFound` names the available run ids. `includeSteps: false` leaves `steps` empty: enough for
   * `summarize`, and far lighter on a large run (steps hold every tool output).
   */
  readonly loadRun: (
    runId: string,
    options?: { readonly includeSteps?: boolean }
  ) => Effect.Effect<LoadedRun, RunStoreError>
}

export class RunStore extends Context.Tag("vtree/RunStore")<RunStore, RunStoreShape>() {}
