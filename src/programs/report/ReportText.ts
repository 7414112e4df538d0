// A run's summary as text (the tables `vtree infer` and `vtree report` print) or JSON, and the
// formatting of numbers, times and tables the other renderers share.
import { formatUsd } from "../../domain/Cost.js"
import type { GroupAccuracy } from "../../domain/Outcome.js"
import { formatCount, formatDuration, formatInterval, formatPercent } from "../../text/Format.js"
import { alignColumns, textWidth } from "../../text/TextTable.js"
import { benchmarkLabels } from "../benchmarks/StoredResults.js"
import { answerFormsSection } from "./ReportAnswerForms.js"
import { controlLines } from "./ReportControl.js"
import { accuracyPerUsdText, costSections } from "./ReportCostDistribution.js"
import { errorsText } from "./ReportErrors.js"
import { evidenceText } from "./ReportEvidence.js"
import { keywordFallbacksText } from "./ReportFallbacks.js"
import { groupScoresText } from "./ReportGroupScores.js"
import { judgesText } from "./ReportJudges.js"
import { isNoneAxis, noneAxisLine } from "./ReportNoneAxis.js"
import { scoresText } from "./ReportScores.js"
import { clusteredText } from "./ReportStatistics.js"
import type { RoleTokenDetails, Summary } from "./Summary.js"

const tokenDetailsText = (details: ReadonlyArray<RoleTokenDetails>): ReadonlyArray<string> =>
  details.length === 0 ? [] : [
    "Token details (as the endpoints reported them)\n" + formatTable(
      ["Role", "Prompt tokens", "Cached", "Cached share", "Reasoning tokens"],
      details.map((d) => [
        d.role,
        formatCount(d.promptTokens),
        d.cachedPromptTokens === null ? "—" : formatCount(d.cachedPromptTokens),
        formatPercent(d.cachedShare),
        d.reasoningTokens === null ? "—" : formatCount(d.reasoningTokens)
      ]),
      [false, true, true, true, true]
    )
  ]

/** Columns padded to their widest cell (in terminal columns), a rule under the headers; `right` marks the numeric columns. */
export const formatTable = (
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  right: ReadonlyArray<boolean>
): string => {
  const widths = headers.map((h, i) => Math.max(textWidth(h), ...rows.map((row) => textWidth(row[i] ?? ""))))
  return alignColumns([headers, widths.map((w) => "-".repeat(w)), ...rows], right).join("\n")
}

/** `task type` → `Task type`: an axis as a table's first header. */
export const axisTitle = (axis: string): string => axis.charAt(0).toUpperCase() + axis.slice(1)

/** The Unscored column shows only when the run has questions without a key; Total counts the keyed ones. */
const accuracyTable = (title: string, groups: ReadonlyArray<GroupAccuracy>, unscored: boolean): string =>
  formatTable(
    [title, "Correct", "Wrong", "Unanswered", ...(unscored ? ["Unscored"] : []), "Total", "Accuracy", "95% CI"],
    groups.map((g) => [
      g.key,
      formatCount(g.correct),
      formatCount(g.wrong),
      formatCount(g.unanswered),
      ...(unscored ? [formatCount(g.unscored)] : []),
      formatCount(g.total),
      formatPercent(g.accuracy),
      formatInterval(g.interval)
    ]),
    [false, true, true, true, true, true, true, true]
  )

/** What the accuracy is over, and the benchmark's own headline figure beside it (MLVU's M-Avg). */
/** What a benchmark's headline figure is made of, said beside it. */
const primaryNote = (summary: Summary): string =>
  summary.groupScores !== undefined
    ? "over groups of questions: see below"
    : summary.benchmark === "longvidsearch"
    ? "of the judged answers; a tie or an unjudged answer is unscored"
    : "mean of the per-task accuracies"

/** Why questions are unscored: open-ended ones are judged (see Judges), the rest have no key. */
const unscoredNote = (summary: Summary): string => {
  const open = summary.judges?.openEnded ?? 0
  const keyless = summary.overall.unscored - open
  const parts = [
    ...(open > 0 ? [`${formatCount(open)} open-ended (scored by judges, below)`] : []),
    ...(keyless > 0 ? [`${formatCount(keyless)} unscored (no key)`] : [])
  ]
  return parts.length === 0
    ? ""
    : ` · ${parts.join(", ")}, letter accuracy over the ${formatCount(summary.overall.total)} keyed`
}

export const benchmarkLine = (summary: Summary): string =>
  `Benchmark ${benchmarkLabels[summary.benchmark]}` +
  (summary.primary === null
    ? ""
    : ` · ${summary.primary.name} ${formatPercent(summary.primary.value)} (${primaryNote(summary)})`) +
  unscoredNote(summary)

