// What a run amounts to: pure functions from stored rows to a summary (ReportText.ts renders it as text
// or JSON, ReportHtml.ts as a page). The inputs are the store's row shapes (only the fields a summary
// reads), so any LoadedRun fits. `vtree infer` prints `renderText(summarize(…))`.
import type { BenchmarkName } from "../../domain/Question.js"
import { type CallRow, type PredictionRow, type RunRow, type StepRow } from "../../domain/RunRecord.js"
import { callRoles } from "../../domain/RunRecord.js"
import { costOfCalls, type Prices, unpricedRoles } from "./Cost.js"
import { benchmarkView } from "./ReportAxes.js"
import { errorsOf, type ErrorSummary } from "./ReportErrors.js"
import { workersOf, type WorkerSummary } from "./ReportWorkers.js"
import { benchmarkOfRun, runFinalAnswer, runProtocol } from "./RunProtocol.js"
import { type RunSetting, runSettings } from "./RunSettings.js"
import { type Interval, quantile, wilsonInterval } from "./Stats.js"

// Also here, where the CLI imports them from.

export type ReportRun = Pick<RunRow, "runId" | "startedAt" | "finishedAt" | "status"> & {
  readonly config?: unknown
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
}

export interface ReportInput extends SummaryInput {
  readonly steps: ReadonlyArray<ReportStep>
}

/**
 * Every question ends in exactly one outcome: correct, wrong (an option letter that is not the key),
 * unanswered (no option letter could be read), or unscored (the question has no key: a test split,
 * EgoSchema outside its subset). Accuracy is correct / total over the keyed questions: an unanswered
 * question earns nothing and stays in the denominator (Video-MME's own script drops it), counted apart
 * from wrong; an unscored one is counted apart from both.
 */
export interface Accuracy {
  readonly correct: number
  readonly wrong: number
  readonly unanswered: number
  /** correct + wrong + unanswered: the keyed questions, the accuracy's denominator. */
  readonly total: number
  /** Questions without a key: run and exported, never scored. */
  readonly unscored: number
  /** correct / total, or null when there is nothing to divide. */
  readonly accuracy: number | null
  /** The 95 % Wilson score interval of the accuracy; null when there is nothing to divide. */
  readonly interval: Interval | null
}

export interface GroupAccuracy extends Accuracy {
  readonly key: string
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
}

/** Shown for a question with no task type or duration. */
export const noGroup = "(none)"

const knownRoles: ReadonlyArray<string> = callRoles
const knownStopReasons = ["finished", "budget_exceeded", "parse_error", "error"]
export const durationOrder = ["short", "medium", "long"]

export type Outcome = "correct" | "wrong" | "unanswered" | "unscored"

// Without a key nothing can be right or wrong; a null prediction is unanswered whatever the stored flag says.
export const outcomeOf = (p: Pick<ReportPrediction, "answer" | "prediction" | "correct">): Outcome =>
  p.answer === null ? "unscored" : p.prediction === null ? "unanswered" : p.correct ? "correct" : "wrong"

interface Tally {
  correct: number
  wrong: number
  unanswered: number
  unscored: number
}

const emptyTally = (): Tally => ({ correct: 0, wrong: 0, unanswered: 0, unscored: 0 })

const accuracyOf = (tally: Tally): Accuracy => {
  const total = tally.correct + tally.wrong + tally.unanswered
  return {
    ...tally,
    total,
    accuracy: total === 0 ? null : tally.correct / total,
    interval: wilsonInterval(tally.correct, total)
  }
}

/** Accuracy of any subset of predictions, with its interval. */
export const accuracyOfPredictions = (predictions: ReadonlyArray<ReportPrediction>): Accuracy => {
  const tally = emptyTally()
  for (const p of predictions) tally[outcomeOf(p)] += 1
  return accuracyOf(tally)
}

export const rankBy = (order: ReadonlyArray<string>) => (a: string, b: string): number => {
  const ra = order.indexOf(a)
  const rb = order.indexOf(b)
  if (ra !== -1 || rb !== -1) return (ra === -1 ? order.length : ra) - (rb === -1 ? order.length : rb)
  if (a === noGroup || b === noGroup) return a === noGroup ? 1 : -1
  return a < b ? -1 : a > b ? 1 : 0
}

export const groupAccuracy = (
  predictions: ReadonlyArray<ReportPrediction>,
  keyOf: (p: ReportPrediction) => string | null,
  order: ReadonlyArray<string>
): ReadonlyArray<GroupAccuracy> => {
  const groups = new Map<string, Tally>()
  for (const p of predictions) {
    const key = keyOf(p) ?? noGroup
    const group = groups.get(key) ?? emptyTally()
    group[outcomeOf(p)] += 1
    groups.set(key, group)
  }
  return [...groups.keys()].sort(rankBy(order)).map((key) => ({ key, ...accuracyOf(groups.get(key)!) }))
}

