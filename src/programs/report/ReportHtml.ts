// One self-contained HTML page per run: no external assets, one small inline script (sorting, filters,
// lazy trajectories), so it can be mailed or archived as is. Everything that came from a model, a
// question file or a tree passes through `escapeHtml`.
import { Schema } from "effect"
import { gunzipSync, gzipSync } from "node:zlib"
import { formatUsd } from "../../domain/Cost.js"
import type { GroupAccuracy } from "../../domain/Outcome.js"
import { outcomeOf } from "../../domain/Outcome.js"
import { formatCount, formatDuration, formatInterval, formatPercent } from "../../text/Format.js"
import { escapeHtml } from "../../text/Html.js"
import { terminalText } from "../../text/TerminalText.js"
import { isForced, summarize } from "./Report.js"
import { answerFormCell, answerFormHeader, answerFormsRow } from "./ReportAnswerForms.js"
import { controlLines } from "./ReportControl.js"
import { accuracyPerUsdText, costSections } from "./ReportCostDistribution.js"
import { errorsHeading, retryAdvice } from "./ReportErrors.js"
import type { frameMarkup } from "./ReportFrames.js"
import { groupScoresHtml } from "./ReportGroupScores.js"
import { deferred, firstRows, script, style } from "./ReportHtmlAssets.js"
import { judgesHtml } from "./ReportJudges.js"
import { esc, groupBy, num, textTable } from "./ReportMarkup.js"
import { isNoneAxis, noneAxisLine } from "./ReportNoneAxis.js"
import { scoresHtml } from "./ReportScores.js"
import { clusteredText } from "./ReportStatistics.js"
import {
  axisTitle,
  benchmarkLine,
  costNote,
  forcedLine,
  progressText,
  retriedTotal,
  workerHeaders,
  workerRows
} from "./ReportText.js"
import { trajectoryParts, verdict } from "./ReportTrajectory.js"
import type { ReportInput, ReportPrediction, Summary } from "./Summary.js"

const accuracyTable = (title: string, groups: ReadonlyArray<GroupAccuracy>, unscored = false): string =>
  `<table><tr><th>${esc(title)}</th><th>Correct</th><th>Wrong</th><th>Unanswered</th>${
    unscored ? "<th>Unscored</th>" : ""
  }<th>Total</th><th>Accuracy</th>` +
  `<th>95% CI</th></tr>` +
  groups.map((g) =>
    `<tr><td>${esc(g.key)}</td>${num(g.correct)}${num(g.wrong)}${num(g.unanswered)}${unscored ? num(g.unscored) : ""}${
      num(g.total)
    }` +
    `<td class="n">${esc(formatPercent(g.accuracy))}</td><td class="n">${esc(formatInterval(g.interval))}</td></tr>`
  ).join("") + `</table>`

/** The dashed 0–100 % gridlines and their labels under a bar chart's bars. */
export const chartAxis = (labelWidth: number, barWidth: number, height: number): string =>
  [0, 0.25, 0.5, 0.75, 1].map((t) => {
    const x = labelWidth + t * barWidth
    return `<line x1="${x}" y1="0" x2="${x}" y2="${height - 20}" stroke="#d0d7de" stroke-dasharray="2,3"/>` +
      `<text x="${x}" y="${height - 6}" text-anchor="middle" fill="#57606a">${t * 100}%</text>`
  }).join("")

/** Horizontal bars, one per group, scaled 0–100 %, each with its 95 % Wilson interval as an error bar. */
export const accuracyChart = (groups: ReadonlyArray<GroupAccuracy>, label = "Accuracy per task type"): string => {
  const labelWidth = 240
  const barWidth = 420
  const rowHeight = 24
  const width = labelWidth + barWidth + 70
  const height = Math.max(1, groups.length) * rowHeight + 24
  const rows = groups.map((g, i) => {
    const y = i * rowHeight
    const share = g.accuracy ?? 0
    const name = g.key.length > 34 ? `${g.key.slice(0, 33)}…` : g.key
    const errorBar = g.interval === null ? "" : (() => {
      const x1 = (labelWidth + g.interval.low * barWidth).toFixed(1)
      const x2 = (labelWidth + g.interval.high * barWidth).toFixed(1)
      return `<g class="err" stroke="#1f2328" stroke-width="1.5"><line x1="${x1}" y1="12" x2="${x2}" y2="12"/>` +
        `<line x1="${x1}" y1="7" x2="${x1}" y2="17"/><line x1="${x2}" y1="7" x2="${x2}" y2="17"/></g>`
    })()
    return `<g transform="translate(0,${y})"><title>${
      esc(`${g.key}: ${g.correct}/${g.total}, 95% CI ${formatInterval(g.interval)}`)
    }</title>` +
      `<text x="${labelWidth - 8}" y="16" text-anchor="end">${esc(name)}</text>` +
      `<rect x="${labelWidth}" y="4" width="${barWidth}" height="16" fill="#eaeef2"/>` +
      `<rect x="${labelWidth}" y="4" width="${(share * barWidth).toFixed(1)}" height="16" fill="#2f81f7"/>` +
      errorBar +
      `<text x="${labelWidth + barWidth + 6}" y="16">${esc(formatPercent(g.accuracy))}</text></g>`
  }).join("")
  const axis = chartAxis(labelWidth, barWidth, height)
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(label)}" ` +
    `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-size="12" ` +
    `font-family="system-ui,sans-serif">${rows}${axis}</svg>`
}

