import type { ReplyShape, ReplyShapeCounts } from "../domain/Protocol.js"
// The run store port: what the harness writes while a benchmark runs and what `vtree report` reads.
// Only types and the Tag live here; the adapters are in src/layers/sql/ (sqlite/, postgres/).
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
 * while it works and releases it when it is done; every write is fenced by the claim, so a process
 * that lost its claim (paused past its expiry, then taken over) can no longer write. A store grants
 * either one live claim per run (`owners: "one"`, a lease: the SQLite file) or many (`"many"`:
 * workers on several machines sharing a PostgreSQL run). Either way the questions are a work queue:
 * an owner claims a few at a time and each is saved once, by the owner that holds it.
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

/**
 * Where a run's question queue stands: `done` saved, `claimed` held by a live owner and not yet saved,
 * the rest open (never claimed, or claimed by an owner whose lease expired).
 */
export interface RunProgress {
  readonly total: number
  readonly done: number
  readonly claimed: number
}

/** What a claim of questions got: ids in file order; when none, how many other live owners still hold. */
export interface QuestionClaim {
  readonly questionIds: ReadonlyArray<string>
  /**
   * When nothing was claimable: the questions not done that other owners with live leases hold (wait
   * for them: their owner may die). 0 when questions were handed out.
   */
  readonly heldByOthers: number
}

/** `taken`: another owner claimed the question after this one's lease lapsed, and answers it. */
export type SaveOutcome = "saved" | "taken"

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
  /**
   * The claim that speaks for the run: the live one heard from last, else the newest expired one;
   * null when nobody holds the run.
   */
  readonly claim?: RunClaim | null
  /** Every owner's claim row, live and expired, newest heartbeat first. */
  readonly claims?: ReadonlyArray<RunClaim>
  /** The question queue; null when the run has none (written before vtree kept one). */
  readonly progress?: RunProgress | null
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
  /** The owner (`host:pid:random`) that answered it; null when written without an owner. */
  readonly worker?: string | null
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
  /** How many live claims a run may have: one (a lease; the SQLite file) or many (shared workers). */
  readonly owners: "one" | "many"
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
   * For `--resume`, or to join a shared run: claims the run for `owner` (for `leaseMs`) and sets it
   * back to `running`, in one atomic step (a `completed` run with no open question stays as it is). With `owners: "one"`, of two processes claiming at once
   * exactly one gets it, and the claim fails with `RunLeased` (naming the holder and when its lease
   * expires) while another owner's is live; with `"many"` every claimant joins. Expired claims (of
   * owners that died) are dropped, and their questions become claimable. `RunNotFound` when absent.
   */
  readonly claimRun: (input: {
    readonly runId: string
    readonly owner: RunOwner
    readonly leaseMs: number
  }) => Effect.Effect<RunRow, RunStoreError>
  /** Heartbeat: extends the owner's claim by `leaseMs`; `ClaimLost` when the claim was dropped (taken over). */
  readonly renewClaim: (runId: string, ownerId: string, leaseMs: number) => Effect.Effect<RunClaim, RunStoreError>
  /**
   * Drops the owner's claim, hands its unsaved questions back to the queue, and marks the run
   * finished, in one step: `completed` when every question of its queue is saved, else `status`
   * once no other owner's claim is live. A run already finished keeps its status and time. Returns
   * the run's status after it: `running` while other owners work on. `ClaimLost` (and nothing
   * written) when the owner's claim was dropped meanwhile.
   */
  readonly releaseRun: (
    runId: string,
    ownerId: string,
    status: Exclude<RunStatus, "running">,
    finishedAt?: number
  ) => Effect.Effect<RunStatus, RunStoreError>
  /**
   * Fixes the run's question set as its work queue (file order): ids not yet in it are added, done
   * when the run saved them already. With `retryErrors`, questions saved with stop reason `error`
   * are opened again, and a `completed` run with open questions is `running` again. Idempotent: every
   * owner joining the run calls it with the same ids.
   */
  readonly planQuestions: (
    runId: string,
    questionIds: ReadonlyArray<string>,
    options?: { readonly retryErrors?: boolean }
  ) => Effect.Effect<RunProgress, RunStoreError>
  /**
   * Claims up to `limit` open questions for `ownerId`, first in file order: never claimed, or held
   * by an owner whose lease expired. Two owners never get the same question (row locks skipped on
   * PostgreSQL, the write lock on SQLite). `ClaimLost` when the owner's claim was dropped.
   */
  readonly claimQuestions: (
    runId: string,
    ownerId: string,
    limit: number
  ) => Effect.Effect<QuestionClaim, RunStoreError>
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
   * earlier calls stay, marked superseded, so token totals count every call made. The question is
   * marked done in the queue. With `ownerId`, the write is fenced: `ClaimLost`, and nothing written,
   * unless that owner holds a claim on the run; `taken`, with only its calls kept (superseded, as
   * run-level calls), when another owner claimed the question meanwhile and will save it.
   */
  readonly saveQuestion: (
    runId: string,
    record: QuestionRecord,
    options?: { readonly ownerId?: string }
  ) => Effect.Effect<SaveOutcome, RunStoreError>
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
