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

/**
 * A run's status as read: the stored one, or `stale` — a `running` run whose owner's lease has
 * expired (the process died without closing it). Derived at read time, never stored.
 */
export type RunState = RunStatus | "stale"

/**
 * Who may write a run. A process claims a run before it asks questions, renews the claim (heartbeat)
 * while it works and releases it when the run ends; every write is fenced by the claim, so a process
 * that lost its claim (paused past its expiry, then taken over) can no longer write. The SQLite store
 * grants one live claim per run: a lease. A store shared by many machines may grant several claims
 * per run, each over its own questions; callers follow the same contract either way.
 */
export interface RunOwner {
  /** `<host>:<pid>:<random>`: names the process for people, unique across restarts. */
  readonly ownerId: string
  readonly host: string
  readonly pid: number
}

/** How long a claim lasts without a heartbeat unless the caller says otherwise. */
export const defaultLeaseMs = 60_000

/** A live or expired claim on a run, as stored. Times are epoch milliseconds. */
export interface RunClaim {
  readonly ownerId: string
  readonly host: string
  readonly pid: number
  readonly claimedAt: number
  readonly heartbeatAt: number
  readonly expiresAt: number
}

/**
 * Which questions a run asks: the question file's identity and the filters, as given when the run
 * started. `--resume` asks the same set or refuses.
 */
export interface RunSelection {
  /** The question file or folder, resolved to an absolute path. */
  readonly questionsPath: string
  /** sha256 of the question file (or of the folder's files, by name): the file's identity. */
  readonly questionsSha256: string
  readonly videoIds: ReadonlyArray<string> | null
  readonly questionIds: ReadonlyArray<string> | null
  readonly taskTypes: ReadonlyArray<string> | null
  /** `--n-samples`: the first N selected questions in file order (deterministic, no seed). */
  readonly nSamples: number | null
  /** How many questions the selection held, and the sha256 of their ids in order. */
  readonly count: number
  readonly idsSha256: string
}

/** A row of `runs`. `config` is the parsed config_json (secrets stripped before it was written). */
export interface RunRow {
  readonly runId: string
  readonly startedAt: number
  readonly finishedAt: number | null
  /** See RunState: `stale` is derived from `claim` when the run is read. */
  readonly status: RunState
  readonly config: unknown
  /** The run's question set; null for runs written before vtree stored it. */
  readonly selection?: RunSelection | null
  /** The current (possibly expired) claim; null when nobody holds the run. */
  readonly claim?: RunClaim | null
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
  /** Summed over the question's calls that reported them; absent when none did. */
  readonly cachedPromptTokens?: number
  readonly reasoningTokens?: number
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

/**
 * A row of `llm_calls`; `callId` is assigned by the store, increasing in write order. `superseded`
 * marks the calls of an earlier attempt at a question that was asked again (`--retry-errors`): kept,
 * because tokens reported are tokens spent.
 */
export interface CallRow extends CallRecord {
  readonly callId: number
  readonly superseded?: boolean
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

export const RunStoreErrorReason = Schema.Literal(
  "DbMissing",
  "DbUnreadable",
  /** The file is SQLite but not a vtree database (refused, never migrated). */
  "DbForeign",
  /** Written by a newer vtree: its schema has migrations this one does not know. */
  "DbTooNew",
  /** The database file is damaged or truncated. */
  "DbCorrupt",
  /** The database or its folder cannot be written (read-only mount, permissions). */
  "DbReadOnly",
  /** The disk (or the database's size limit) is full. */
  "DiskFull",
  "RunExists",
  "RunNotFound",
  /** Another process holds a live claim on the run. */
  "RunLeased",
  /** This process's claim expired and another owner took the run over: it must stop writing. */
  "ClaimLost",
  "Sql"
)
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
    readonly selection?: RunSelection
    /** When given, the run is created claimed by this owner for `leaseMs`. */
    readonly owner?: RunOwner
    readonly leaseMs?: number
  }) => Effect.Effect<RunRow, RunStoreError>
  /**
   * For `--resume`: claims the run for `owner` (for `leaseMs`) and sets it back to `running`, in one
   * atomic step, so of two processes resuming at once exactly one gets it. Fails with `RunLeased`
   * (naming the holder and when its lease expires) while another owner's claim is live; an expired
   * claim (a `stale` run) is taken over. `RunNotFound` when absent.
   */
  readonly claimRun: (input: {
    readonly runId: string
    readonly owner: RunOwner
    readonly leaseMs: number
  }) => Effect.Effect<RunRow, RunStoreError>
  /** Heartbeat: extends the owner's claim by `leaseMs`; `ClaimLost` when another owner holds it now. */
  readonly renewClaim: (runId: string, ownerId: string, leaseMs: number) => Effect.Effect<RunClaim, RunStoreError>
  /**
   * Marks the run finished and drops the owner's claim in one step; `ClaimLost` (and nothing
   * written) when another owner took the run over meanwhile.
   */
  readonly releaseRun: (
    runId: string,
    ownerId: string,
    status: Exclude<RunStatus, "running">,
    finishedAt?: number
  ) => Effect.Effect<void, RunStoreError>
  /** Marks a run finished without regard to claims: for tools and tests; the harness uses releaseRun. */
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
   * question again replaces its earlier prediction and steps, so a question is never there twice; its
   * earlier calls stay, marked superseded, so token totals count every call made. With `ownerId`,
   * the write is fenced: `ClaimLost`, and nothing written, unless that owner holds the run's claim.
   */
  readonly saveQuestion: (
    runId: string,
    record: QuestionRecord,
    options?: { readonly ownerId?: string }
  ) => Effect.Effect<void, RunStoreError>
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
