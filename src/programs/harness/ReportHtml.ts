// One self-contained HTML page per run: no external assets, one small inline script (sorting, filters,
// lazy trajectories), so it can be mailed or archived as is. Everything that came from a model, a
// question file or a tree passes through `escapeHtml`.
import { Schema } from "effect"
import { gunzipSync, gzipSync } from "node:zlib"
import type { GroupAccuracy, ReportCall, ReportInput, ReportPrediction, ReportStep, Summary } from "./Report.js"
import { formatUsd } from "./Cost.js"
import {
  costNote,
  formatCount,
  formatDuration,
  formatInterval,
  formatPercent,
  outcomeOf,
  progressText,
  summarize,
  workerHeaders,
  workerRows
} from "./Report.js"

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&#39;")

export const esc = (value: string | number | null): string => value === null ? "" : escapeHtml(String(value))

const jsonBlock = (value: unknown): string => {
  let text: string
  try {
    text = typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? "null"
  } catch {
    text = String(value)
  }
  return `<pre>${escapeHtml(text)}</pre>`
}

const isEmpty = (value: unknown): boolean =>
  value === null || value === undefined ||
  (typeof value === "object" && Object.keys(value as object).length === 0)

export const style = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;margin:.3rem 0}
details{margin:.3rem 0}details.q{border:1px solid #d0d7de;border-radius:6px;padding:.3rem .6rem}
details.step{margin-left:1rem;border-left:3px solid #d0d7de;padding-left:.6rem}
summary{cursor:pointer}th[data-sort]{cursor:pointer;user-select:none}th[data-dir=asc]::after{content:" ▲"}th[data-dir=desc]::after{content:" ▼"}
.filters label{margin-right:1rem}svg.timeline{display:block;margin:.4rem 0}.muted{color:#57606a}.kv td:first-child{font-weight:600;white-space:nowrap}
`

export const num = (n: number): string => `<td class="n">${formatCount(n)}</td>`

const accuracyTable = (title: string, groups: ReadonlyArray<GroupAccuracy>): string =>
  `<table><tr><th>${esc(title)}</th><th>Correct</th><th>Wrong</th><th>Unanswered</th><th>Total</th><th>Accuracy</th>` +
  `<th>95% CI</th></tr>` +
  groups.map((g) =>
    `<tr><td>${esc(g.key)}</td>${num(g.correct)}${num(g.wrong)}${num(g.unanswered)}${num(g.total)}` +
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
  const shapeRows = summary.replyShapes.shapes.map((s) => `<tr><td>${escapeHtml(s.shape)}</td>${num(s.steps)}</tr>`).join("")
  const shapeTable = shapeRows === ""
    ? ""
    : `\n<h2>Reply shapes of ${escapeHtml(summary.replyShapes.model)}</h2>\n<table><tr><th>Shape</th><th>Steps</th></tr>${shapeRows}</table>`
  const costOfRole = new Map(summary.cost.byRole.map((r) => [r.role, r.usd]))
  const latencyOfRole = new Map(summary.latency.map((r) => [r.role, r]))
  const ms = (value: number | null | undefined) => `<td class="n">${esc(formatDuration(value ?? null))}</td>`
  const tokenRows = summary.tokens.byRole.map((r) =>
    `<tr><td>${esc(r.role)}</td>${num(r.calls)}${num(r.errors)}${num(r.promptTokens)}${num(r.completionTokens)}` +
    `<td class="n">${r.calls === 0 ? "—" : esc(formatUsd(costOfRole.get(r.role) ?? null))}</td>${ms(latencyOfRole.get(r.role)?.p50Ms)}` +
    `${ms(latencyOfRole.get(r.role)?.p90Ms)}${ms(latencyOfRole.get(r.role)?.maxMs)}</tr>`
  ).join("") +
    `<tr><td><b>total</b></td>${num(summary.tokens.byRole.reduce((sum, r) => sum + r.calls, 0))}` +
    `${num(summary.tokens.byRole.reduce((sum, r) => sum + r.errors, 0))}${num(summary.tokens.promptTokens)}` +
    `${num(summary.tokens.completionTokens)}<td class="n">${esc(formatUsd(summary.cost.total))}</td><td></td><td></td><td></td></tr>`
  const stopRows = summary.stopReasons.map((s) => `<tr><td>${esc(s.reason)}</td>${num(s.count)}</tr>`)
    .join("")
  return `<table class="kv">
<tr><td>Status</td><td>${esc(summary.status)}</td></tr>${
    progressText(summary) === null ? "" : `\n<tr><td>Progress</td><td>${esc(progressText(summary)!)}</td></tr>`
  }
<tr><td>Protocol</td><td>${esc(summary.protocol)}</td></tr>
<tr><td>Started</td><td>${esc(summary.startedAt)}</td></tr>
<tr><td>Finished</td><td>${esc(summary.finishedAt ?? "—")}</td></tr>
<tr><td>Wall time</td><td>${esc(formatDuration(summary.wallTimeMs))}</td></tr>
<tr><td>Accuracy</td><td>${esc(formatPercent(summary.overall.accuracy))} ${
    esc(formatInterval(summary.overall.interval))
  } 95% CI (${formatCount(summary.overall.correct)}/${formatCount(summary.overall.total)})</td></tr>
<tr><td>Wrong</td><td>${formatCount(summary.overall.wrong)}</td></tr>
<tr><td>Unanswered</td><td>${formatCount(summary.overall.unanswered)}</td></tr>
<tr><td>Mean steps</td><td>${summary.meanSteps === null ? "—" : summary.meanSteps.toFixed(2)}</td></tr>
</table>
<h2>Accuracy per task type</h2>
${accuracyChart(summary.byTaskType)}
${accuracyTable("Task type", summary.byTaskType)}
<h2>Accuracy per duration</h2>
${accuracyChart(summary.byDuration, "Accuracy per duration")}
${accuracyTable("Duration", summary.byDuration)}${
    summary.byDomain.length === 0 ? "" : `
<h2>Accuracy per domain</h2>
${accuracyChart(summary.byDomain, "Accuracy per domain")}
${accuracyTable("Domain", summary.byDomain)}`
  }
<h2>Stop reasons</h2>
<table><tr><th>Stop reason</th><th>Questions</th></tr>${stopRows}</table>
<h2>Model calls per role</h2>
<table><tr><th>Role</th><th>Calls</th><th>Errors</th><th>Prompt tokens</th><th>Completion tokens</th><th>Cost (USD)</th>` +
    `<th>Latency p50</th><th>Latency p90</th><th>Latency max</th></tr>${tokenRows}</table>
<p id="cost">${esc(costNote(summary))}</p>${tokenDetailsTable(summary)}${shapeTable}${workersTable(summary)}`
}

const workersTable = (summary: Summary): string => {
  const rows = workerRows(summary)
  if (rows.length === 0) return ""
  const body = rows.map(([worker, questions, state, heartbeat]) =>
    `<tr><td>${esc(worker!)}</td><td class="n">${esc(questions!)}</td><td>${esc(state!)}</td><td>${esc(heartbeat!)}</td></tr>`
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

const verdict = (p: ReportPrediction): string => {
  const outcome = outcomeOf(p)
  return outcome === "correct"
    ? `<span class="ok" title="correct">✓</span>`
    : outcome === "wrong"
    ? `<span class="bad" title="wrong">✗</span>`
    : `<span class="muted" title="unanswered">?</span>`
}

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
      `<td class="n" data-v="${p.stepsUsed}">${formatCount(p.stepsUsed)}</td><td>${esc(p.stopReason)}</td>` +
      `<td class="n" data-v="${tokens}">${formatCount(tokens)}</td>` +
      `<td class="n" data-v="${cost ?? -1}">${esc(formatUsd(cost))}</td>` +
      `<td class="n" data-v="${time}">${esc(formatDuration(time))}</td></tr>`
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
    ["Time", "n"]
  ].map(([label, kind]) => `<th data-sort="${kind}" title="Sort by ${label!.toLowerCase()}">${label}</th>`).join("")
  return `<p class="filters"><label>Task type <select id="f-type"><option value="">all</option>${typeOptions}</select></label> ` +
    `<label>Outcome <select id="f-outcome"><option value="">all</option><option value="correct">correct</option>` +
    `<option value="wrong">wrong</option><option value="unanswered">unanswered</option></select></label> ` +
    `<span id="f-count" class="muted">${formatCount(predictions.length)} shown</span></p>` +
    `<table id="questions"><thead><tr>${head}</tr></thead><tbody>\n${rows.slice(0, firstRows).join("\n")}</tbody></table>` +
    deferred("rest-rows", rows.slice(firstRows))
}

/**
 * Rows and trajectory shells past the first screen travel as the raw text of a script element (which
 * the parser only scans for its end tag) and are built after the first paint: at 2,700 questions,
 * building those nodes before showing anything was most of the page's load time.
 */
const firstRows = 100

const deferred = (id: string, parts: ReadonlyArray<string>): string =>
  // Data is escaped, so only our own markup has tags; a closing script tag still must not slip through.
  parts.length === 0 ? "" : `<script type="text/html" id="${id}">${parts.join("\n").replace(/<\/(script)/gi, "&lt;/$1")}</script>`

// Sorting, filtering, the rows and trajectories past the first screen, and trajectory bodies on first
// opening. Without it the page still shows the summary, the charts and the first rows.
export const script = `
(() => {
  // Deferred rows and shells (see \`deferred\`): built once, before anything that needs them all.
  let complete = false;
  const completePage = () => {
    if (complete) return;
    complete = true;
    for (const [id, target] of [["rest-rows", "#questions > tbody"], ["rest-shells", "#trajectories"]]) {
      const stored = document.getElementById(id);
      const into = document.querySelector(target);
      if (stored && into) into.insertAdjacentHTML("beforeend", stored.textContent);
    }
    document.body.dataset.complete = "1";
  };
  // Right after the first frame; a hidden tab or a headless browser may paint no frame, so a timer too.
  addEventListener("load", () => { requestAnimationFrame(() => setTimeout(completePage, 0)); setTimeout(completePage, 1000); });
  const table = document.getElementById("questions");
  if (table) {
    const body = table.tBodies[0];
    let all;
    const rowsOf = () => { completePage(); return all ??= Array.from(body.rows); };
    const type = document.getElementById("f-type");
    const outcome = document.getElementById("f-outcome");
    const count = document.getElementById("f-count");
    const filter = () => {
      let shown = 0;
      for (const row of rowsOf()) {
        const ok = (!type.value || row.dataset.type === type.value) && (!outcome.value || row.dataset.outcome === outcome.value);
        row.hidden = !ok;
        if (ok) shown++;
      }
      count.textContent = shown.toLocaleString("en-US") + " shown";
    };
    type.addEventListener("change", filter);
    outcome.addEventListener("change", filter);
    table.tHead.addEventListener("click", (event) => {
      const th = event.target.closest("th");
      if (!th) return;
      const col = th.cellIndex;
      const numeric = th.dataset.sort === "n";
      const dir = th.dataset.dir === "asc" ? -1 : 1;
      for (const other of th.parentNode.children) delete other.dataset.dir;
      th.dataset.dir = dir === 1 ? "asc" : "desc";
      const key = (row) => { const cell = row.cells[col]; return cell.dataset.v ?? cell.textContent; };
      const rows = rowsOf();
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        return dir * (numeric ? Number(x) - Number(y) : x.localeCompare(y, "en", { numeric: true }));
      });
      body.append(...rows);
    });
  }
  // The run page carries every trajectory body in one gzipped JSON array (#bodies, base64), unpacked by the
  // browser's own DecompressionStream the first time one is opened.
  let bodies;
  const packed = () => bodies ??= fetch("data:application/gzip;base64," + document.getElementById("bodies").textContent.trim())
    .then((response) => new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).json());
  const fill = (details) => {
    const template = details.querySelector(":scope > template");
    if (template) details.replaceChild(template.content, template);
    if (details.dataset.filled) return;
    details.dataset.filled = "1";
    if (details.dataset.body && document.getElementById("bodies")) {
      packed().then((all) => details.insertAdjacentHTML("beforeend", all[Number(details.dataset.body)]));
    }
  };
  document.addEventListener("toggle", (event) => { if (event.target.open) fill(event.target); }, true);
  const open = () => {
    if (location.hash) completePage();
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { fill(target); target.open = true; target.scrollIntoView(); }
  };
  window.addEventListener("hashchange", open);
  open();
})();
`

const callLine = (calls: ReadonlyArray<ReportCall>): string => {
  if (calls.length === 0) return ""
  const byRole = new Map<string, { calls: number; errors: number; tokens: number }>()
  for (const c of calls) {
    const slot = byRole.get(c.role) ?? { calls: 0, errors: 0, tokens: 0 }
    slot.calls += 1
    if (c.status !== "ok") slot.errors += 1
    slot.tokens += c.promptTokens + c.completionTokens
    byRole.set(c.role, slot)
  }
  const parts = [...byRole.entries()].map(([role, s]) =>
    `${role} ${s.calls}${s.errors > 0 ? ` (${s.errors} failed)` : ""}, ${formatCount(s.tokens)} tokens`
  )
  return `<p class="muted">Model calls: ${esc(parts.join(" · "))}</p>`
}

const stepBlock = (step: ReportStep, calls: ReadonlyArray<ReportCall>): string => {
  const parts = [`<p><b>Args</b></p>${jsonBlock(step.args)}`]
  if (step.thought !== null && step.thought.length > 0) {
    parts.push(`<details><summary>Thought</summary><pre>${esc(step.thought)}</pre></details>`)
  }
  if (!isEmpty(step.reflect)) parts.push(`<details><summary>Reflect</summary>${jsonBlock(step.reflect)}</details>`)
  if (!isEmpty(step.plan)) parts.push(`<details><summary>Plan</summary>${jsonBlock(step.plan)}</details>`)
  parts.push(`<p><b>Output</b></p><pre>${esc(step.output)}</pre>`)
  parts.push(callLine(calls))
  return `<details class="step"><summary>Step ${step.step} · ${esc(step.tool)}</summary>${parts.join("")}</details>`
}

const roleColors: Readonly<Record<string, string>> = {
  agent: "#2f81f7",
  tool: "#bf8700",
  vlm: "#8250df",
  embed: "#1a7f37",
  ocr: "#cf222e"
}

/**
 * Where a question's time went: one row per step, spanning its model calls, and one thin bar per call
 * beneath it (colored by role), on the question's own time axis. Calls stored without a start time
 * (older runs) leave it out.
 */
export const timeline = (p: ReportPrediction, steps: ReadonlyArray<ReportStep>, calls: ReadonlyArray<ReportCall>): string => {
  const timed = calls.filter((c): c is ReportCall & { readonly startedAt: number } => c.startedAt !== undefined)
  const total = p.finishedAt - p.startedAt
  if (timed.length === 0 || total <= 0) return ""
  const width = 720
  const labelWidth = 150
  const scale = (width - labelWidth - 10) / total
  const x = (t: number) => (labelWidth + Math.max(0, Math.min(total, t - p.startedAt)) * scale).toFixed(1)
  const w = (ms: number) => Math.max(1, ms * scale).toFixed(1)
  const rows: Array<string> = []
  let y = 0
  const groups: Array<[string, ReadonlyArray<typeof timed[number]>]> = [
    ...steps.map((s): [string, ReadonlyArray<typeof timed[number]>] => [
      `Step ${s.step} · ${s.tool}`,
      timed.filter((c) => c.parentStep === s.step)
    ]),
    ["outside a step", timed.filter((c) => c.parentStep === null || !steps.some((s) => s.step === c.parentStep))]
  ]
  for (const [label, group] of groups) {
    if (group.length === 0) continue
    const start = Math.min(...group.map((c) => c.startedAt))
    const end = Math.max(...group.map((c) => c.startedAt + c.durationMs))
    rows.push(
      `<g class="tl-step"><title>${esc(`${label}: ${formatDuration(end - start)}`)}</title>` +
        `<text x="${labelWidth - 6}" y="${y + 11}" text-anchor="end">${esc(label.length > 22 ? `${label.slice(0, 21)}…` : label)}</text>` +
        `<rect x="${x(start)}" y="${y + 2}" width="${w(end - start)}" height="10" fill="#d0d7de"/></g>`
    )
    y += 14
    for (const c of group) {
      rows.push(
        `<rect class="tl-call" x="${x(c.startedAt)}" y="${y}" width="${w(c.durationMs)}" height="5" fill="${roleColors[c.role] ?? "#57606a"}">` +
          `<title>${esc(`${c.role} ${c.model}: ${formatDuration(c.durationMs)}${c.status === "ok" ? "" : " (failed)"}`)}</title></rect>`
      )
      y += 6
    }
    y += 4
  }
  const height = y + 16
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Timeline" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-size="11" font-family="system-ui,sans-serif">${rows.join("")}` +
    `<text x="${labelWidth}" y="${height - 3}" fill="#57606a">0s</text>` +
    `<text x="${width - 10}" y="${height - 3}" text-anchor="end" fill="#57606a">${esc(formatDuration(total))}</text></svg>`
}

