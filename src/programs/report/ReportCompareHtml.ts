// The comparison of two runs as one self-contained page: paired chart with error bars, bucket deltas, the
// McNemar verdict, usage deltas, and each flipped question linked to its trajectory in both runs.
import { countOf, formatCount, formatInterval, formatPercent } from "../../text/Format.js"
import { pairedAnswerFormsHtml } from "./ReportAnswerForms.js"
import type { BucketDelta, Comparison, Flip } from "./ReportCompare.js"
import { formatPoints, formatUsage } from "./ReportCompare.js"
import { bootstrapLine, compareSections } from "./ReportCompareStatistics.js"
import { controlEffectLine } from "./ReportControl.js"
import { chartAxis } from "./ReportHtml.js"
import { script, style } from "./ReportHtmlAssets.js"
import { esc, groupBy, num, textTable } from "./ReportMarkup.js"
import { isNoneAxis } from "./ReportNoneAxis.js"
import { compareScoresHtml } from "./ReportScores.js"
import { trajectory } from "./ReportTrajectory.js"
import type { ReportCall, ReportPrediction, ReportStep } from "./Summary.js"

/** The rows a side contributes to the page: only its flipped questions' steps and calls are needed. */
export interface CompareTrajectories {
  readonly predictions: ReadonlyArray<ReportPrediction>
  readonly steps: ReadonlyArray<ReportStep>
  readonly calls: ReadonlyArray<ReportCall>
}

const colorA = "#8c959f"
const colorB = "#2f81f7"

/** Two bars per bucket (A above B), each with its 95 % Wilson interval as an error bar. */
export const pairedChart = (rows: ReadonlyArray<BucketDelta>, label: string): string => {
  const labelWidth = 240
  const barWidth = 420
  const rowHeight = 44
  const width = labelWidth + barWidth + 120
  const height = Math.max(1, rows.length) * rowHeight + 24
  const bar = (y: number, accuracy: BucketDelta["a"], color: string, side: string) => {
    const share = accuracy.accuracy ?? 0
    const error = accuracy.interval === null ? "" : (() => {
      const x1 = (labelWidth + accuracy.interval.low * barWidth).toFixed(1)
      const x2 = (labelWidth + accuracy.interval.high * barWidth).toFixed(1)
      const mid = y + 8
      return `<g class="err" stroke="#1f2328" stroke-width="1.5"><line x1="${x1}" y1="${mid}" x2="${x2}" y2="${mid}"/>` +
        `<line x1="${x1}" y1="${mid - 5}" x2="${x1}" y2="${mid + 5}"/><line x1="${x2}" y1="${mid - 5}" x2="${x2}" y2="${
          mid + 5
        }"/></g>`
    })()
    return `<rect x="${labelWidth}" y="${y}" width="${barWidth}" height="16" fill="#eaeef2"/>` +
      `<rect x="${labelWidth}" y="${y}" width="${(share * barWidth).toFixed(1)}" height="16" fill="${color}"/>` +
      error +
      `<text x="${labelWidth + barWidth + 6}" y="${y + 12}">${side} ${esc(formatPercent(accuracy.accuracy))}</text>`
  }
  const body = rows.map((r, i) => {
    const name = r.key.length > 34 ? `${r.key.slice(0, 33)}…` : r.key
    return `<g transform="translate(0,${i * rowHeight})"><title>${
      esc(
        `${r.key}: A ${formatInterval(r.a.interval)}, B ${formatInterval(r.b.interval)}, B − A ${formatPoints(r.delta)}`
      )
    }</title><text x="${labelWidth - 8}" y="22" text-anchor="end">${esc(name)}</text>` +
      bar(2, r.a, colorA, "A") + bar(22, r.b, colorB, "B") + `</g>`
  }).join("")
  const axis = chartAxis(labelWidth, barWidth, height)
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${
    esc(label)
  }" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-size="12" font-family="system-ui,sans-serif">${body}${axis}</svg>`
}

const bucketTable = (title: string, rows: ReadonlyArray<BucketDelta>): string =>
  `<table><tr><th>${esc(title)}</th><th>Questions</th><th>A accuracy</th><th>A 95% CI</th><th>B accuracy</th>` +
  `<th>B 95% CI</th><th>B − A</th></tr>` +
  rows.map((r) =>
    `<tr><td>${esc(r.key)}</td>${num(r.a.total)}<td class="n">${esc(formatPercent(r.a.accuracy))}</td>` +
    `<td class="n">${esc(formatInterval(r.a.interval))}</td><td class="n">${esc(formatPercent(r.b.accuracy))}</td>` +
    `<td class="n">${esc(formatInterval(r.b.interval))}</td><td class="n">${esc(formatPoints(r.delta))}</td></tr>`
  ).join("") + `</table>`

