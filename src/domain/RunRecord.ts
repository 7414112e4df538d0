// The records of a run as the run store keeps them: the run, its owners' claims, its question queue,
// and what each question left behind (prediction, steps, calls). These schemas are the port's side
// (src/services/RunStore.ts takes its types from them); the SQL store's row models
// (src/layers/sql/Rows.ts) add only how a column is stored: JSON text, 0/1 flags, NULL.
import { Schema, Struct } from "effect"
import { CallRole } from "./CallRole.js"
import { StepRecord, StopReason } from "./Prediction.js"
import { ReplyShape } from "./Protocol.js"
import { ProviderErrorReason } from "./ProviderError.js"
import { BenchmarkFacts } from "./Question.js"
import { StoredRunConfig } from "./RunConfig.js"

/** `budget_stopped`: `infer --max-cost` stopped starting questions; `--resume` with a higher cap continues. */
export const RunStatus = Schema.Literal("running", "completed", "interrupted", "failed", "budget_stopped")
export type RunStatus = typeof RunStatus.Type

/**
 * A run's status as read: the stored one, or `stale` — a `running` run whose owner's lease has
 * expired (the process died without closing it). Derived at read time, never stored.
 */
export const RunState = Schema.Union(RunStatus, Schema.Literal("stale"))
export type RunState = typeof RunState.Type

/** A live or expired claim on a run, as stored. Times are epoch milliseconds. */
export const RunClaim = Schema.Struct({
  /** `<host>:<pid>:<random>`: names the process for people, unique across restarts. */
  ownerId: Schema.String,
  host: Schema.String,
  pid: Schema.Number,
  claimedAt: Schema.Number,
  heartbeatAt: Schema.Number,
  expiresAt: Schema.Number
})
export type RunClaim = typeof RunClaim.Type

/**
 * Which questions a run asks: the question file's identity and the filters, as given when the run
 * started. `--resume` asks the same set or refuses.
 */
export const RunSelection = Schema.Struct({
  /** The question file or folder, resolved to an absolute path. */
  questionsPath: Schema.String,
  /** sha256 of the question file (or of the folder's files, by name): the file's identity. */
  questionsSha256: Schema.String,
  videoIds: Schema.NullOr(Schema.Array(Schema.String)),
  questionIds: Schema.NullOr(Schema.Array(Schema.String)),
  taskTypes: Schema.NullOr(Schema.Array(Schema.String)),
  /** `--n-samples`: the first N selected questions in file order (deterministic, no seed). */
  nSamples: Schema.NullOr(Schema.Number),
  /** How many questions the selection held, and the sha256 of their ids in order. */
  count: Schema.Number,
  idsSha256: Schema.String
})
export type RunSelection = typeof RunSelection.Type

/**
 * Where a run's question queue stands: `done` saved, `claimed` held by a live owner and not yet saved,
 * the rest open (never claimed, or claimed by an owner whose lease expired).
 */
export const RunProgress = Schema.Struct({
  total: Schema.Number,
  done: Schema.Number,
  claimed: Schema.Number
})
export type RunProgress = typeof RunProgress.Type

/** A row of `runs`. `config` is config_json decoded (secrets stripped before it was written): see RunConfig.ts. */
export const RunRow = Schema.Struct({
  runId: Schema.String,
  startedAt: Schema.Number,
  finishedAt: Schema.NullOr(Schema.Number),
  /** See RunState: `stale` is derived from `claim` when the run is read. */
  status: RunState,
  config: StoredRunConfig,
  /** The run's question set; null for runs written before vtree stored it. */
  selection: Schema.optionalWith(Schema.NullOr(RunSelection), { exact: true }),
  /**
   * The claim that speaks for the run: the live one heard from last, else the newest expired one;
   * null when nobody holds the run.
   */
  claim: Schema.optionalWith(Schema.NullOr(RunClaim), { exact: true }),
  /** Every owner's claim row, live and expired, newest heartbeat first. */
  claims: Schema.optionalWith(Schema.Array(RunClaim), { exact: true }),
  /** The question queue; null when the run has none (written before vtree kept one). */
  progress: Schema.optionalWith(Schema.NullOr(RunProgress), { exact: true })
})
export type RunRow = typeof RunRow.Type

/**
 * What a run's saved predictions amount to, counted in the store (for `vtree runs`, without loading the
 * rows): saved questions, the keyed ones among them, the keyed ones answered right, and when the last
 * was saved (null when none was).
 */
export const RunTally = Schema.Struct({
  runId: Schema.String,
  saved: Schema.Number,
  keyed: Schema.Number,
  correct: Schema.Number,
  lastSavedAt: Schema.NullOr(Schema.Number)
})
export type RunTally = typeof RunTally.Type