const summarySection = (summary: Summary): string => {
  const shapeRows = summary.replyShapes.shapes.map((s) => `<tr><td>${escapeHtml(s.shape)}</td>${num(s.steps)}</tr>`)
    .join("")
  const shapeTable = shapeRows === ""
    ? ""
    : `\n<h2>Reply shapes of ${
      escapeHtml(summary.replyShapes.model)
    }</h2>\n<table><tr><th>Shape</th><th>Steps</th></tr>${shapeRows}</table>`
  const costOfRole = new Map(summary.cost.byRole.map((r) => [r.role, r.usd]))
  const latencyOfRole = new Map(summary.latency.map((r) => [r.role, r]))
  const ms = (value: number | null | undefined) => `<td class="n">${esc(formatDuration(value ?? null))}</td>`
  const tokenRows =
    summary.tokens.byRole.map((r) =>
      `<tr><td>${esc(r.role)}</td>${num(r.calls)}${num(r.errors)}${
        r.retried === null ? `<td class="n">—</td>` : num(r.retried)
      }${num(r.promptTokens)}${num(r.completionTokens)}` +
      `<td class="n">${r.calls === 0 ? "—" : esc(formatUsd(costOfRole.get(r.role) ?? null))}</td>${
        ms(latencyOfRole.get(r.role)?.p50Ms)
      }` +
      `${ms(latencyOfRole.get(r.role)?.p90Ms)}${ms(latencyOfRole.get(r.role)?.maxMs)}</tr>`
    ).join("") +
    `<tr><td><b>total</b></td>${num(summary.tokens.byRole.reduce((sum, r) => sum + r.calls, 0))}` +
    `${num(summary.tokens.byRole.reduce((sum, r) => sum + r.errors, 0))}<td class="n">${
      esc(retriedTotal(summary))
    }</td>${num(summary.tokens.promptTokens)}` +
    `${num(summary.tokens.completionTokens)}<td class="n">${
      esc(formatUsd(summary.cost.total))
    }</td><td></td><td></td><td></td></tr>`
  const stopRows = summary.stopReasons.map((s) => `<tr><td>${esc(s.reason)}</td>${num(s.count)}</tr>`)
    .join("")
  return `<table class="kv">
<tr><td>Status</td><td>${esc(summary.status)}</td></tr>${
    progressText(summary) === null ? "" : `\n<tr><td>Progress</td><td>${esc(progressText(summary)!)}</td></tr>`
  }
<tr><td>Benchmark</td><td>${esc(benchmarkLine(summary).replace(/^Benchmark /, ""))}</td></tr>
<tr><td>Protocol</td><td>${esc(summary.protocol)}</td></tr>
<tr><td>Final answer</td><td id="forced">${
    esc(forcedLine(summary).replace(/^Final answer at the budget /, ""))
  }</td></tr>
<tr><td>Started</td><td>${esc(summary.startedAt)}</td></tr>
<tr><td>Finished</td><td>${esc(summary.finishedAt ?? "—")}</td></tr>
<tr><td>Wall time</td><td>${esc(formatDuration(summary.wallTimeMs))}</td></tr>
<tr><td>Accuracy</td><td>${esc(formatPercent(summary.overall.accuracy))} ${
    esc(formatInterval(summary.overall.interval))
  } 95% CI (${formatCount(summary.overall.correct)}/${formatCount(summary.overall.total)})</td></tr>
<tr><td>Wrong</td><td>${formatCount(summary.overall.wrong)}</td></tr>
<tr><td>Unanswered</td><td>${formatCount(summary.overall.unanswered)}</td></tr>
<tr><td>Unscored (no key)</td><td>${formatCount(summary.overall.unscored)}</td></tr>
<tr><td>Mean steps</td><td>${summary.meanSteps === null ? "—" : summary.meanSteps.toFixed(2)}</td></tr>${
    controlLines(summary).map((line) =>
      `\n<tr><td>Control</td><td>${esc(line.replace(/^Control run: /, ""))}</td></tr>`
    )
      .join("")
  }${answerFormsRow(summary)}
<tr><td>Accuracy clustered</td><td>${esc(clusteredText(summary.clustered))}</td></tr>
</table>${scoresHtml(summary.scores)}
${
    summary.settings.length === 0
      ? ""
      : `<h2>Settings</h2>\n${textTable(["Setting", "Value"], summary.settings.map((x) => [x.name, x.value]))}\n`
  }${
    summary.axes.map(({ axis, groups }) =>
      isNoneAxis(groups) ?
        `<p class="muted">${esc(noneAxisLine(axisTitle(axis)))}</p>` :
        `<h2>Accuracy per ${esc(axis)}</h2>
${accuracyChart(groups, `Accuracy per ${axis}`)}
${accuracyTable(axisTitle(axis), groups, summary.overall.unscored > 0)}`
    ).join("\n")
  }${groupScoresHtml(summary.groupScores)}
<h2>Stop reasons</h2>
<table><tr><th>Stop reason</th><th>Questions</th></tr>${stopRows}</table>${errorsSection(summary.errors)}
<h2>Model calls per role</h2>
<table><tr><th>Role</th><th>Calls</th><th>Errors</th><th>Retried</th><th>Prompt tokens</th><th>Completion tokens</th><th>Cost (USD)</th>` +
    `<th>Latency p50</th><th>Latency p90</th><th>Latency max</th></tr>${tokenRows}</table>
<p id="cost">${esc(costNote(summary))}</p>${tokenDetailsTable(summary)}${shapeTable}${workersTable(summary)}${
      costSections(summary.costDistribution, !isNoneAxis(summary.costDistribution.byTaskType)).map((t) =>
        `\n<h2>${esc(t.title)}</h2>\n${textTable(t.headers, t.rows)}`
      )
        .join("")
    }\n<p>${esc(accuracyPerUsdText(summary.costDistribution.accuracyPerUsd))}</p>${judgesHtml(summary.judges)}`
}