/** The run's first lines: its state, the accuracy with both intervals, protocol, benchmark, progress, control. */
const headerText = (summary: Summary): string =>
  [
    `Run ${summary.runId} · ${summary.status} · started ${summary.startedAt} · wall time ${
      formatDuration(summary.wallTimeMs)
    }`,
    `Accuracy ${formatPercent(summary.overall.accuracy)} ${formatInterval(summary.overall.interval)} 95% CI` +
    ` (${formatCount(summary.overall.correct)}/${formatCount(summary.overall.total)})` +
    ` · wrong ${formatCount(summary.overall.wrong)} · unanswered ${formatCount(summary.overall.unanswered)}` +
    (summary.overall.unscored === 0 ? "" : ` · unscored ${formatCount(summary.overall.unscored)}`) +
    ` · mean steps ${summary.meanSteps === null ? "—" : summary.meanSteps.toFixed(2)}`,
    // Beside the Wilson interval above: the one that respects that a video's questions move together.
    `Accuracy clustered: ${clusteredText(summary.clustered)}`,
    `Protocol ${summary.protocol}`,
    forcedLine(summary),
    benchmarkLine(summary),
    ...progressLine(summary),
    ...controlLines(summary)
  ].join("\n")

/** Calls, errors, retries, tokens, cost and latency per role, with a total row. */
const rolesTable = (summary: Summary): string => {
  const costOfRole = new Map(summary.cost.byRole.map((r) => [r.role, r.usd]))
  const latencyOfRole = new Map(summary.latency.map((r) => [r.role, r]))
  return formatTable(
    ["Role", "Calls", "Errors", "Retried", "Prompt tokens", "Completion tokens", "Cost (USD)", "p50", "p90", "max"],
    [
      ...summary.tokens.byRole.map((r) => {
        const latency = latencyOfRole.get(r.role)
        return [
          r.role,
          formatCount(r.calls),
          formatCount(r.errors),
          r.retried === null ? "—" : formatCount(r.retried),
          formatCount(r.promptTokens),
          formatCount(r.completionTokens),
          r.calls === 0 ? "—" : formatUsd(costOfRole.get(r.role) ?? null),
          formatDuration(latency?.p50Ms ?? null),
          formatDuration(latency?.p90Ms ?? null),
          formatDuration(latency?.maxMs ?? null)
        ]
      }),
      [
        "total",
        formatCount(summary.tokens.byRole.reduce((sum, r) => sum + r.calls, 0)),
        formatCount(summary.tokens.byRole.reduce((sum, r) => sum + r.errors, 0)),
        retriedTotal(summary),
        formatCount(summary.tokens.promptTokens),
        formatCount(summary.tokens.completionTokens),
        formatUsd(summary.cost.total),
        "",
        "",
        ""
      ]
    ],
    [false, true, true, true, true, true, true, true, true, true]
  )
}

export const renderText = (summary: Summary): string => {
  const stops = formatTable(
    ["Stop reason", "Questions"],
    summary.stopReasons.map((s) => [s.reason, String(s.count)]),
    [false, true]
  )
  const shapes = summary.replyShapes.shapes.length === 0 ? [] : [
    `Reply shapes of ${summary.replyShapes.model} (a step may count under several)\n` + formatTable(
      ["Shape", "Steps", "Share"],
      summary.replyShapes.shapes.map((s) => [
        s.shape,
        formatCount(s.steps),
        formatPercent(summary.replyShapes.steps === 0 ? null : s.steps / summary.replyShapes.steps)
      ]),
      [false, true, true]
    )
  ]
  return [
    headerText(summary),
    scoresText(summary.scores, formatTable),
    ...settingsText(summary),
    ...summary.axes.map(({ axis, groups }) =>
      isNoneAxis(groups)
        ? noneAxisLine(axisTitle(axis))
        : accuracyTable(axisTitle(axis), groups, summary.overall.unscored > 0)
    ),
    ...groupScoresText(summary.groupScores, formatTable),
    stops,
    ...errorsText(summary.errors, formatTable),
    `Model calls per role (latency p50 / p90 / max per call)\n${rolesTable(summary)}`,
    ...tokenDetailsText(summary.tokenDetails),
    costNote(summary),
    ...shapes,
    ...workersText(summary),
    ...costSections(summary.costDistribution, !isNoneAxis(summary.costDistribution.byTaskType)).map((t) =>
      `${t.title}\n${formatTable(t.headers, t.rows, t.right)}`
    ),
    accuracyPerUsdText(summary.costDistribution.accuracyPerUsd),
    ...answerFormsSection(summary),
    ...judgesText(summary.judges, formatTable),
    ...evidenceText(summary.evidence),
    ...keywordFallbacksText(summary.keywordFallbacks)
  ].join("\n\n") + "\n"
}

