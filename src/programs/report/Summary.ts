// What a summary of a run holds: the stored rows a summary reads and the summary itself, the model that
// Report.ts computes and ReportText.ts, ReportHtml.ts and the json output render. Types only, so every
// module of the report can name them without importing the code that fills them.
import type { JudgementRow } from "../../domain/Judgement.js"
import type { Accuracy, GroupAccuracy, Outcome } from "../../domain/Outcome.js"
import type { BenchmarkName } from "../../domain/Question.js"
import type { StoredRunConfig } from "../../domain/RunConfig.js"
import type { CallRow, PredictionRow, RunRow, StepRow } from "../../domain/RunRecord.js"
import type { GroupScores } from "../benchmarks/Benchmark.js"
import type { OfficialScore } from "../benchmarks/OfficialScore.js"
import type { AnswerFormCounts } from "./ReportAnswerForms.js"
import type { ControlSummary } from "./ReportControl.js"
import type { CostDistribution } from "./ReportCostDistribution.js"
import type { ErrorSummary } from "./ReportErrors.js"
import type { EvidenceSummary } from "./ReportEvidence.js"
import type { KeywordFallbacks } from "./ReportFallbacks.js"
import type { JudgeSummary } from "./ReportJudges.js"
import type { ClusteredSummary } from "./ReportStatistics.js"
import type { RunSetting } from "./RunSettings.js"

export type ReportRun = Pick<RunRow, "runId" | "startedAt" | "finishedAt" | "status"> & {
  /** The run's record; without one, a run that recorded nothing. */
  readonly config?: StoredRunConfig
  readonly claims?: RunRow["claims"]
  readonly progress?: RunRow["progress"]
  readonly selection?: RunRow["selection"]
}
export type ReportPrediction = PredictionRow
export type ReportStep = StepRow
export type ReportCall =
  & Pick<
    CallRow,
    | "questionId"
    | "parentStep"
    | "role"
    | "model"
    | "durationMs"
    | "promptTokens"
    | "completionTokens"
    | "status"
    | "errorReason"
    | "cachedPromptTokens"
    | "reasoningTokens"
    | "attempts"
  >
  & {
    /** When the call started (epoch ms); the html timeline places calls by it. */
    readonly startedAt?: number
  }

export interface SummaryInput {
  readonly run: ReportRun
  readonly predictions: ReadonlyArray<ReportPrediction>
  readonly calls: ReadonlyArray<ReportCall>
  /** When given, the frames each question sent the vision model are counted from its observe_frame steps. */
  readonly steps?: ReadonlyArray<ReportStep>
  /** The judges' verdicts on the run's open-ended answers (`vtree judge`); none: not judged. */
  readonly judgements?: ReadonlyArray<JudgementRow>
}

export interface ReportInput extends SummaryInput {
  readonly steps: ReadonlyArray<ReportStep>
}

export interface RoleTokens {
  readonly role: string
  readonly calls: number
  readonly errors: number
  /**
   * Calls that took more than one attempt (retried, whether they then succeeded or not), over the calls
   * that recorded their attempts; null when the role made calls and none recorded them (older runs, fakes).
   */
  readonly retried: number | null
  readonly promptTokens: number
  readonly completionTokens: number
}

export interface Spread {
  readonly count: number
  readonly p50Ms: number | null
  readonly p90Ms: number | null
  readonly maxMs: number | null
}

/** One question's result, as `report --format json` lists it. */
export interface QuestionResult {
  readonly questionId: string
  readonly videoId: string
  readonly taskType: string | null
  readonly prediction: string | null
  readonly answer: string | null
  readonly outcome: Outcome
  readonly stopReason: string
  readonly steps: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** USD at the prices given; null when unknown. */
  readonly costUsd: number | null
  readonly timeMs: number
  readonly evidence: string | null
  readonly reasoning: string | null
  readonly error: string | null
  /** Its usage beside steps, tokens, cost and time (ReportCostDistribution.ts QuestionUsage). */
  readonly toolCalls: number
  readonly vlmCalls: number
  /** Images sent to the vision model; null when its steps were not read. */
  readonly framesSent: number | null
  readonly embedCalls: number
  readonly cachedPromptTokens: number | null
  readonly reasoningTokens: number | null
  /** The agent's submitted answer, whole (free text for an open-ended question); null when none was kept. */
  readonly answerText: string | null
  /** How it read (clean, extracted, invalid, empty, free), `none` without one, `unrecorded` on older rows. */
  readonly answerForm: keyof AnswerFormCounts
}

