// Two runs side by side, paired over the questions both answered: is B better than A, where, and is the
// difference more than noise. Pure: the CLI loads both runs (from one database or two) and renders this.
import type { ControlKind } from "../../domain/Control.js"
import type { Accuracy } from "../../domain/Outcome.js"
import { outcomeOf } from "../../domain/Outcome.js"
import { type BootstrapOptions, mcnemarExact } from "../../domain/Stats.js"
import { defaultBootstrap } from "../../domain/Stats.js"
import { countOf, formatCount, formatDuration, formatInterval, formatPercent } from "../../text/Format.js"
import { accuracyOfPredictions, durationOrder, groupAccuracy } from "./Report.js"
import { type PairedAnswerForms, pairedAnswerForms, pairedAnswerFormsSection } from "./ReportAnswerForms.js"
import {
  bootstrapLine,
  type CompareBootstrap,
  compareBootstrap,
  type CompareCost,
  compareCost,
  compareSections
} from "./ReportCompareStatistics.js"
import { type ControlEffect, controlEffect, controlEffectLine, withClusteredInterval } from "./ReportControl.js"
import { isNoneAxis, noneAxisLine } from "./ReportNoneAxis.js"
import { benchmarkOfRows, compareScoresText, type RunScores, scoresOf } from "./ReportScores.js"
import { formatTable } from "./ReportText.js"
import { type RunSetting, type SettingDifference, settingsDifference } from "./RunSettings.js"
import type { ReportCall, ReportPrediction, ReportStep } from "./Summary.js"

/** One side of a comparison: where the run came from (for people) and its rows. */
export interface CompareSide {
  readonly runId: string
  /** The database file it was read from. */
  readonly source: string
  readonly predictions: ReadonlyArray<ReportPrediction>
  /** Cost per question id in USD, when prices are known for every role the run used; see Cost.ts. */
  readonly costOf?: (questionId: string) => number | null
  /** What the run was run with (RunSettings.runSettings); the comparison lists the ones that differ. */
  readonly settings?: ReadonlyArray<RunSetting>
  /** The run's control (`vtree infer --control`); absent or none for a run that is none. */
  readonly control?: ControlKind
  /** Its calls and steps, for the cost distribution (frames sent are counted only when steps are given). */
  readonly calls?: ReadonlyArray<ReportCall>
  readonly steps?: ReadonlyArray<ReportStep>
}

export interface BucketDelta {
  readonly key: string
  readonly a: Accuracy
  readonly b: Accuracy
  /** b − a in accuracy points (0–1), null when either side has no question in the bucket. */
  readonly delta: number | null
}

export interface Flip {
  readonly questionId: string
  readonly videoId: string
  readonly taskType: string | null
  readonly answer: string | null
  readonly predictionA: string | null
  readonly predictionB: string | null
}

export interface UsageDelta {
  readonly metric: string
  readonly a: number | null
  readonly b: number | null
  readonly delta: number | null
  /** How to print the values. */
  readonly unit: "count" | "ms" | "usd" | "decimal"
}

export interface Comparison {
  readonly a: { readonly runId: string; readonly source: string; readonly questions: number }
  readonly b: { readonly runId: string; readonly source: string; readonly questions: number }
  /** Questions both runs saved: everything below is over these only. */
  readonly shared: number
  /** The settings the two runs differ in (models, sampling, budget, pack, …): what may explain the difference. */
  readonly settings: ReadonlyArray<SettingDifference>
  readonly overall: BucketDelta
  readonly byTaskType: ReadonlyArray<BucketDelta>
  readonly byDuration: ReadonlyArray<BucketDelta>
  readonly byDomain: ReadonlyArray<BucketDelta>
  /** Right in B, not in A (wrong or unanswered there). */
  readonly fixed: ReadonlyArray<Flip>
  /** Right in A, not in B. */
  readonly broken: ReadonlyArray<Flip>
  readonly mcnemar: {
    /** Pairs right in A only / in B only; the pairs both got right or both missed carry no information. */
    readonly onlyA: number
    readonly onlyB: number
    /** Two-sided exact (binomial) p-value. */
    readonly p: number
    /** The conclusion at the 5 % level, in words. */
    readonly verdict: string
  }
  readonly usage: ReadonlyArray<UsageDelta>
  /** Each run's strict and official score over the shared questions (ReportScores.ts). */
  readonly scores: { readonly a: RunScores; readonly b: RunScores }
  /** When one side is a control: what the video adds over it, with a paired interval (ReportControl.ts). */
  readonly control: ControlEffect | null
  /** B − A by a paired bootstrap over videos, overall and per category (ReportCompareStatistics.ts). */
  readonly bootstrap: CompareBootstrap
  /** Both runs' cost per question over the shared questions, and the paired difference. */
  readonly cost: CompareCost
  /** How each run's answers read over the shared questions (ReportAnswerForms.ts). */
  readonly answerForms: PairedAnswerForms
}