const flipTable = (flips: ReadonlyArray<Flip>, indexA: Map<string, number>, indexB: Map<string, number>): string =>
  flips.length === 0 ?
    `<p class="muted">None.</p>` :
    `<table><tr><th>Question</th><th>Video</th><th>Task type</th><th>Answer</th><th>A said</th><th>B said</th>` +
    `<th>Trajectories</th></tr>` +
    flips.map((f) =>
      `<tr><td>${esc(f.questionId)}</td><td>${esc(f.videoId)}</td><td>${esc(f.taskType)}</td><td>${
        esc(f.answer ?? "—")
      }</td>` +
      `<td>${esc(f.predictionA ?? "unanswered")}</td><td>${esc(f.predictionB ?? "unanswered")}</td>` +
      `<td><a href="#a${indexA.get(f.questionId)}">A</a> · <a href="#b${indexB.get(f.questionId)}">B</a></td></tr>`
    ).join("") + `</table>`

const trajectoriesOf = (
  side: CompareTrajectories,
  ids: ReadonlySet<string>,
  prefix: string
): { readonly html: string; readonly index: Map<string, number> } => {
  const steps = groupBy(side.steps, (s) => s.questionId)
  const calls = groupBy(side.calls, (c) => c.questionId)
  const index = new Map<string, number>()
  const blocks: Array<string> = []
  side.predictions.forEach((p, i) => {
    if (!ids.has(p.questionId)) return
    index.set(p.questionId, i)
    blocks.push(trajectory(
      p,
      i,
      [...(steps.get(p.questionId) ?? [])].sort((x, y) => x.step - y.step),
      calls.get(p.questionId) ?? [],
      prefix
    ))
  })
  return { html: blocks.join("\n"), index }
}

export const renderCompareHtml = (c: Comparison, a: CompareTrajectories, b: CompareTrajectories): string => {
  const flipped = new Set([...c.fixed, ...c.broken].map((f) => f.questionId))
  const ta = trajectoriesOf(a, flipped, "a")
  const tb = trajectoriesOf(b, flipped, "b")
  const usageRows = c.usage.map((u) =>
    `<tr><td>${esc(u.metric)}</td><td class="n">${esc(formatUsage(u.a, u.unit))}</td>` +
    `<td class="n">${esc(formatUsage(u.b, u.unit))}</td><td class="n">${
      esc(formatUsage(u.delta, u.unit, true))
    }</td></tr>`
  ).join("")
  const section = (title: string, rows: ReadonlyArray<BucketDelta>) =>
    isNoneAxis(rows)
      ? ""
      : `<h2>${esc(title)}</h2>\n${pairedChart(rows, title)}\n${
        bucketTable(title.replace("Accuracy per ", ""), rows)
      }\n`
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vtree: ${esc(c.a.runId)} vs ${esc(c.b.runId)}</title>
<style>${style}</style>
</head>
<body>
<h1>Run comparison</h1>
<table class="kv">
<tr><td>A</td><td>${esc(c.a.runId)} <span class="muted">(${esc(c.a.source)}, ${
    countOf(c.a.questions, "question")
  })</span></td></tr>
<tr><td>B</td><td>${esc(c.b.runId)} <span class="muted">(${esc(c.b.source)}, ${
    countOf(c.b.questions, "question")
  })</span></td></tr>
<tr><td>Shared questions</td><td>${formatCount(c.shared)}</td></tr>
<tr><td>Accuracy A</td><td>${esc(formatPercent(c.overall.a.accuracy))} ${
    esc(formatInterval(c.overall.a.interval))
  } 95% CI</td></tr>
<tr><td>Accuracy B</td><td>${esc(formatPercent(c.overall.b.accuracy))} ${
    esc(formatInterval(c.overall.b.interval))
  } 95% CI</td></tr>
<tr><td>B − A</td><td>${esc(formatPoints(c.overall.delta))}</td></tr>
<tr><td>Verdict</td><td id="verdict">${esc(c.mcnemar.verdict)}</td></tr>${
    controlEffectLine(c.control).map((line) => `\n<tr><td>Control</td><td id="control">${esc(line)}</td></tr>`).join("")
  }
<tr><td>Clustered by video</td><td id="bootstrap">${esc(bootstrapLine(c.bootstrap, formatPoints))}</td></tr>
</table>${compareScoresHtml(c.scores)}
${section("Accuracy overall", [c.overall])}${section("Accuracy per task type", c.byTaskType)}${
    section("Accuracy per duration", c.byDuration)
  }${section("Accuracy per domain", c.byDomain)}
<h2>Settings that differ</h2>
${
    c.settings.length === 0
      ? "<p>None: the two runs were run with the same settings.</p>"
      : textTable(["Setting", "A", "B"], c.settings.map((x) => [x.name, x.a, x.b]))
  }
<h2>Usage over the shared questions</h2>
<table><tr><th>Metric</th><th>A</th><th>B</th><th>B − A</th></tr>${usageRows}</table>${
    compareSections(c.bootstrap, c.cost, formatPoints).map((t) =>
      `\n<h2>${esc(t.title)}</h2>\n${textTable(t.headers, t.rows)}`
    )
      .join("")
  }${pairedAnswerFormsHtml(c)}
<h2>Fixed in B (${formatCount(c.fixed.length)})</h2>
${flipTable(c.fixed, ta.index, tb.index)}
<h2>Broken in B (${formatCount(c.broken.length)})</h2>
${flipTable(c.broken, ta.index, tb.index)}
<h2>Trajectories in A</h2>
${ta.html}
<h2>Trajectories in B</h2>
${tb.html}
<script>${script}</script>
</body>
</html>
`
}
