// The run store port: what the harness writes while a benchmark runs and what `vtree report` reads.
// Only types and the Tag live here, the rows' schemas in src/domain/RunRecord.ts; the adapters are in
// src/layers/sql/ (sqlite/, postgres/).
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"
import type { RunConfig, StoredRunConfig } from "../domain/RunConfig.js"
import type {
  CallRow,
  PredictionRow,
  RunClaim,
  RunProgress,
  RunRow,
  RunSelection,
  RunStatus,
  RunTally,
  StepInput,
  StepRow
} from "../domain/RunRecord.js"
import type { CallRecord } from "./CallLog.js"

/**
 * Who may write a run. A process claims a run before it asks questions, renews the claim (heartbeat)
 * while it works and releases it when it is done; every write is fenced by the claim, so a process
 * that lost its claim (paused past its expiry, then taken over) can no longer write. A store grants
 * either one live claim per run (`owners: "one"`, a lease: the SQLite file) or many (`"many"`:
 * workers on several machines sharing a PostgreSQL run). Either way the questions are a work queue:
 * an owner claims a few at a time and each is saved once, by the owner that holds it.
 */
export type RunOwner = Pick<RunClaim, "ownerId" | "host" | "pid">

/** How long a claim lasts without a heartbeat unless the caller says otherwise. */
export const defaultLeaseMs = 60_000

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
  /**
   * The database changed under this process: its file was replaced or deleted, or the run's rows were
   * removed by something other than vtree. It stops writing.
   */
  "DbChanged",
  /** The database could not be reached (connection refused or lost, server restarting); see StoreOutage. */
  "DbUnreachable",
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
   * Creates the run with status `running`. `config` is a new run's RunConfig (or, importing or testing, the
   * subset an earlier version wrote); it should already be free of secrets; any `Redacted`
   * value, and any key named like a credential (apiKey, token, secret, password, authorization), is
   * dropped anyway before config_json is written. Fails with `RunExists` when the id is taken.
   */
  readonly startRun: (input: {
    readonly runId: string
    readonly config: RunConfig | typeof StoredRunConfig.Encoded
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
   * Per run with at least one saved question: how many are saved, keyed and right, counted by the
   * database (a run's rows are not loaded). A run with none saved has no tally.
   */
  readonly runTallies: Effect.Effect<ReadonlyArray<RunTally>, RunStoreError>
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