/** The commonest error messages and the command that asks the `error` questions again, as the text report has them. */
const errorsSection = (errors: Summary["errors"]): string => {
  if (errors.messages.length === 0) return ""
  // A message is data: shown, never obeyed (control characters made visible), then escaped for the page.
  const rows = errors.messages.map((m) => `<tr>${num(m.count)}<td>${esc(terminalText(m.message))}</td></tr>`).join("")
  const hint = errors.retryCommand === null
    ? ""
    : `\n<p>${esc(retryAdvice)} <code>${esc(errors.retryCommand)}</code> (with the run's --trees and --db)</p>`
  return `\n<h2 id="errors">${
    esc(errorsHeading(errors))
  }</h2>\n<table><tr><th>Count</th><th>Message</th></tr>${rows}</table>${hint}`
}

const workersTable = (summary: Summary): string => {
  const rows = workerRows(summary)
  if (rows.length === 0) return ""
  const body = rows.map(([worker, questions, state, heartbeat]) =>
    `<tr><td>${esc(worker!)}</td><td class="n">${esc(questions!)}</td><td>${esc(state!)}</td><td>${
      esc(heartbeat!)
    }</td></tr>`
  ).join("")
  return `\n<h2>Workers</h2>\n<table><tr>${workerHeaders.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${body}</table>`
}

const tokenDetailsTable = (summary: Summary): string => {
  if (summary.tokenDetails.length === 0) return ""
  const count = (n: number | null) => (n === null ? `<td class="n">—</td>` : num(n))
  const rows = summary.tokenDetails.map((d) =>
    `<tr><td>${esc(d.role)}</td>${num(d.promptTokens)}${count(d.cachedPromptTokens)}` +
    `<td class="n">${esc(formatPercent(d.cachedShare))}</td>${count(d.reasoningTokens)}</tr>`
  ).join("")
  return `\n<h2>Cached and reasoning tokens per role</h2>\n<table><tr><th>Role</th><th>Prompt tokens</th><th>Cached</th>` +
    `<th>Cached share</th><th>Reasoning tokens</th></tr>${rows}</table>`
}

/** A question's stop reason, and whether its answer was forced (given after the step budget was spent). */
export const stopText = (
  p: ReportPrediction
): string => (isForced(p) ? `${p.stopReason} · forced answer` : p.stopReason)

