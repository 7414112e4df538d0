// What a run amounts to: pure functions from stored rows to a summary (ReportText.ts renders it as text
// or JSON, ReportHtml.ts as a page). The inputs are the store's row shapes (only the fields a summary
// reads), so any LoadedRun fits. `vtree infer` prints `renderText(summarize(…))`.
import { callRoles } from "../../domain/CallRole.js"
import { costOfCalls, type Prices, unpricedRoles } from "../../domain/Cost.js"
import {
  type Accuracy,
  accuracyOf,
  accuracyOfOutcomes,
  emptyTally,
  type GroupAccuracy,
  outcomeOf,
  type Tally
} from "../../domain/Outcome.js"
import { nothingRecorded, runFinalAnswer } from "../../domain/RunConfig.js"
import { quantile } from "../../domain/Stats.js"
import { answerFormCounts, answerFormOfRow } from "./ReportAnswerForms.js"
import { benchmarkView } from "./ReportAxes.js"
import { controlSummary } from "./ReportControl.js"
import { costDistributionOf, questionUsages } from "./ReportCostDistribution.js"
import { errorsOf } from "./ReportErrors.js"
import { evidenceSummary } from "./ReportEvidence.js"
import { keywordFallbacks } from "./ReportFallbacks.js"
import { judgeSummary } from "./ReportJudges.js"
import { scoresOf } from "./ReportScores.js"
import { clusteredSummary } from "./ReportStatistics.js"
import { workersOf } from "./ReportWorkers.js"
import { runSettings } from "./RunSettings.js"
import type {
  ReportCall,
  ReportPrediction,
  ReportRun,
  RoleTokenDetails,
  RoleTokens,
  Spread,
  Summary,
  SummaryInput
} from "./Summary.js"

/** Shown for a question with no task type or duration. */
export const noGroup = "(none)"

const knownRoles: ReadonlyArray<string> = callRoles
const knownStopReasons = ["finished", "budget_exceeded", "parse_error", "error"]
export const durationOrder = ["short", "medium", "long"]

/** Accuracy of any subset of predictions, with its interval. */
export const accuracyOfPredictions = (predictions: ReadonlyArray<ReportPrediction>): Accuracy => {
  return accuracyOfOutcomes(predictions.map(outcomeOf))
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
  finalAnswer: runFinalAnswer(run.config ?? nothingRecorded),
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

/** Calls, errors, retries and tokens per role: every known role, then any other a call names. */
const tokensByRole = (calls: ReadonlyArray<ReportCall>): ReadonlyArray<RoleTokens> => {
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
  return [...roles.entries()].map(([role, { counted, retried, ...slot }]) => ({
    role,
    calls: slot.calls,
    errors: slot.errors,
    retried: slot.calls > 0 && counted === 0 ? null : retried,
    promptTokens: slot.promptTokens,
    completionTokens: slot.completionTokens
  }))
}

const questionTimeOf = (predictions: ReadonlyArray<ReportPrediction>): Summary["questionTime"] => {
  const times = predictions.map((p) => p.finishedAt - p.startedAt)
  return {
    ...spreadOf(times),
    meanMs: times.length === 0 ? null : times.reduce((sum, t) => sum + t, 0) / times.length
  }
}

export const summarize = (input: SummaryInput, options: SummaryOptions = {}): Summary => {
  const { calls, predictions, run } = input
  const config = run.config ?? nothingRecorded
  const benchmark = config.benchmark
  const videoMme = {
    byTaskType: groupAccuracy(predictions, (p) => p.taskType, []),
    byDuration: groupAccuracy(predictions, (p) => p.duration, durationOrder),
    byDomain: predictions.some((p) => (p.domain ?? null) !== null)
      ? groupAccuracy(predictions, (p) => p.domain ?? null, [])
      : []
  }

  const stopCounts = new Map<string, number>(knownStopReasons.map((reason) => [reason, 0]))
  for (const p of predictions) stopCounts.set(p.stopReason, (stopCounts.get(p.stopReason) ?? 0) + 1)
  const byRole = tokensByRole(calls)

  const lastSaved = predictions.reduce<number | null>(
    (latest, p) => latest === null || p.finishedAt > latest ? p.finishedAt : latest,
    null
  )
  const end = run.finishedAt ?? lastSaved
  const cost = costSummary(input, options.prices ?? {}, byRole.map((r) => r.role))
  const usages = questionUsages(input, (id) => cost.byQuestion[id] ?? null)

  return {
    runId: run.runId,
    status: run.status,
    settings: runSettings({ config, selection: run.selection }),
    protocol: config.protocol,
    startedAt: new Date(run.startedAt).toISOString(),
    finishedAt: run.finishedAt === null ? null : new Date(run.finishedAt).toISOString(),
    wallTimeMs: end === null ? null : Math.max(0, end - run.startedAt),
    questions: predictions.length,
    benchmark,
    overall: accuracyOfPredictions(predictions),
    ...benchmarkView(benchmark, predictions, videoMme, input.judgements ?? []),
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
    questionTime: questionTimeOf(predictions),
    replyShapes: replyShapesOf(predictions, calls),
    tokenDetails: tokenDetailsOf(calls),
    progress: run.progress == null ? null : {
      ...run.progress,
      open: Math.max(0, run.progress.total - run.progress.done - run.progress.claimed)
    },
    workers: workersOf(input, options.now),
    scores: scoresOf(benchmark, predictions, accuracyOfPredictions(predictions)),
    control: controlSummary(config, predictions),
    perQuestion: predictions.map((p) => ({
      ...questionLine(p, cost.byQuestion[p.questionId] ?? null),
      ...usages.get(p.questionId)!
    })),
    clustered: clusteredSummary(predictions, noGroup),
    costDistribution: costDistributionOf(predictions, usages, noGroup),
    answerForms: answerFormCounts(predictions),
    judges: judgeSummary(predictions, input.judgements ?? []),
    evidence: evidenceSummary(predictions, input.steps),
    keywordFallbacks: keywordFallbacks(input.steps)
  }
}

/** One question's line of the summary, without the usage counts (ReportCostDistribution.ts adds them). */
const questionLine = (p: ReportPrediction, costUsd: number | null) => ({
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
  costUsd,
  timeMs: p.finishedAt - p.startedAt,
  evidence: p.evidence,
  reasoning: p.reasoning,
  error: p.error,
  answerText: p.answerText ?? null,
  answerForm: answerFormOfRow(p)
})

// ---- Token details: what the endpoints said about their prefix cache and their thinking.

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
