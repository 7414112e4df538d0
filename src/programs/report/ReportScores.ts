// The two scores every report shows side by side: strict (every keyed question; unanswered, unparsable and
// errored count wrong) and the benchmark's official one (OfficialScore.ts), with the counts that make them
// differ; for a run (text, html; json carries the summary's field) and for `report --compare`.
import type { Accuracy } from "../../domain/Outcome.js"
import type { BenchmarkName } from "../../domain/Question.js"
import { formatCount, formatInterval, formatPercent } from "../../text/Format.js"
import { type OfficialRow, type OfficialScore, officialScoreOf } from "../benchmarks/OfficialScore.js"
import { esc, textTable } from "./ReportMarkup.js"
import type { Summary } from "./Summary.js"

export type RunScores = Summary["scores"]

/** The strict accuracy given, and the official score of the same rows by `benchmark`'s scorer. */
export const scoresOf = (benchmark: BenchmarkName, rows: ReadonlyArray<OfficialRow>, strict: Accuracy): RunScores => ({
  strict,
  official: officialScoreOf(benchmark, rows)
})

/** The benchmark rows were saved from; rows saved before vtree kept benchmark facts are Video-MME's. */
export const benchmarkOfRows = (rows: ReadonlyArray<OfficialRow>): BenchmarkName =>
  rows.find((row) => row.benchmark != null)?.benchmark?.name ?? "videomme"

type TableFormatter = (
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  right: ReadonlyArray<boolean>
) => string

const scoreHeaders = ["Score", "Accuracy", "95% CI", "Questions"]

const scoreRows = ({ official, strict }: RunScores): ReadonlyArray<ReadonlyArray<string>> => [
  ["strict", formatPercent(strict.accuracy), formatInterval(strict.interval), formatCount(strict.total)],
  // A mean of groups or an expected value is no single proportion: no Wilson interval.
  [official.name, formatPercent(official.value), "—", formatCount(official.denominator)]
]

const countsText = (official: OfficialScore): string => {
  const { error, forced, unanswered, unparsable } = official.counts
  return `unanswered ${formatCount(unanswered)} · unparsable ${formatCount(unparsable)} · forced ${
    formatCount(forced)
  } · error ${formatCount(error)}`
}

const partsText = (official: OfficialScore): string =>
  official.parts.map((p) => `${p.key} ${formatPercent(p.value)} (${formatCount(p.denominator)})`).join(" · ")

const notes = (official: OfficialScore): ReadonlyArray<string> => [
  `What makes them differ: ${countsText(official)}`,
  `Official rule: ${official.rule} (scorer followed: ${official.scorer})`,
  ...(official.parts.length === 0 ? [] : [`Official groups: ${partsText(official)}`])
]

/** The run report's block; the table formatter is ReportText's, passed in so the modules stay one-way. */
export const scoresText = (scores: RunScores, table: TableFormatter): string =>
  [
    "Scores (strict: every keyed question, anything but the right letter wrong; official: the benchmark's scorer)",
    table(scoreHeaders, scoreRows(scores), [false, true, true, true]),
    ...notes(scores.official)
  ].join("\n")

export const scoresHtml = (scores: RunScores): string =>
  `\n<h2 id="scores">Scores: strict and official</h2>\n${textTable(scoreHeaders, scoreRows(scores))}\n` +
  notes(scores.official).map((line) => `<p>${esc(line)}</p>`).join("\n")

// ---- report --compare: both runs' scores over the shared questions.

const compareHeaders = [
  "Run",
  "Strict",
  "Strict 95% CI",
  "Official",
  "Official over",
  "Unanswered",
  "Unparsable",
  "Forced",
  "Error",
  "Official rule"
]

const compareRow = (side: string, { official, strict }: RunScores): ReadonlyArray<string> => [
  side,
  formatPercent(strict.accuracy),
  formatInterval(strict.interval),
  formatPercent(official.value),
  formatCount(official.denominator),
  formatCount(official.counts.unanswered),
  formatCount(official.counts.unparsable),
  formatCount(official.counts.forced),
  formatCount(official.counts.error),
  official.name
]

export const compareScoresText = (scores: { readonly a: RunScores; readonly b: RunScores }, table: TableFormatter) =>
  "Scores over the shared questions (strict beside each benchmark's official rule)\n" +
  table(compareHeaders, [compareRow("A", scores.a), compareRow("B", scores.b)], [
    false,
    true,
    true,
    true,
    true,
    true,
    true,
    true,
    true,
    false
  ])

export const compareScoresHtml = (scores: { readonly a: RunScores; readonly b: RunScores }): string =>
  `\n<h2 id="scores">Scores over the shared questions: strict and official</h2>\n` +
  textTable(compareHeaders, [compareRow("A", scores.a), compareRow("B", scores.b)]) +
  [
    ...new Set(
      [scores.a, scores.b].map((s) => `${s.official.name}: ${s.official.rule} (scorer followed: ${s.official.scorer})`)
    )
  ].map((line) => `\n<p>${esc(line)}</p>`).join("")