/** What the run was run with (RunSettings.ts), a name and a value per line. */
const settingsText = (summary: Summary): ReadonlyArray<string> =>
  summary.settings.length === 0 ? [] : [
    "Settings\n" + formatTable(["Setting", "Value"], summary.settings.map((s) => [s.name, s.value]), [false, false])
  ]

/** Retried calls over the roles that recorded attempts; `—` when none did. */
export const retriedTotal = (summary: Summary): string => {
  const known = summary.tokens.byRole.filter((r) => r.retried !== null && r.calls > 0)
  return known.length === 0 && summary.tokens.byRole.some((r) => r.calls > 0)
    ? "—"
    : formatCount(known.reduce((sum, r) => sum + (r.retried ?? 0), 0))
}

/**
 * The final-answer mode, and the forced answers counted apart: how many, how they scored, and the
 * accuracy the run would have had with them left unanswered (as `--no-final-answer` scores).
 */
export const forcedLine = (summary: Summary): string => {
  const { answers, finalAnswer, withoutForced } = summary.forced
  const count = answers.total + answers.unscored
  const mode = `Final answer at the budget ${finalAnswer ? "on" : "off (--no-final-answer)"}`
  if (count === 0) return `${mode} · no forced answers`
  return `${mode} · forced answers ${formatCount(count)}` +
    (answers.total === 0
      ? " (none keyed)"
      : `, accuracy ${formatPercent(answers.accuracy)} ${formatInterval(answers.interval)} (${
        formatCount(answers.correct)
      }/${formatCount(answers.total)})`) +
    ` · accuracy without them ${formatPercent(withoutForced.accuracy)} (${formatCount(withoutForced.correct)}/${
      formatCount(withoutForced.total)
    })`
}

/** The queue while the run is unfinished (what is saved, held by live workers, still open); else null. */
export const progressText = (summary: Summary): string | null => {
  const progress = summary.progress
  if (progress === null || progress.done >= progress.total) return null
  const live = summary.workers.filter((w) => w.live === true).length
  return `${formatCount(progress.done)}/${formatCount(progress.total)} saved (${
    formatPercent(progress.done / progress.total)
  })` +
    ` · ${formatCount(progress.claimed)} in hand · ${formatCount(progress.open)} open` +
    (live > 0 ? ` · ${live} live worker${live === 1 ? "" : "s"}` : "")
}

const progressLine = (summary: Summary): ReadonlyArray<string> => {
  const text = progressText(summary)
  return text === null ? [] : [`Progress ${text}`]
}

/** The workers table's rows, when more than one process answered the run or one still works on it; else empty. */
export const workerRows = (summary: Summary): ReadonlyArray<ReadonlyArray<string>> => {
  const { workers } = summary
  if (workers.length < 2 && !workers.some((w) => w.live === true)) return []
  return workers.map((w) => [
    w.worker,
    formatCount(w.questions),
    w.live === true ? "live" : w.live === null ? "claim held" : w.heartbeatAt === null ? "done" : "lease expired",
    w.heartbeatAt ?? "—"
  ])
}

export const workerHeaders = ["Worker", "Questions", "State", "Last heartbeat"]

const workersText = (summary: Summary): ReadonlyArray<string> => {
  const rows = workerRows(summary)
  return rows.length === 0 ? [] : ["Workers\n" + formatTable(workerHeaders, rows, [false, true, false, false])]
}

/** Cost per run and question, and why it is unknown or an upper bound when it is. */
export const costNote = (summary: Summary): string => {
  const { cost, questionTime } = summary
  const head = `Cost ${formatUsd(cost.total)} · per question ${formatUsd(cost.perQuestionMean)} · time per question ` +
    `p50 ${formatDuration(questionTime.p50Ms)}, p90 ${formatDuration(questionTime.p90Ms)}, max ${
      formatDuration(questionTime.maxMs)
    }`
  const why = cost.unpriced.length > 0
    ? ` (no price for ${cost.unpriced.join(", ")}: set ${
      cost.unpriced.map((r) => `VTREE_${r.toUpperCase()}_PRICE`).join(", ")
    } or pass --prices FILE)`
    : !cost.cachedTokensRecorded && cost.total !== null
    ? " (no cached-token counts recorded: every prompt token charged at the full input price, an upper bound)"
    : ""
  return head + why
}

export const renderJson = (summary: Summary): string => JSON.stringify(summary, null, 2) + "\n"
