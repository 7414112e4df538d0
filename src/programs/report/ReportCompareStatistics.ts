// What `report --compare` adds beside McNemar: the paired bootstrap over videos (a question's neighbours in
// its video are not independent, so resampling questions would overstate what the comparison shows), the
// difference per category with its interval, and both runs' cost distributions with the paired difference
// per shared question. Pure; ReportCompare.ts puts it in the comparison and renders it.
import { outcomeOf } from "../../domain/Outcome.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import {
  type BootstrapOptions,
  type PairedBootstrap,
  pairedBootstrap,
  type PairedCluster,
  quantile
} from "../../domain/Stats.js"
import { formatCount } from "../../text/Format.js"
import { durationOrder, noGroup, rankBy } from "./Report.js"
import {
  formatMetric,
  metricLabel,
  type MetricSpread,
  questionUsages,
  spreadOfMetric,
  type UsageCall,
  type UsageMetric,
  usageMetrics,
  type UsagePrediction,
  type UsageStep
} from "./ReportCostDistribution.js"
import type { TableSection } from "./ReportStatistics.js"

type PairedRow = UsagePrediction & Pick<PredictionRow, "videoId" | "duration" | "domain">

export interface CompareBootstrap {
  readonly resamples: number
  readonly seed: number
  /** B − A over every keyed shared question, resampled by video; null without one. */
  readonly overall: PairedBootstrap | null
  /** The same within each category of the comparison's axes (task type, duration, domain). */
  readonly axes: ReadonlyArray<{
    readonly axis: string
    readonly groups: ReadonlyArray<{ readonly key: string; readonly bootstrap: PairedBootstrap | null }>
  }>
}

const clustersOf = (pairs: ReadonlyArray<readonly [PairedRow, PairedRow]>): ReadonlyArray<PairedCluster> => {
  const videos = new Map<string, { questions: number; correctA: number; correctB: number }>()
  for (const [a, b] of pairs) {
    if (outcomeOf(a) === "unscored") continue
    const video = videos.get(a.videoId) ?? { questions: 0, correctA: 0, correctB: 0 }
    video.questions += 1
    if (outcomeOf(a) === "correct") video.correctA += 1
    if (outcomeOf(b) === "correct") video.correctB += 1
    videos.set(a.videoId, video)
  }
  return [...videos.values()]
}

/** `a[i]` and `b[i]` are one question (B's row carrying A's categories, as compareRuns pairs them). */
export const compareBootstrap = (
  a: ReadonlyArray<PairedRow>,
  b: ReadonlyArray<PairedRow>,
  options: BootstrapOptions
): CompareBootstrap => {
  const pairs = a.map((p, i) => [p, b[i]!] as const)
  const along = (axis: string, keyOf: (p: PairedRow) => string | null | undefined, order: ReadonlyArray<string>) => {
    const groups = new Map<string, Array<readonly [PairedRow, PairedRow]>>()
    for (const pair of pairs) {
      const key = keyOf(pair[0]) ?? noGroup
      const group = groups.get(key)
      if (group === undefined) groups.set(key, [pair])
      else group.push(pair)
    }
    return {
      axis,
      groups: [...groups.keys()].sort(rankBy(order)).map((key) => ({
        key,
        bootstrap: pairedBootstrap(clustersOf(groups.get(key)!), options)
      }))
    }
  }
  return {
    resamples: options.resamples,
    seed: options.seed,
    overall: pairedBootstrap(clustersOf(pairs), options),
    axes: [
      along("task type", (p) => p.taskType, []),
      along("duration", (p) => p.duration, durationOrder),
      ...(a.some((p) => (p.domain ?? null) !== null) ? [along("domain", (p) => p.domain, [])] : [])
    ]
  }
}

/** How a run's usage is read for the comparison: its calls and (for frames) steps, and its USD per question. */
export interface CostSide {
  readonly calls?: ReadonlyArray<UsageCall>
  readonly steps?: ReadonlyArray<UsageStep>
  readonly costOf?: (questionId: string) => number | null
}

export interface PairedCost {
  readonly metric: UsageMetric
  readonly a: MetricSpread
  readonly b: MetricSpread
  /** Shared questions where both runs have a value. */
  readonly pairs: number
  /** Mean and median over those questions of B's value minus A's. */
  readonly meanDifference: number | null
  readonly medianDifference: number | null
}

