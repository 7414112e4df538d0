// Scores and headlines from per-question outcomes, with Wilson intervals: shared by every benchmark module.
import { wilsonInterval } from "../../domain/Stats.js"
import type {
  BenchmarkName,
  BenchmarkQuestion,
  Categories,
  GroupScore,
  Headline,
  QuestionResult,
  Score
} from "./Benchmark.js"
import { outcomeOf } from "./Benchmark.js"

export const scoreOf = (results: ReadonlyArray<QuestionResult>): Score => {
  const tally = { right: 0, wrong: 0, unanswered: 0, unscored: 0 }
  for (const r of results) tally[outcomeOf(r)] += 1
  const scored = tally.right + tally.wrong + tally.unanswered
  return {
    ...tally,
    scored,
    accuracy: scored === 0 ? null : tally.right / scored,
    interval: wilsonInterval(tally.right, scored)
  }
}

/** Known labels in `order` first, the rest by name. */
const byOrder = (order: ReadonlyArray<string>) => (a: string, b: string): number => {
  const ra = order.indexOf(a)
  const rb = order.indexOf(b)
  if (ra !== -1 || rb !== -1) return (ra === -1 ? order.length : ra) - (rb === -1 ? order.length : rb)
  return a < b ? -1 : a > b ? 1 : 0
}

/** One score per label of `axis`; a question with several labels counts in each. */
export const groupScores = (
  results: ReadonlyArray<QuestionResult>,
  axis: string,
  categories: (question: BenchmarkQuestion) => Categories,
  order: ReadonlyArray<string> = []
): ReadonlyArray<GroupScore> => {
  const groups = new Map<string, Array<QuestionResult>>()
  for (const r of results) {
    const labels = categories(r.question).find((c) => c.axis === axis)?.labels ?? []
    for (const label of new Set(labels)) {
      const group = groups.get(label) ?? []
      group.push(r)
      groups.set(label, group)
    }
  }
  return [...groups.keys()].sort(byOrder(order)).map((label) => ({ label, ...scoreOf(groups.get(label)!) }))
}

/** The mean of the groups' accuracies, over the groups that have one: MLVU's M-Avg. */
export const meanAccuracy = (groups: ReadonlyArray<GroupScore>): number | null => {
  const values = groups.flatMap((g) => (g.accuracy === null ? [] : [g.accuracy]))
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length
}

export const headlineOf = (
  benchmark: BenchmarkName,
  results: ReadonlyArray<QuestionResult>,
  categories: (question: BenchmarkQuestion) => Categories,
  axes: ReadonlyArray<{ readonly axis: string; readonly order?: ReadonlyArray<string> }>
): Headline => ({
  benchmark,
  overall: scoreOf(results),
  primary: null,
  axes: axes.map(({ axis, order }) => ({ axis, groups: groupScores(results, axis, categories, order) }))
})