/** The two runs share no question: nothing can be paired. */
export class NoSharedQuestions {
  readonly _tag = "NoSharedQuestions"
  constructor(readonly a: string, readonly b: string) {}
}

const delta = (a: number | null, b: number | null): number | null => a === null || b === null ? null : b - a

const bucketDeltas = (
  a: ReadonlyArray<ReportPrediction>,
  b: ReadonlyArray<ReportPrediction>,
  keyOf: (p: ReportPrediction) => string | null,
  order: ReadonlyArray<string>
): ReadonlyArray<BucketDelta> => {
  const groupsA = groupAccuracy(a, keyOf, order)
  const groupsB = new Map(groupAccuracy(b, keyOf, order).map((g) => [g.key, g]))
  // Paired rows share their question, so both sides hold the same keys (the bucket comes from A's row).
  return groupsA.map(({ key, ...accA }) => {
    const accB = groupsB.get(key)!
    return { key, a: accA, b: accB, delta: delta(accA.accuracy, accB.accuracy) }
  })
}

/** Significance in plain words; the threshold is the conventional 5 %. */
export const mcnemarVerdict = (p: number, onlyA: number, onlyB: number): string => {
  const stated = `exact McNemar p = ${p < 0.001 ? p.toExponential(1) : p.toFixed(3)} on ${
    onlyA + onlyB
  } discordant pairs`
  if (onlyA + onlyB === 0) return `no question flipped: the runs do not differ on these questions (${stated})`
  return p < 0.05
    ? `difference significant at 5 % (${stated}): ${onlyB > onlyA ? "B" : "A"} is better`
    : `difference not significant at 5 % (${stated})`
}

const sum = (values: ReadonlyArray<number>): number => values.reduce((s, v) => s + v, 0)

const costTotal = (side: CompareSide, ids: ReadonlyArray<string>): number | null => {
  if (side.costOf === undefined) return null
  let total = 0
  for (const id of ids) {
    const cost = side.costOf(id)
    if (cost === null) return null
    total += cost
  }
  return total
}

const usageDeltas = (
  a: ReadonlyArray<ReportPrediction>,
  b: ReadonlyArray<ReportPrediction>,
  sideA: CompareSide,
  sideB: CompareSide
): ReadonlyArray<UsageDelta> => {
  const ids = a.map((p) => p.questionId)
  const row = (metric: string, unit: UsageDelta["unit"], va: number | null, vb: number | null): UsageDelta => ({
    metric,
    a: va,
    b: vb,
    delta: delta(va, vb),
    unit
  })
  const mean = (values: ReadonlyArray<number>) => values.length === 0 ? null : sum(values) / values.length
  return [
    row("prompt tokens", "count", sum(a.map((p) => p.promptTokens)), sum(b.map((p) => p.promptTokens))),
    row("completion tokens", "count", sum(a.map((p) => p.completionTokens)), sum(b.map((p) => p.completionTokens))),
    row("cost (USD)", "usd", costTotal(sideA, ids), costTotal(sideB, ids)),
    row("mean steps", "decimal", mean(a.map((p) => p.stepsUsed)), mean(b.map((p) => p.stepsUsed))),
    row(
      "question time, summed",
      "ms",
      sum(a.map((p) => p.finishedAt - p.startedAt)),
      sum(b.map((p) => p.finishedAt - p.startedAt))
    ),
    row(
      "question time, mean",
      "ms",
      mean(a.map((p) => p.finishedAt - p.startedAt)),
      mean(b.map((p) => p.finishedAt - p.startedAt))
    )
  ]
}

