// The accuracy's interval clustered by video, beside the per-question Wilson interval: questions of one
// video share its difficulty (its length, its picture, its speech), so they are not independent draws,
// and a per-question interval overstates what a run shows. Pure; Report.ts puts it in the summary.
import { outcomeOf } from "../../domain/Outcome.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import { type ClusterCount, clusteredProportion, type Interval } from "../../domain/Stats.js"
import { formatCount, formatInterval } from "../../text/Format.js"

type Row = Pick<PredictionRow, "videoId" | "answer" | "options" | "prediction" | "correct">

/** The accuracy's standard error clustered by video, with the plain one it is measured against. */
export interface ClusteredAccuracy {
  /** Videos with at least one keyed question: the clusters. */
  readonly videos: number
  /** Cluster-robust SE (sandwich, G/(G−1)); null with fewer than two videos. */
  readonly se: number | null
  /** √(p(1−p)/n) over the keyed questions; null without any. */
  readonly plainSe: number | null
  /** se / plainSe: how much wider the clustered interval is; null when either is missing or plainSe is 0. */
  readonly designEffect: number | null
  /** accuracy ± 1.96·se, clipped to [0, 1]; null without an SE. */
  readonly interval: Interval | null
}

export interface ClusteredSummary extends ClusteredAccuracy {
  /** The same per task type, per duration and per domain (json only; the text shows the overall figure). */
  readonly groups: ReadonlyArray<{
    readonly axis: string
    readonly groups: ReadonlyArray<ClusteredAccuracy & { readonly key: string }>
  }>
}

const none: ClusteredAccuracy = { videos: 0, se: null, plainSe: null, designEffect: null, interval: null }

/** Keyed questions only (an unscored one is neither right nor wrong), an unanswered one counted wrong. */
export const clusteredAccuracy = (predictions: ReadonlyArray<Row>): ClusteredAccuracy => {
  const videos = new Map<string, { successes: number; trials: number }>()
  for (const p of predictions) {
    const outcome = outcomeOf(p)
    if (outcome === "unscored") continue
    const video = videos.get(p.videoId) ?? { successes: 0, trials: 0 }
    video.trials += 1
    if (outcome === "correct") video.successes += 1
    videos.set(p.videoId, video)
  }
  const c = clusteredProportion([...videos.values()] satisfies ReadonlyArray<ClusterCount>)
  return c === null
    ? none
    : { videos: c.clusters, se: c.se, plainSe: c.plainSe, designEffect: c.designEffect, interval: c.interval }
}

type GroupRow = Row & Pick<PredictionRow, "taskType" | "duration" | "domain">

/** `noGroup` names the group of questions without the category (as the accuracy tables do). */
export const clusteredSummary = (predictions: ReadonlyArray<GroupRow>, noGroup: string): ClusteredSummary => {
  const along = (axis: string, keyOf: (p: GroupRow) => string | null | undefined) => {
    const groups = new Map<string, Array<GroupRow>>()
    for (const p of predictions) {
      const key = keyOf(p) ?? noGroup
      const group = groups.get(key)
      if (group === undefined) groups.set(key, [p])
      else group.push(p)
    }
    return { axis, groups: [...groups.entries()].map(([key, rows]) => ({ key, ...clusteredAccuracy(rows) })) }
  }
  return {
    ...clusteredAccuracy(predictions),
    groups: [
      along("task type", (p) => p.taskType),
      along("duration", (p) => p.duration),
      ...(predictions.some((p) => (p.domain ?? null) !== null) ? [along("domain", (p) => p.domain)] : [])
    ]
  }
}

/** `95% CI [31.2–68.8] clustered by video (10 videos) · SE 16.7 vs 9.1 pts per question · design effect 1.83`. */
export const clusteredText = (c: ClusteredAccuracy): string => {
  if (c.videos === 0) return "no keyed question"
  const pts = (se: number | null) => (se === null ? "—" : (se * 100).toFixed(1))
  return `95% CI ${formatInterval(c.interval)} clustered by video (${formatCount(c.videos)} video${
    c.videos === 1 ? "" : "s"
  })` +
    ` · SE ${pts(c.se)} pts vs ${pts(c.plainSe)} per question` +
    ` · design effect ${c.designEffect === null ? "—" : c.designEffect.toFixed(2)}`
}

/** A table a text report prints with formatTable and a page with textTable: its title, headers, rows. */
export interface TableSection {
  readonly title: string
  readonly headers: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
  /** Which columns are numeric (right-aligned in text). */
  readonly right: ReadonlyArray<boolean>
}
