// Scores over groups of questions (Video-MME-v2's grouped non-linear score), as the text and HTML reports show
// them: the rule and what the unread answers did in one line, then a table per axis. Not proportions, so no
// interval; the count of groups behind each score instead.
import { formatCount, formatPercent } from "../../text/Format.js"
import type { GroupScores } from "../benchmarks/Benchmark.js"
import { esc, textTable } from "./ReportMarkup.js"

const rowsOf = (groups: GroupScores["axes"][number]["groups"]): ReadonlyArray<ReadonlyArray<string>> =>
  groups.map((g) => [g.key, formatCount(g.groups), formatPercent(g.score)])

const title = (axis: string) => `Group score per ${axis}`
const header = (axis: string) => [axis.charAt(0).toUpperCase() + axis.slice(1), "Groups", "Score"]

/** The text report's sections; none for a benchmark without group scores. */
export const groupScoresText = (
  scores: GroupScores | undefined,
  formatTable: (
    headers: ReadonlyArray<string>,
    rows: ReadonlyArray<ReadonlyArray<string>>,
    right: ReadonlyArray<boolean>
  ) => string
): ReadonlyArray<string> =>
  scores === undefined
    ? []
    : [
      `Group scores: ${scores.note}`,
      ...scores.axes.map(({ axis, groups }) =>
        `${title(axis)}\n${formatTable(header(axis), rowsOf(groups), [false, true, true])}`
      )
    ]

/** The HTML report's section; empty for a benchmark without group scores. */
export const groupScoresHtml = (scores: GroupScores | undefined): string =>
  scores === undefined
    ? ""
    : `\n<h2>Group scores</h2>\n<p>${esc(scores.note)}</p>\n` +
      scores.axes.map(({ axis, groups }) => `<h3>${esc(title(axis))}</h3>\n${textTable(header(axis), rowsOf(groups))}`)
        .join("\n")