/**
 * Pairs the runs by question id. Fails with NoSharedQuestions when they have none in common; a
 * comparison over a handful of shared questions is still made, and its intervals say how little it shows.
 */
export const compareRuns = (
  sideA: CompareSide,
  sideB: CompareSide,
  options: { readonly bootstrap?: BootstrapOptions } = {}
): Comparison | NoSharedQuestions => {
  const byIdB = new Map(sideB.predictions.map((p) => [p.questionId, p]))
  const a: Array<ReportPrediction> = []
  const b: Array<ReportPrediction> = []
  for (const p of sideA.predictions) {
    const other = byIdB.get(p.questionId)
    if (other === undefined) continue
    a.push(p)
    // Bucket by A's labels, so a question relabelled between the runs still pairs in one bucket.
    b.push({ ...other, taskType: p.taskType, duration: p.duration, domain: p.domain ?? null })
  }
  if (a.length === 0) return new NoSharedQuestions(sideA.runId, sideB.runId)

  const fixed: Array<Flip> = []
  const broken: Array<Flip> = []
  a.forEach((pa, i) => {
    const pb = b[i]!
    const rightA = outcomeOf(pa) === "correct"
    const rightB = outcomeOf(pb) === "correct"
    if (rightA === rightB) return
    const flip: Flip = {
      questionId: pa.questionId,
      videoId: pa.videoId,
      taskType: pa.taskType,
      answer: pa.answer,
      predictionA: pa.prediction,
      predictionB: pb.prediction
    }
    ;(rightB ? fixed : broken).push(flip)
  })
  const p = mcnemarExact(broken.length, fixed.length)
  const accA = accuracyOfPredictions(a)
  const accB = accuracyOfPredictions(b)
  const bootstrap = compareBootstrap(a, b, options.bootstrap ?? defaultBootstrap)
  return {
    a: { runId: sideA.runId, source: sideA.source, questions: sideA.predictions.length },
    b: { runId: sideB.runId, source: sideB.source, questions: sideB.predictions.length },
    shared: a.length,
    settings: settingsDifference(sideA.settings ?? [], sideB.settings ?? []),
    overall: { key: "all shared questions", a: accA, b: accB, delta: delta(accA.accuracy, accB.accuracy) },
    byTaskType: bucketDeltas(a, b, (q) => q.taskType, []),
    byDuration: bucketDeltas(a, b, (q) => q.duration, durationOrder),
    byDomain: a.some((q) => (q.domain ?? null) !== null) ? bucketDeltas(a, b, (q) => q.domain ?? null, []) : [],
    fixed,
    broken,
    mcnemar: {
      onlyA: broken.length,
      onlyB: fixed.length,
      p,
      verdict: mcnemarVerdict(p, broken.length, fixed.length)
    },
    usage: usageDeltas(a, b, sideA, sideB),
    scores: { a: scoresOf(benchmarkOfRows(a), a, accA), b: scoresOf(benchmarkOfRows(b), b, accB) },
    control: withClusteredInterval(controlEffect(sideA, sideB, a, b), bootstrap.overall?.interval ?? null),
    bootstrap,
    cost: compareCost(a, b, sideA, sideB),
    answerForms: pairedAnswerForms(a, b)
  }
}

/** `+4.2 pts`: an accuracy difference in percentage points. */
export const formatPoints = (value: number | null): string =>
  value === null ? "—" : `${value > 0 ? "+" : value < 0 ? "−" : "±"}${Math.abs(value * 100).toFixed(1)} pts`

export const formatUsage = (value: number | null, unit: UsageDelta["unit"], signed = false): string => {
  if (value === null) return unit === "usd" ? "unknown" : "—"
  const sign = signed ? (value > 0 ? "+" : value < 0 ? "−" : "±") : value < 0 ? "−" : ""
  const magnitude = Math.abs(value)
  switch (unit) {
    case "count":
      return sign + formatCount(Math.round(magnitude))
    case "ms":
      return sign + formatDuration(magnitude)
    case "usd":
      return `${sign}$${magnitude.toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 })}`
    case "decimal":
      return sign + magnitude.toFixed(2)
  }
}

