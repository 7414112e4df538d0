// What a question costs, as a distribution rather than a total: agent steps, tool-model, vision and
// embedding calls, frames sent, tokens, USD and wall time per question, with their p50, p90 and max over
// the run and per task type, and the accuracy a dollar buys. A mean hides the few questions that cost ten
// times the rest; a reviewer asks for the tail. Pure; Report.ts and ReportCompareStatistics.ts use it.
import { Option, Schema } from "effect"
import { formatUsd } from "../../domain/Cost.js"
import { outcomeOf } from "../../domain/Outcome.js"
import { ObserveFrameArgs } from "../../domain/Protocol.js"
import type { CallRow, PredictionRow, StepRow } from "../../domain/RunRecord.js"
import { quantile } from "../../domain/Stats.js"
import { countOf, formatCount, formatDuration } from "../../text/Format.js"
import { maxEventFrames } from "../tree/FrameSelection.js"
import type { TableSection } from "./ReportStatistics.js"

export type UsagePrediction = Pick<
  PredictionRow,
  | "questionId"
  | "taskType"
  | "answer"
  | "options"
  | "prediction"
  | "correct"
  | "stepsUsed"
  | "promptTokens"
  | "completionTokens"
  | "cachedPromptTokens"
  | "reasoningTokens"
  | "startedAt"
  | "finishedAt"
>
export type UsageCall = Pick<CallRow, "questionId" | "parentStep" | "role">
export type UsageStep = Pick<StepRow, "questionId" | "step" | "tool" | "args">

/** What one question used; the per-question json rows carry the same fields. */
export interface QuestionUsage {
  readonly steps: number
  readonly toolCalls: number
  readonly vlmCalls: number
  /**
   * Images sent to the vision model, summed over its calls: each call sends its observe_frame step's frames
   * (1–4 frame ids, or an event id counted as 8, the most it stands for). Null when a vision call's step
   * was not loaded (text and json reports of runs read without steps) or not found.
   */
  readonly framesSent: number | null
  readonly embedCalls: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** Null when no call of the question reported them ("not said" is not "none"). */
  readonly cachedPromptTokens: number | null
  readonly reasoningTokens: number | null
  /** USD at the prices given; null when unknown. */
  readonly costUsd: number | null
  readonly timeMs: number
}

export type UsageMetric = keyof QuestionUsage

export const usageMetrics: ReadonlyArray<
  { readonly metric: UsageMetric; readonly label: string; readonly unit: "count" | "usd" | "ms" }
> = [
  { metric: "steps", label: "agent steps", unit: "count" },
  { metric: "toolCalls", label: "tool-model calls", unit: "count" },
  { metric: "vlmCalls", label: "VLM calls", unit: "count" },
  { metric: "framesSent", label: "frames sent", unit: "count" },
  { metric: "embedCalls", label: "embedding calls", unit: "count" },
  { metric: "promptTokens", label: "prompt tokens", unit: "count" },
  { metric: "completionTokens", label: "completion tokens", unit: "count" },
  { metric: "cachedPromptTokens", label: "cached prompt tokens", unit: "count" },
  { metric: "reasoningTokens", label: "reasoning tokens", unit: "count" },
  { metric: "costUsd", label: "USD", unit: "usd" },
  { metric: "timeMs", label: "wall time", unit: "ms" }
]

const decodeObserve = Schema.decodeUnknownOption(ObserveFrameArgs)
const eventIdPattern = /_L2_\d+$/

/** The frames an observe_frame step's ids send: one per distinct frame id, an event id as its most; null if unreadable. */
export const framesOfStep = (args: unknown): number | null =>
  Option.match(decodeObserve(args), {
    onNone: () => null,
    onSome: ({ node_ids }) => {
      const ids = [...new Set(node_ids.map((id) => id.trim()).filter((id) => id !== ""))]
      return ids.length === 1 && eventIdPattern.test(ids[0]!) ? maxEventFrames : ids.length
    }
  })

/** Each question's usage, by question id. `costOf` is the question's USD (Report.ts's costs per question). */
export const questionUsages = (
  input: {
    readonly predictions: ReadonlyArray<UsagePrediction>
    readonly calls: ReadonlyArray<UsageCall>
    readonly steps?: ReadonlyArray<UsageStep> | undefined
  },
  costOf: (questionId: string) => number | null
): Map<string, QuestionUsage> => {
  const counts = new Map<string, { tool: number; vlm: number; embed: number; frames: number | null }>(
    input.predictions.map((p) => [p.questionId, { tool: 0, vlm: 0, embed: 0, frames: 0 }])
  )
  const framesByStep = new Map<string, number | null>()
  for (const s of input.steps ?? []) {
    if (s.tool === "observe_frame") framesByStep.set(`${s.step} ${s.questionId}`, framesOfStep(s.args))
  }
  for (const c of input.calls) {
    const slot = c.questionId === null ? undefined : counts.get(c.questionId)
    if (slot === undefined) continue
    if (c.role === "tool") slot.tool += 1
    else if (c.role === "embed") slot.embed += 1
    else if (c.role === "vlm") {
      slot.vlm += 1
      const frames = c.parentStep === null ? null : framesByStep.get(`${c.parentStep} ${c.questionId}`) ?? null
      slot.frames = slot.frames === null || frames === null ? null : slot.frames + frames
    }
  }
  return new Map(input.predictions.map((p) => {
    const slot = counts.get(p.questionId)!
    return [p.questionId, {
      steps: p.stepsUsed,
      toolCalls: slot.tool,
      vlmCalls: slot.vlm,
      framesSent: slot.frames,
      embedCalls: slot.embed,
      promptTokens: p.promptTokens,
      completionTokens: p.completionTokens,
      cachedPromptTokens: p.cachedPromptTokens ?? null,
      reasoningTokens: p.reasoningTokens ?? null,
      costUsd: costOf(p.questionId),
      timeMs: p.finishedAt - p.startedAt
    }]
  }))
}