/** One question's trajectory as a `<details>` block with id `${idPrefix}${index}`, its body in a <template>. */
export const trajectory = (
  p: ReportPrediction,
  index: number,
  steps: ReadonlyArray<ReportStep>,
  calls: ReadonlyArray<ReportCall>,
  idPrefix = "q"
): string => {
  const parts = trajectoryParts(p, steps, calls)
  return `<details class="q" id="${idPrefix}${index}"><summary>${parts.summary}</summary><template>${parts.body}</template></details>`
}

/**
 * A trajectory's summary line and body. The run page packs every body into one gzipped array
 * (`packBodies`) and inserts a body on first opening; the comparison page, with few trajectories,
 * keeps each in a <template>.
 */
export const trajectoryParts = (
  p: ReportPrediction,
  steps: ReadonlyArray<ReportStep>,
  calls: ReadonlyArray<ReportCall>
): { readonly summary: string; readonly body: string } => {
  const title = p.question.length > 100 ? `${p.question.slice(0, 99)}…` : p.question
  const options = p.options.map((o) => `<li>${esc(o)}</li>`).join("")
  const facts = [
    ["Prediction", `${esc(p.prediction ?? "— (unparseable)")} ${verdict(p)} · answer ${esc(p.answer ?? "—")}`],
    ["Stop reason", esc(p.stopReason)],
    ["Steps", String(p.stepsUsed)],
    ["Tokens", `${formatCount(p.promptTokens)} prompt / ${formatCount(p.completionTokens)} completion`],
    ["Time", esc(formatDuration(p.finishedAt - p.startedAt))],
    ...(p.evidence !== null && p.evidence.length > 0 ? [["Evidence", esc(p.evidence)]] : []),
    ...(p.reasoning !== null && p.reasoning.length > 0 ? [["Reasoning", esc(p.reasoning)]] : []),
    ...(p.error !== null && p.error.length > 0 ? [["Error", `<span class="bad">${esc(p.error)}</span>`]] : [])
  ].map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join("")
  const stepCalls = (n: number) => calls.filter((c) => c.parentStep === n)
  const unplaced = calls.filter((c) => c.parentStep === null || !steps.some((s) => s.step === c.parentStep))
  return {
    summary: `${verdict(p)} <b>${esc(p.questionId)}</b> · ${esc(title)}`,
    body: `
<p>${esc(p.question)}</p><ul>${options}</ul>
<table class="kv">${facts}</table>
${timeline(p, steps, calls)}
${steps.map((s) => stepBlock(s, stepCalls(s.step))).join("\n")}
${unplaced.length > 0 ? callLine(unplaced).replace("Model calls:", "Model calls outside a recorded step:") : ""}
`
  }
}

export const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string | null): Map<string | null, Array<A>> => {
  const map = new Map<string | null, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const list = map.get(k)
    if (list === undefined) map.set(k, [item])
    else list.push(item)
  }
  return map
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

export const renderHtml = (input: ReportInput, summary: Summary = summarize(input)): string => {
  const stepsByQuestion = groupBy(input.steps, (s) => s.questionId)
  const callsByQuestion = groupBy(input.calls, (c) => c.questionId)
  const bodies: Array<string> = []
  const trajectories = input.predictions.map((p, i) => {
    const parts = trajectoryParts(
      p,
      [...(stepsByQuestion.get(p.questionId) ?? [])].sort((a, b) => a.step - b.step),
      callsByQuestion.get(p.questionId) ?? []
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
<script>${script}</script>
</body>
</html>
`
}