/** Steps per reply shape: how the parser read the agent's replies. */
export const ReplyShapeCounts = Schema.partialWith(Schema.Record({ key: ReplyShape, value: Schema.Number }), {
  exact: true
})

/** A row of `predictions`. Times are epoch milliseconds. */
export const PredictionRow = Schema.Struct({
  questionId: Schema.String,
  videoId: Schema.String,
  taskType: Schema.NullOr(Schema.String),
  duration: Schema.NullOr(Schema.String),
  /** Video-MME's domain (Knowledge, Sports, …); absent or null when the question set has none. */
  domain: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  question: Schema.String,
  options: Schema.Array(Schema.String),
  /** The ground-truth letter; null when the question set carries none. */
  answer: Schema.NullOr(Schema.String),
  /** The normalized option letter; null when the agent's answer could not be parsed (counted wrong). */
  prediction: Schema.NullOr(Schema.String),
  /** The agent's submitted answer as written, whole (free text for open-ended questions); absent on old rows. */
  answerText: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  correct: Schema.Boolean,
  evidence: Schema.NullOr(Schema.String),
  reasoning: Schema.NullOr(Schema.String),
  stepsUsed: Schema.Number,
  stopReason: StopReason,
  /**
   * The prediction came from the final-answer call after the step budget was spent (`infer` without
   * `--no-final-answer`): reports count such answers apart. Absent for rows written before it was kept.
   */
  forced: Schema.optionalWith(Schema.Boolean, { exact: true }),
  error: Schema.NullOr(Schema.String),
  promptTokens: Schema.Number,
  completionTokens: Schema.Number,
  /** Summed over the question's calls that reported them; absent when none did. */
  cachedPromptTokens: Schema.optionalWith(Schema.Number, { exact: true }),
  reasoningTokens: Schema.optionalWith(Schema.Number, { exact: true }),
  startedAt: Schema.Number,
  finishedAt: Schema.Number,
  /** Steps per reply shape; {} for rows written before. */
  replyShapes: Schema.optionalWith(ReplyShapeCounts, { exact: true }),
  /** The owner (`host:pid:random`) that answered it; null when written without an owner. */
  worker: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  /**
   * The question's benchmark, categories and original row, for its benchmark's report and export;
   * absent or null for rows written before vtree kept them (read as Video-MME).
   */
  benchmark: Schema.optionalWith(Schema.NullOr(BenchmarkFacts), { exact: true })
})
export type PredictionRow = typeof PredictionRow.Type

/**
 * A step as the harness hands it over: the agent's StepRecord numbered by `step`, without the raw
 * reply. The question id comes from the prediction it is saved with.
 */
export const StepInput = Schema.Struct({
  step: Schema.Number,
  ...Struct.omit(StepRecord.fields, "index", "raw")
})
export type StepInput = typeof StepInput.Type

/** A row of `steps`. */
export const StepRow = Schema.Struct({ questionId: Schema.String, ...StepInput.fields })
export type StepRow = typeof StepRow.Type

/**
 * A row of `llm_calls`: one provider call (see CallLog's CallRecord) with the question and step it
 * served. `callId` is assigned by the store, increasing in write order. `superseded` marks the calls
 * of an earlier attempt at a question that was asked again (`--retry-errors`): kept, because tokens
 * reported are tokens spent.
 */
export const CallRow = Schema.Struct({
  callId: Schema.Number,
  questionId: Schema.NullOr(Schema.String),
  parentStep: Schema.NullOr(Schema.Number),
  role: CallRole,
  model: Schema.String,
  startedAt: Schema.Number,
  durationMs: Schema.Number,
  promptTokens: Schema.Number,
  completionTokens: Schema.Number,
  /** Of promptTokens, those served from the endpoint's prefix cache; absent when it did not say. */
  cachedPromptTokens: Schema.optionalWith(Schema.Number, { exact: true }),
  /** Of completionTokens, those spent thinking; absent when the endpoint did not say. */
  reasoningTokens: Schema.optionalWith(Schema.Number, { exact: true }),
  status: Schema.Literal("ok", "error"),
  errorReason: Schema.NullOr(ProviderErrorReason),
  /** Which replica served the call; absent for calls stored before it was recorded, and for local fakes. */
  endpoint: Schema.optionalWith(Schema.String, { exact: true }),
  /** Attempts the call made, retries included; absent for calls stored before it was recorded, and for fakes. */
  attempts: Schema.optionalWith(Schema.Number, { exact: true }),
  superseded: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type CallRow = typeof CallRow.Type