/** One metric over a set of questions; `count` is how many questions had a value (unknown ones left out). */
export interface MetricSpread {
  readonly metric: UsageMetric
  readonly count: number
  readonly p50: number | null
  readonly p90: number | null
  readonly max: number | null
  readonly mean: number | null
}

export const spreadOfMetric = (metric: UsageMetric, usages: ReadonlyArray<QuestionUsage>): MetricSpread => {
  const values = usages.flatMap((u) => (u[metric] === null ? [] : [u[metric]]))
  return {
    metric,
    count: values.length,
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    max: values.length === 0 ? null : values.reduce((max, v) => (v > max ? v : max), values[0]!),
    mean: values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length
  }
}

export const spreadsOf = (usages: ReadonlyArray<QuestionUsage>): ReadonlyArray<MetricSpread> =>
  usageMetrics.map(({ metric }) => spreadOfMetric(metric, usages))

export interface CostDistribution {
  readonly questions: number
  readonly overall: ReadonlyArray<MetricSpread>
  readonly byTaskType: ReadonlyArray<
    { readonly key: string; readonly questions: number; readonly metrics: ReadonlyArray<MetricSpread> }
  >
  /**
   * The accuracy over the keyed questions divided by their mean USD per question: correct answers per
   * dollar. Null when a keyed question's cost is unknown or nothing was spent.
   */
  readonly accuracyPerUsd: number | null
}

/** `noGroup` names the questions without a task type, as the accuracy tables do. */
export const costDistributionOf = (
  predictions: ReadonlyArray<UsagePrediction>,
  usages: ReadonlyMap<string, QuestionUsage>,
  noGroup: string
): CostDistribution => {
  const byType = new Map<string, Array<QuestionUsage>>()
  let correct = 0
  let spent: number | null = 0
  for (const p of predictions) {
    const usage = usages.get(p.questionId)!
    const key = p.taskType ?? noGroup
    const group = byType.get(key)
    if (group === undefined) byType.set(key, [usage])
    else group.push(usage)
    const outcome = outcomeOf(p)
    if (outcome === "unscored") continue
    if (outcome === "correct") correct += 1
    spent = spent === null || usage.costUsd === null ? null : spent + usage.costUsd
  }
  return {
    questions: predictions.length,
    overall: spreadsOf(predictions.map((p) => usages.get(p.questionId)!)),
    byTaskType: [...byType.entries()].sort(([a], [b]) => (a === noGroup ? 1 : b === noGroup ? -1 : a < b ? -1 : 1))
      .map(([key, list]) => ({ key, questions: list.length, metrics: spreadsOf(list) })),
    accuracyPerUsd: spent === null || spent === 0 ? null : correct / spent
  }
}

const unitOf = new Map(usageMetrics.map((m) => [m.metric, m.unit]))
const labelOf = new Map(usageMetrics.map((m) => [m.metric, m.label]))

/** A value of a metric as a report shows it. */
export const formatMetric = (metric: UsageMetric, value: number | null, decimals = false): string => {
  if (value === null) return "—"
  switch (unitOf.get(metric)) {
    case "usd":
      return formatUsd(value)
    case "ms":
      return formatDuration(value)
    default:
      return decimals
        ? value.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })
        : formatCount(value)
  }
}

export const metricLabel = (metric: UsageMetric): string => labelOf.get(metric) ?? metric

/** The metrics the per-category table shows (json has every one). */
const categoryMetrics: ReadonlyArray<UsageMetric> = [
  "steps",
  "vlmCalls",
  "framesSent",
  "promptTokens",
  "costUsd",
  "timeMs"
]

const triple = (s: MetricSpread | undefined): string =>
  s === undefined || s.count === 0
    ? "—"
    : `${formatMetric(s.metric, s.p50)} / ${formatMetric(s.metric, s.p90)} / ${formatMetric(s.metric, s.max)}`

/** `Accuracy per USD 41.3 (correct answers per dollar)`, or why it is unknown. */
export const accuracyPerUsdText = (value: number | null): string =>
  value === null
    ? "Accuracy per USD unknown (a question's cost is unknown, or nothing was spent)"
    : `Accuracy per USD ${
      value.toFixed(value >= 100 ? 0 : 2)
    } (correct answers per dollar: accuracy ÷ mean cost of a keyed question)`

/** The run's cost distribution as tables: every metric overall, then a few per task type (unless none has one). */
export const costSections = (d: CostDistribution, byTaskType = true): ReadonlyArray<TableSection> => [
  {
    title: `Cost per question over ${countOf(d.questions, "question")}`,
    headers: ["Per question", "p50", "p90", "max", "mean"],
    rows: d.overall.map((s) => [
      metricLabel(s.metric),
      formatMetric(s.metric, s.p50),
      formatMetric(s.metric, s.p90),
      formatMetric(s.metric, s.max),
      formatMetric(s.metric, s.mean, true)
    ]),
    right: [false, true, true, true, true]
  },
  ...(byTaskType ?
    [{
      title: "Cost per question by task type (p50 / p90 / max)",
      headers: ["Task type", "Questions", ...categoryMetrics.map(metricLabel)],
      rows: d.byTaskType.map((g) => {
        const of = new Map(g.metrics.map((s) => [s.metric, s]))
        return [g.key, formatCount(g.questions), ...categoryMetrics.map((m) => triple(of.get(m)))]
      }),
      right: [false, true, ...categoryMetrics.map(() => true)]
    }] :
    [])
]