const bucketTable = (title: string, rows: ReadonlyArray<BucketDelta>): string =>
  formatTable(
    [title, "n", "A", "A 95% CI", "B", "B 95% CI", "B − A"],
    rows.map((r) => [
      r.key,
      formatCount(r.a.total),
      formatPercent(r.a.accuracy),
      formatInterval(r.a.interval),
      formatPercent(r.b.accuracy),
      formatInterval(r.b.interval),
      formatPoints(r.delta)
    ]),
    [false, true, true, true, true, true, true]
  )

const flipLines = (title: string, flips: ReadonlyArray<Flip>, limit: number): string => {
  if (flips.length === 0) return `${title}: none`
  const shown = flips.slice(0, limit).map((f) =>
    `  ${f.questionId}${f.taskType === null || f.taskType === "" ? "" : ` (${f.taskType})`}: A ${
      f.predictionA ?? "unanswered"
    } → B ${f.predictionB ?? "unanswered"}, answer ${f.answer ?? "—"}`
  )
  const more = flips.length > limit
    ? [`  … and ${formatCount(flips.length - limit)} more (--format json lists all)`]
    : []
  return [`${title}: ${formatCount(flips.length)}`, ...shown, ...more].join("\n")
}

export const renderCompareText = (c: Comparison): string => {
  const header = [
    `A: run ${c.a.runId} (${c.a.source}) · ${countOf(c.a.questions, "question")}`,
    `B: run ${c.b.runId} (${c.b.source}) · ${countOf(c.b.questions, "question")}`,
    `Paired over ${countOf(c.shared, "shared question")}: A ${formatPercent(c.overall.a.accuracy)} ${
      formatInterval(c.overall.a.interval)
    }, B ${formatPercent(c.overall.b.accuracy)} ${formatInterval(c.overall.b.interval)} (95% CI), B − A ${
      formatPoints(c.overall.delta)
    }`,
    `${c.mcnemar.verdict[0]!.toUpperCase()}${c.mcnemar.verdict.slice(1)}.`,
    ...controlEffectLine(c.control),
    `${bootstrapLine(c.bootstrap, formatPoints)}.`
  ].join("\n")
  const usage = formatTable(
    ["Usage (shared questions)", "A", "B", "B − A"],
    c.usage.map((
      u
    ) => [u.metric, formatUsage(u.a, u.unit), formatUsage(u.b, u.unit), formatUsage(u.delta, u.unit, true)]),
    [false, true, true, true]
  )
  const settings = c.settings.length === 0
    ? "Settings: the same in both runs"
    : "Settings that differ\n" + formatTable(
      ["Setting", "A", "B"],
      c.settings.map((s) => [s.name, s.a, s.b]),
      [false, false, false]
    )
  return [
    header,
    settings,
    bucketTable("Overall", [c.overall]),
    compareScoresText(c.scores, formatTable),
    isNoneAxis(c.byTaskType) ? noneAxisLine("Task type") : bucketTable("Task type", c.byTaskType),
    isNoneAxis(c.byDuration) ? noneAxisLine("Duration") : bucketTable("Duration", c.byDuration),
    ...(c.byDomain.length === 0 ? [] : [bucketTable("Domain", c.byDomain)]),
    flipLines("Fixed in B (wrong or unanswered in A, right in B)", c.fixed, 20),
    flipLines("Broken in B (right in A, wrong or unanswered in B)", c.broken, 20),
    usage,
    ...compareSections(c.bootstrap, c.cost, formatPoints).map((t) =>
      `${t.title}\n${formatTable(t.headers, t.rows, t.right)}`
    ),
    ...pairedAnswerFormsSection(c)
  ].join("\n\n") + "\n"
}

export const renderCompareJson = (c: Comparison): string => JSON.stringify(c, null, 2) + "\n"