/** Whether a stored prediction is a forced answer (rows written before the flag: never). */
export const isForced = (p: Pick<ReportPrediction, "forced">): boolean => p.forced === true

const forcedSummary = (run: ReportRun, predictions: ReadonlyArray<ReportPrediction>): Summary["forced"] => ({
  finalAnswer: runFinalAnswer(run.config),
  answers: accuracyOfPredictions(predictions.filter(isForced)),
  withoutForced: accuracyOfPredictions(
    predictions.map((p) => (isForced(p) ? { ...p, prediction: null, correct: false } : p))
  )
})

export interface SummaryOptions {
  /** Per role; without them every cost is unknown. */
  readonly prices?: Prices
  /** The time (epoch ms) to judge workers' leases by; without it, whether a worker is live is unknown. */
  readonly now?: number
}

export const spreadOf = (values: ReadonlyArray<number>): Spread => ({
  count: values.length,
  p50Ms: quantile(values, 0.5),
  p90Ms: quantile(values, 0.9),
  // A reduce, not Math.max(...values): a long run has more calls than a call may take arguments.
  maxMs: values.length === 0 ? null : values.reduce((max, v) => (v > max ? v : max), values[0]!)
})

const costSummary = (input: SummaryInput, prices: Prices, roles: ReadonlyArray<string>): Summary["cost"] => {
  const byQuestionCalls = new Map<string, Array<ReportCall>>(input.predictions.map((p) => [p.questionId, []]))
  for (const c of input.calls) if (c.questionId !== null) byQuestionCalls.get(c.questionId)?.push(c)
  const byQuestion: Record<string, number | null> = {}
  for (const [id, calls] of byQuestionCalls) byQuestion[id] = costOfCalls(calls, prices)
  const perQuestion = Object.values(byQuestion)
  return {
    total: costOfCalls(input.calls, prices),
    byRole: roles.map((role) => ({ role, usd: costOfCalls(input.calls.filter((c) => c.role === role), prices) })),
    perQuestionMean: perQuestion.length === 0 || perQuestion.some((c) => c === null)
      ? null
      : (perQuestion as Array<number>).reduce((sum, c) => sum + c, 0) / perQuestion.length,
    byQuestion,
    unpriced: unpricedRoles(input.calls, prices),
    cachedTokensRecorded: input.calls.some((c) => c.cachedPromptTokens !== undefined && c.cachedPromptTokens !== null)
  }
}

export const summarize = (input: SummaryInput, options: SummaryOptions = {}): Summary => {
  const { calls, predictions, run } = input
  const benchmark = benchmarkOfRun(run.config)
  const videoMme = {
    byTaskType: groupAccuracy(predictions, (p) => p.taskType, []),
    byDuration: groupAccuracy(predictions, (p) => p.duration, durationOrder),
    byDomain: predictions.some((p) => (p.domain ?? null) !== null)
      ? groupAccuracy(predictions, (p) => p.domain ?? null, [])
      : []
  }

  const stopCounts = new Map<string, number>(knownStopReasons.map((reason) => [reason, 0]))
  for (const p of predictions) stopCounts.set(p.stopReason, (stopCounts.get(p.stopReason) ?? 0) + 1)

  const emptySlot = () => ({ calls: 0, errors: 0, counted: 0, retried: 0, promptTokens: 0, completionTokens: 0 })
  const roles = new Map<string, ReturnType<typeof emptySlot>>(knownRoles.map((role) => [role, emptySlot()]))
  for (const c of calls) {
    const slot = roles.get(c.role) ?? emptySlot()
    slot.calls += 1
    if (c.status !== "ok") slot.errors += 1
    if (c.attempts !== undefined && c.attempts !== null) {
      slot.counted += 1
      if (c.attempts > 1) slot.retried += 1
    }
    slot.promptTokens += c.promptTokens
    slot.completionTokens += c.completionTokens
    roles.set(c.role, slot)
  }
  const byRole: ReadonlyArray<RoleTokens> = [...roles.entries()].map(([role, { counted, retried, ...slot }]) => ({
    role,
    calls: slot.calls,
    errors: slot.errors,
    retried: slot.calls > 0 && counted === 0 ? null : retried,
    promptTokens: slot.promptTokens,
    completionTokens: slot.completionTokens
  }))

  const lastSaved = predictions.reduce<number | null>(
    (latest, p) => latest === null || p.finishedAt > latest ? p.finishedAt : latest,
    null
  )
  const end = run.finishedAt ?? lastSaved
  const cost = costSummary(input, options.prices ?? {}, byRole.map((r) => r.role))

  return {
    runId: run.runId,
    status: run.status,
    settings: runSettings({ config: run.config, selection: run.selection }),
    protocol: runProtocol(run.config),
    startedAt: new Date(run.startedAt).toISOString(),
    finishedAt: run.finishedAt === null ? null : new Date(run.finishedAt).toISOString(),
    wallTimeMs: end === null ? null : Math.max(0, end - run.startedAt),
    questions: predictions.length,
    benchmark,
    overall: accuracyOfPredictions(predictions),
    ...benchmarkView(benchmark, predictions, videoMme),
    ...videoMme,
    stopReasons: [...stopCounts.entries()].map(([reason, count]) => ({ reason, count })),
    errors: errorsOf(run.runId, predictions),
    forced: forcedSummary(run, predictions),
    meanSteps: predictions.length === 0
      ? null
      : predictions.reduce((sum, p) => sum + p.stepsUsed, 0) / predictions.length,
    tokens: {
      byRole,
      promptTokens: byRole.reduce((sum, r) => sum + r.promptTokens, 0),
      completionTokens: byRole.reduce((sum, r) => sum + r.completionTokens, 0)
    },
    cost,
    latency: byRole.map((r) => ({
      role: r.role,
      ...spreadOf(calls.filter((c) => c.role === r.role).map((c) => c.durationMs))
    })),
    questionTime: (() => {
      const times = predictions.map((p) => p.finishedAt - p.startedAt)
      return {
        ...spreadOf(times),
        meanMs: times.length === 0 ? null : times.reduce((sum, t) => sum + t, 0) / times.length
      }
    })(),
    replyShapes: replyShapesOf(predictions, calls),
    tokenDetails: tokenDetailsOf(calls),
    progress: run.progress == null ? null : {
      ...run.progress,
      open: Math.max(0, run.progress.total - run.progress.done - run.progress.claimed)
    },
    workers: workersOf(input, options.now),
    perQuestion: predictions.map((p) => ({
      questionId: p.questionId,
      videoId: p.videoId,
      taskType: p.taskType,
      prediction: p.prediction,
      answer: p.answer,
      outcome: outcomeOf(p),
      stopReason: p.stopReason,
      steps: p.stepsUsed,
      promptTokens: p.promptTokens,
      completionTokens: p.completionTokens,
      costUsd: cost.byQuestion[p.questionId] ?? null,
      timeMs: p.finishedAt - p.startedAt,
      evidence: p.evidence,
      reasoning: p.reasoning,
      error: p.error
    }))
  }
}

