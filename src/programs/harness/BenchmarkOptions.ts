// What `runBenchmark` takes, reports and returns, and the defaults it applies: the vocabulary the
// harness modules (planning, answering, the lease) share with progress displays and embedding apps.
import type { Effect, Schedule } from "effect"
import type { ControlKind } from "../../domain/Control.js"
import type { Prices } from "../../domain/Cost.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import type { BenchmarkFacts, BenchmarkName, Question } from "../../domain/Question.js"
import { controlDefaults, type Given, type RunConfig } from "../../domain/RunConfig.js"
import { type PredictionRow, type RunStatus } from "../../domain/RunRecord.js"
import type { RunSampling } from "../../domain/Sampling.js"
import type { RunOwner } from "../../services/RunStore.js"
import type { AgentProtocol } from "../agent/AgentLoop.js"
import type { RunQuestionOptions } from "../agent/RunQuestion.js"
import type { PromptManager, SkillMode } from "../prompts/PromptManager.js"
import type { AnchorMode } from "../tools/ToolContext.js"
import type { SelectionInput } from "./RunSelection.js"

/** Questions answered at once unless told otherwise (RunConfig's default). */
export const defaultConcurrency = controlDefaults.concurrency

/** What the harness reports while it runs, for progress displays and embedding apps. */
export type BenchmarkEvent =
  | {
    readonly _tag: "RunStarted"
    readonly runId: string
    readonly resumed: boolean
    /** Questions selected for the run, finished ones included. */
    readonly total: number
    /** Already saved by an earlier attempt of this run (skipped by `resume`). */
    readonly alreadyDone: number
  }
  | {
    readonly _tag: "QuestionFinished"
    readonly row: PredictionRow
    readonly calls: number
    /** USD of the question's calls at the run's prices; null or absent when a role it used has no price. */
    readonly costUsd?: number | null
  }
  | {
    /**
     * The run as the store has it, every worker's saves counted: sent every few seconds on a store
     * several workers share, where this worker's own QuestionFinished events are only its part.
     */
    readonly _tag: "RunProgress"
    readonly done: number
    readonly total: number
    /** Workers whose lease is live, this one included. */
    readonly workers: number
  }
  | {
    /** The run store lost its database and keeps asking (up to VTREE_DB_OUTAGE_SECONDS); cleared by the next save. */
    readonly _tag: "StoreUnreachable"
    /** The database as messages name it (no password). */
    readonly database: string
  }

export interface BenchmarkOptions<R = never> {
  /** The folder holding one `<videoID>/tree.json` per video. */
  readonly treesDir: string
  /** Already loaded and selected (loadQuestions + selectQuestions). */
  readonly questions: ReadonlyArray<Question>
  /**
   * The questions' benchmark (loadQuestionSet's), stored in the run's config; default `videomme`. With
   * `resume`, a run of another benchmark is refused.
   */
  readonly benchmark?: BenchmarkName
  /** Each question's benchmark facts by question id (loadQuestionSet's), saved with its prediction. */
  readonly benchmarkFacts?: ReadonlyMap<string, BenchmarkFacts>
  /**
   * The keys file the questions' keys came from (`--answers`), as an absolute path: stored in the run's
   * config; with `resume`, a different one (or none where the run had one) is refused.
   */
  readonly answers?: string
  readonly prompts: PromptManager
  /** Default: a new id from the start time. With `resume`: the run to continue, default the latest. */
  readonly runId?: string
  /** Continue a run: questions it already saved are skipped. */
  readonly resume?: boolean
  /** With `resume`: ask again the questions that ended with stop reason `error` (an outage, say). */
  readonly retryErrors?: boolean
  /**
   * Take over a run whose owner's lease has expired (implies `resume`); refused while the lease is
   * live. `resume` alone takes over a stale run too: the flag says so out loud.
   */
  readonly takeover?: boolean
  /**
   * Where the questions came from and how they were picked: stored with a new run; with `resume`,
   * a different selection (or the same filters over a changed file) is refused.
   */
  readonly selection?: SelectionInput
  /** Who runs the benchmark; default: this host, this pid and a random suffix. */
  readonly owner?: RunOwner
  /** How long the run's lease lasts without a heartbeat (default 60 s); heartbeats come every third of it. */
  readonly leaseMs?: number
  /** Questions answered at once; default 12. */
  readonly concurrency?: number
  readonly maxSteps?: number
  readonly skillMode?: SkillMode
  readonly verifyVision?: boolean
  readonly anchor?: AnchorMode
  readonly webSearch?: boolean
  readonly extraTools?: RunQuestionOptions<R>["extraTools"]
  /** Overrides the agent's step-level retry (20 s, then 40 s). */
  readonly retrySchedule?: Schedule.Schedule<unknown, ProviderError>
  /** How the agent calls tools: `json` (default) or `tools` (native function calling); stored with the run. */
  readonly protocol?: AgentProtocol
  /**
   * Ask for a final answer when a question's step budget is spent (see RunQuestionOptions), stored with
   * the run. Unset: on for a new run, the run's own mode with `resume`; set, a resumed run of the other
   * mode is refused.
   */
  readonly finalAnswer?: boolean
  /**
   * What each role's requests carry, as the provider layers were configured (they apply it; this records
   * it): stored with the run as `sampling`; with `resume`, a run stored with other values is refused.
   */
  readonly sampling?: RunSampling
  /**
   * What the run's record says about its question file and providers (`infer` fills it); stored with the
   * run options. Must hold no secrets (the store drops keys named like them anyway).
   */
  readonly config?: Pick<Given<RunConfig>, "questionsPath" | "selected" | "providers">
  readonly onEvent?: (event: BenchmarkEvent) => Effect.Effect<void>
  /**
   * `--max-cost`: stop starting questions once spent + the in-flight estimate would pass this many USD
   * (see Budget.ts); the run ends `budget_stopped` and `--resume` with a higher cap continues it.
   * Needs `prices`.
   */
  readonly maxCostUsd?: number
  readonly prices?: Prices
  /**
   * Stop the run (status `failed`, InferError `EndpointUnreachable`) once one role's endpoints failed this
   * many attempts in a row without being reached — refused, reset, DNS, TLS, timeouts; retries count —
   * while every replica of the role is down. Default 8 (`defaultBreakerCalls`); 0 never stops.
   */
  readonly breakerCalls?: number
  /**
   * Make the run a control (Controls.ts): `blind`, `shuffled` or `chance`; stored with the run. Unset: none for a
   * new run, the run's own with `resume`; set, a resumed run of another kind is refused.
   */
  readonly control?: ControlKind
  /** The seed of a shuffled pairing or a chance draw; default 1. */
  readonly controlSeed?: number
}

export interface BenchmarkResult {
  readonly runId: string
  /** Questions answered by this invocation. */
  readonly answered: number
  /** Questions the run had saved before this invocation joined it. */
  readonly skipped: number
  /**
   * The run's status when this invocation let go of it: `running` while other workers sharing the
   * run are still at it; absent when the store could not say.
   */
  readonly status?: RunStatus
}