export interface Summary {
  readonly runId: string
  readonly status: string
  /**
   * What the run was run with, from its stored config (models and endpoint hosts, sampling, step budget,
   * prompt pack, skill mode, protocol, trees, question file and hash, version, prices); see RunSettings.ts.
   */
  readonly settings: ReadonlyArray<RunSetting>
  /** How the agent called tools (`vtree infer --protocol`): json or tools. */
  readonly protocol: "json" | "tools"
  /** ISO 8601. */
  readonly startedAt: string
  readonly finishedAt: string | null
  /** finished − started; for a run that never finished, up to its last saved question. */
  readonly wallTimeMs: number | null
  readonly questions: number
  /** The benchmark the run's questions came from (runs stored before it was recorded: videomme). */
  readonly benchmark: BenchmarkName
  readonly overall: Accuracy
  /**
   * The figure the benchmark's leaderboard ranks by beside the overall accuracy: MLVU's M-Avg (the mean of
   * the per-task accuracies); null elsewhere.
   */
  readonly primary: { readonly name: string; readonly value: number | null } | null
  /**
   * Accuracy per category axis, by the benchmark's own rule: Video-MME task type, duration, domain;
   * LVBench question type (a question counts in each of its types); MLVU task; LongVideoBench question
   * category and duration group; NExT-QA type and family.
   */
  readonly axes: ReadonlyArray<{ readonly axis: string; readonly groups: ReadonlyArray<GroupAccuracy> }>
  readonly byTaskType: ReadonlyArray<GroupAccuracy>
  readonly byDuration: ReadonlyArray<GroupAccuracy>
  /** Empty when no question carries a domain (rows stored before domains were kept). */
  readonly byDomain: ReadonlyArray<GroupAccuracy>
  readonly stopReasons: ReadonlyArray<{ readonly reason: string; readonly count: number }>
  /** The commonest error messages and, when questions ended in `error`, the command that asks them again. */
  readonly errors: ErrorSummary
  /**
   * Answers the final-answer call gave after a question's step budget was spent, counted apart:
   * `finalAnswer` is the run's mode (runs stored before it was recorded: off), `answers` how the forced
   * answers scored on their own, and `withoutForced` the run's accuracy had they been left unanswered,
   * as `--no-final-answer` (the reference behaviour) would have scored it.
   */
  readonly forced: {
    readonly finalAnswer: boolean
    readonly answers: Accuracy
    readonly withoutForced: Accuracy
  }
  readonly meanSteps: number | null
  readonly tokens: {
    readonly byRole: ReadonlyArray<RoleTokens>
    readonly promptTokens: number
    readonly completionTokens: number
  }
  /** USD at the prices given; null (unknown) wherever a role that used tokens has no price: never 0. */
  readonly cost: {
    readonly total: number | null
    readonly byRole: ReadonlyArray<{ readonly role: string; readonly usd: number | null }>
    /** Mean over the questions (run-level calls, such as embedding trees, are in the total only). */
    readonly perQuestionMean: number | null
    readonly byQuestion: Readonly<Record<string, number | null>>
    /** Roles that used tokens but have no price: set VTREE_<ROLE>_PRICE or add them to --prices. */
    readonly unpriced: ReadonlyArray<string>
    /**
     * False when no call recorded cached prompt tokens (older runs, or a provider that reports none): every
     * prompt token is then charged at the full input price, an upper bound.
     */
    readonly cachedTokensRecorded: boolean
  }
  /** Model-call latency per role, over every call of the run. */
  readonly latency: ReadonlyArray<{ readonly role: string } & Spread>
  /** Wall time per question, start to saved. */
  readonly questionTime: Spread & { readonly meanMs: number | null }
  /**
   * How the agent model's replies were read, over the run's counted steps: a model that wraps its JSON
   * in think tags or answers in its native tool-call shape shows here at once. Empty for runs stored
   * before replies were classified.
   */
  readonly replyShapes: {
    /** The agent model(s) the calls name. */
    readonly model: string
    readonly steps: number
    readonly shapes: ReadonlyArray<{ readonly shape: string; readonly steps: number }>
  }
  /** Cached and reasoning tokens per role, for the roles whose endpoints reported any; else empty. */
  readonly tokenDetails: ReadonlyArray<RoleTokenDetails>
  /**
   * Where the run's question queue stands (`open`: neither saved nor held by a live worker); null for
   * runs without a queue. While a run is running this is its live progress.
   */
  readonly progress:
    | { readonly total: number; readonly done: number; readonly claimed: number; readonly open: number }
    | null
  /**
   * Who answered what: one row per worker (`host:pid:random`) that saved questions or holds a claim,
   * most questions first. `live` says whether its lease runs (null when the summary had no clock).
   */
  readonly workers: ReadonlyArray<WorkerSummary>
  /** One row per saved question, in question-id order. */
  readonly perQuestion: ReadonlyArray<QuestionResult>
  /** The strict accuracy (`overall`) beside the benchmark's official score, as its released scorer counts. */
  readonly scores: { readonly strict: Accuracy; readonly official: OfficialScore }
  /** What control the run is (`vtree infer --control`), a chance control's expected accuracy; null for other runs. */
  readonly control: ControlSummary | null
  /** The overall accuracy's 95 % interval from an SE clustered by video, beside Wilson's (ReportStatistics.ts). */
  readonly clustered: ClusteredSummary
  /** Cost per question as a distribution: p50, p90, max per metric, per task type, accuracy per USD. */
  readonly costDistribution: CostDistribution
  /** Questions per form of the submitted answer (ReportAnswerForms.ts); invalid ones score as unanswered. */
  readonly answerForms: AnswerFormCounts
  /** Open-ended answers as the judges scored them (ReportJudges.ts); null when the run has none. */
  readonly judges: JudgeSummary | null
  /** Scores over groups of questions, per axis (Video-MME-v2's grouped score); absent for other benchmarks. */
  readonly groupScores?: GroupScores | undefined
  /** LongVidSearch's evidence recall and tool calls per question; null for other runs, or without their steps. */
  readonly evidence: EvidenceSummary | null
  /** Searches answered by keywords because embeddings failed (ReportFallbacks.ts); null when none did. */
  readonly keywordFallbacks?: KeywordFallbacks | null
}

export interface WorkerSummary {
  readonly worker: string
  readonly questions: number
  readonly live: boolean | null
  /** ISO 8601: its last heartbeat, for a worker that still holds a claim; else null. */
  readonly heartbeatAt: string | null
}

export interface RoleTokenDetails {
  readonly role: string
  readonly promptTokens: number
  /** Summed over the calls that reported it; null when none did ("not said" is not "none cached"). */
  readonly cachedPromptTokens: number | null
  /** cachedPromptTokens / promptTokens of the role; null when not reported or nothing was prompted. */
  readonly cachedShare: number | null
  readonly reasoningTokens: number | null
}