// ---- Token details: what the endpoints said about their prefix cache and their thinking.

export interface RoleTokenDetails {
  readonly role: string
  readonly promptTokens: number
  /** Summed over the calls that reported it; null when none did ("not said" is not "none cached"). */
  readonly cachedPromptTokens: number | null
  /** cachedPromptTokens / promptTokens of the role; null when not reported or nothing was prompted. */
  readonly cachedShare: number | null
  readonly reasoningTokens: number | null
}

const plusReported = (sum: number | null, value: number | undefined): number | null =>
  value === undefined ? sum : (sum ?? 0) + value

export const tokenDetailsOf = (calls: ReadonlyArray<ReportCall>): ReadonlyArray<RoleTokenDetails> => {
  const roles = new Map<
    string,
    { promptTokens: number; cachedPromptTokens: number | null; reasoningTokens: number | null }
  >()
  for (const c of calls) {
    const slot = roles.get(c.role) ?? { promptTokens: 0, cachedPromptTokens: null, reasoningTokens: null }
    slot.promptTokens += c.promptTokens
    slot.cachedPromptTokens = plusReported(slot.cachedPromptTokens, c.cachedPromptTokens)
    slot.reasoningTokens = plusReported(slot.reasoningTokens, c.reasoningTokens)
    roles.set(c.role, slot)
  }
  return [...roles.entries()]
    .filter(([, slot]) => slot.cachedPromptTokens !== null || slot.reasoningTokens !== null)
    .sort(([a], [b]) => rankBy(knownRoles)(a, b))
    .map(([role, slot]) => ({
      role,
      ...slot,
      cachedShare: slot.cachedPromptTokens === null || slot.promptTokens === 0
        ? null
        : slot.cachedPromptTokens / slot.promptTokens
    }))
}

const shapeOrder = ["clean", "fenced", "prose", "think-stripped", "function-call", "first-of-several", "repaired"]

const replyShapesOf = (
  predictions: ReadonlyArray<ReportPrediction>,
  calls: ReadonlyArray<ReportCall>
): Summary["replyShapes"] => {
  const counts = new Map<string, number>()
  for (const p of predictions) {
    for (const [shape, steps] of Object.entries(p.replyShapes ?? {})) {
      counts.set(shape, (counts.get(shape) ?? 0) + (steps ?? 0))
    }
  }
  const models = [...new Set(calls.filter((c) => c.role === "agent").map((c) => c.model))].sort()
  return {
    model: models.length === 0 ? "—" : models.join(", "),
    steps: predictions.reduce((sum, p) => sum + p.stepsUsed, 0),
    shapes: [...counts.keys()].sort(rankBy(shapeOrder)).map((shape) => ({ shape, steps: counts.get(shape)! }))
  }
}