export interface CompareCost {
  readonly questions: number
  readonly metrics: ReadonlyArray<PairedCost>
}

/** Both runs' cost distributions over the shared questions, and the paired difference per question. */
export const compareCost = (
  a: ReadonlyArray<UsagePrediction>,
  b: ReadonlyArray<UsagePrediction>,
  sideA: CostSide,
  sideB: CostSide
): CompareCost => {
  const usagesOf = (rows: ReadonlyArray<UsagePrediction>, side: CostSide) => {
    const byId = questionUsages(
      { predictions: rows, calls: side.calls ?? [], steps: side.steps },
      side.costOf ?? (() => null)
    )
    return rows.map((p) => byId.get(p.questionId)!)
  }
  const ua = usagesOf(a, sideA)
  const ub = usagesOf(b, sideB)
  return {
    questions: a.length,
    metrics: usageMetrics.map(({ metric }) => {
      const differences = ua.flatMap((x, i) => {
        const va = x[metric]
        const vb = ub[i]![metric]
        return va === null || vb === null ? [] : [vb - va]
      })
      return {
        metric,
        a: spreadOfMetric(metric, ua),
        b: spreadOfMetric(metric, ub),
        pairs: differences.length,
        meanDifference: differences.length === 0 ? null : differences.reduce((s, d) => s + d, 0) / differences.length,
        medianDifference: quantile(differences, 0.5)
      }
    })
  }
}

type Points = (value: number | null) => string

/** `Paired bootstrap over 450 videos (2,000 resamples, seed 1): B − A +4.2 pts, 95% CI [+1.0, +7.5] pts, p = 0.012`. */
export const bootstrapLine = (s: CompareBootstrap, points: Points): string => {
  const head = `Paired bootstrap over videos (${formatCount(s.resamples)} resamples, seed ${s.seed})`
  if (s.overall === null) return `${head}: needs keyed shared questions from two videos or more`
  return `${head}: ${formatCount(s.overall.clusters)} videos, B − A ${points(s.overall.difference)}, 95% CI ${
    intervalPoints(s.overall, points)
  }, p = ${pValue(s.overall.p)}`
}

const intervalPoints = (b: PairedBootstrap, points: Points): string =>
  `[${points(b.interval.low).replace(" pts", "")}, ${points(b.interval.high).replace(" pts", "")}] pts`

const pValue = (p: number): string => (p < 0.001 ? p.toExponential(1) : p.toFixed(3))

const signed = (metric: UsageMetric, value: number | null): string =>
  value === null
    ? "—"
    : `${value > 0 ? "+" : value < 0 ? "−" : "±"}${formatMetric(metric, Math.abs(value), true)}`

/** The per-category bootstrap and the paired cost, as tables. */
export const compareSections = (
  s: CompareBootstrap,
  cost: CompareCost,
  points: Points
): ReadonlyArray<TableSection> => [
  {
    title: `B − A per category, paired bootstrap over videos (${formatCount(s.resamples)} resamples, seed ${s.seed})`,
    headers: ["Axis", "Category", "Videos", "B − A", "95% CI", "p"],
    rows: s.axes.flatMap(({ axis, groups }) =>
      groups.map(({ bootstrap, key }) =>
        bootstrap === null
          ? [axis, key, "0", "—", "—", "—"]
          : [
            axis,
            key,
            formatCount(bootstrap.clusters),
            points(bootstrap.difference),
            intervalPoints(bootstrap, points),
            pValue(bootstrap.p)
          ]
      )
    ),
    right: [false, false, true, true, true, true]
  },
  {
    title: `Cost per question over the ${formatCount(cost.questions)} shared questions (p50 / p90 / max), ` +
      "and B − A per question",
    headers: ["Per question", "A", "B", "B − A mean", "B − A median"],
    rows: cost.metrics.map((m) => [
      metricLabel(m.metric),
      spreadCell(m.a),
      spreadCell(m.b),
      signed(m.metric, m.meanDifference),
      signed(m.metric, m.medianDifference)
    ]),
    right: [false, true, true, true, true]
  }
]

const spreadCell = (s: MetricSpread): string =>
  s.count === 0
    ? "—"
    : `${formatMetric(s.metric, s.p50)} / ${formatMetric(s.metric, s.p90)} / ${formatMetric(s.metric, s.max)}`