// Sort keys ride on the cells (data-v) so sorting never parses the displayed, formatted text.
const questionTable = (predictions: ReadonlyArray<ReportPrediction>, summary: Summary): string => {
  const rows = predictions.map((p, i) => {
    const outcome = outcomeOf(p)
    const tokens = p.promptTokens + p.completionTokens
    const time = p.finishedAt - p.startedAt
    const cost = summary.cost.byQuestion[p.questionId] ?? null
    return `<tr data-type="${esc(p.taskType ?? "")}" data-outcome="${outcome}">` +
      `<td><a href="#q${i}">${esc(p.questionId)}</a></td><td>${esc(p.videoId)}</td><td>${esc(p.taskType)}</td>` +
      `<td>${esc(p.duration)}</td><td>${esc(p.prediction ?? "—")}</td><td>${esc(p.answer)}</td>` +
      `<td data-v="${outcome}">${verdict(p)}</td>` +
      `<td class="n" data-v="${p.stepsUsed}">${formatCount(p.stepsUsed)}</td><td>${esc(stopText(p))}</td>` +
      `<td class="n" data-v="${tokens}">${formatCount(tokens)}</td>` +
      `<td class="n" data-v="${cost ?? -1}">${esc(formatUsd(cost))}</td>` +
      `<td class="n" data-v="${time}">${esc(formatDuration(time))}</td>` +
      `${answerFormCell(p)}</tr>`
  })
  const types = [...new Set(predictions.map((p) => p.taskType ?? ""))].sort()
  const typeOptions = types.map((t) => `<option value="${esc(t)}">${esc(t === "" ? "(none)" : t)}</option>`).join("")
  const head = [
    ["Question", "t"],
    ["Video", "t"],
    ["Task type", "t"],
    ["Duration", "t"],
    ["Prediction", "t"],
    ["Answer", "t"],
    ["Outcome", "t"],
    ["Steps", "n"],
    ["Stop reason", "t"],
    ["Tokens", "n"],
    ["Cost (USD)", "n"],
    ["Time", "n"],
    answerFormHeader
  ].map(([label, kind]) => `<th data-sort="${kind}" title="Sort by ${label!.toLowerCase()}">${label}</th>`).join("")
  return `<p class="filters"><label>Task type <select id="f-type"><option value="">all</option>${typeOptions}</select></label> ` +
    `<label>Outcome <select id="f-outcome"><option value="">all</option><option value="correct">correct</option>` +
    `<option value="wrong">wrong</option><option value="unanswered">unanswered</option><option value="unscored">unscored</option></select></label> ` +
    `<span id="f-count" class="muted">${formatCount(predictions.length)} shown</span></p>` +
    `<table id="questions"><thead><tr>${head}</tr></thead><tbody>\n${
      rows.slice(0, firstRows).join("\n")
    }</tbody></table>` +
    deferred("rest-rows", rows.slice(firstRows))
}

/**
 * Every trajectory body, as base64 of gzipped JSON. At 2,700 questions the bodies (each step's tool
 * output) are most of the page, and a browser must read a page whole before it shows it: packed, they
 * cost the page a fraction of their size, and the browser unpacks them only when one is first opened.
 */
export const packBodies = (bodies: ReadonlyArray<string>): string => gzipSync(JSON.stringify(bodies)).toString("base64")

const decodeBodies = Schema.decodeUnknownSync(Schema.parseJson(Schema.Array(Schema.String)))

/** The bodies `packBodies` packed; for tests and tools that read a saved page. */
export const unpackBodies = (page: string): ReadonlyArray<string> => {
  const packed = /<script type="application\/gzip" id="bodies">([^<]*)<\/script>/.exec(page)?.[1] ?? ""
  return packed === "" ? [] : decodeBodies(gunzipSync(Buffer.from(packed, "base64")).toString("utf8"))
}

export const renderHtml = (
  input: ReportInput,
  summary: Summary = summarize(input),
  extras: { readonly frames?: ReturnType<typeof frameMarkup> } = {}
): string => {
  const stepsByQuestion = groupBy(input.steps, (s) => s.questionId)
  const callsByQuestion = groupBy(input.calls, (c) => c.questionId)
  const bodies: Array<string> = []
  const trajectories = input.predictions.map((p, i) => {
    const parts = trajectoryParts(
      p,
      [...(stepsByQuestion.get(p.questionId) ?? [])].sort((a, b) => a.step - b.step),
      callsByQuestion.get(p.questionId) ?? [],
      extras.frames?.decorFor(p.videoId)
    )
    bodies.push(parts.body)
    return `<details class="q" id="q${i}" data-body="${i}"><summary>${parts.summary}</summary></details>`
  })
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vtree run ${esc(summary.runId)}</title>
<style>${style}</style>
</head>
<body>
<h1>vtree run ${esc(summary.runId)}</h1>
${summarySection(summary)}
<h2>Questions</h2>
${questionTable(input.predictions, summary)}
<h2>Trajectories</h2>
<div id="trajectories">
${trajectories.slice(0, firstRows).join("\n")}
</div>
${deferred("rest-shells", trajectories.slice(firstRows))}
<script type="application/gzip" id="bodies">${packBodies(bodies)}</script>
${extras.frames?.store ?? ""}
<script>${script}</script>
</body>
</html>
`
}
