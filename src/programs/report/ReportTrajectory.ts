// One question's trajectory on a report page: its facts, its steps with their model calls, and a
// timeline of where its time went.
import { outcomeOf } from "../../domain/Outcome.js"
import { formatCount, formatDuration } from "../../text/Format.js"
import { isForced } from "./Report.js"
import { esc, isEmpty, jsonBlock } from "./ReportMarkup.js"
import type { ReportCall, ReportPrediction, ReportStep } from "./Summary.js"

export const verdict = (p: ReportPrediction): string => {
  const outcome = outcomeOf(p)
  return outcome === "correct"
    ? `<span class="ok" title="correct">✓</span>`
    : outcome === "wrong"
    ? `<span class="bad" title="wrong">✗</span>`
    : outcome === "unscored"
    ? `<span class="muted" title="unscored: the question has no key">–</span>`
    : `<span class="muted" title="unanswered">?</span>`
}

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

/**
 * What a page adds to a trajectory beyond the stored rows: the frames an observe_frame step sent, and
 * node ids made links to the tree page. Both get escaped text or step rows and return markup.
 */
export interface TrajectoryDecor {
  readonly stepFrames: (step: ReportStep) => string
  readonly linkIds: (escaped: string) => string
}

const plain: TrajectoryDecor = { stepFrames: () => "", linkIds: (escaped) => escaped }

const stepBlock = (step: ReportStep, calls: ReadonlyArray<ReportCall>, decor: TrajectoryDecor = plain): string => {
  const parts = [`<p><b>Args</b></p>${decor.linkIds(jsonBlock(step.args))}`, decor.stepFrames(step)]
  if (step.thought !== null && step.thought.length > 0) {
    parts.push(`<details><summary>Thought</summary><pre>${esc(step.thought)}</pre></details>`)
  }
  if (!isEmpty(step.reflect)) parts.push(`<details><summary>Reflect</summary>${jsonBlock(step.reflect)}</details>`)
  if (!isEmpty(step.plan)) parts.push(`<details><summary>Plan</summary>${jsonBlock(step.plan)}</details>`)
  parts.push(`<p><b>Output</b></p><pre>${decor.linkIds(esc(step.output))}</pre>`)
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
export const timeline = (
  p: ReportPrediction,
  steps: ReadonlyArray<ReportStep>,
  calls: ReadonlyArray<ReportCall>
): string => {
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
        `<text x="${labelWidth - 6}" y="${y + 11}" text-anchor="end">${
          esc(label.length > 22 ? `${label.slice(0, 21)}…` : label)
        }</text>` +
        `<rect x="${x(start)}" y="${y + 2}" width="${w(end - start)}" height="10" fill="#d0d7de"/></g>`
    )
    y += 14
    for (const c of group) {
      rows.push(
        `<rect class="tl-call" x="${x(c.startedAt)}" y="${y}" width="${w(c.durationMs)}" height="5" fill="${
          roleColors[c.role] ?? "#57606a"
        }">` +
          `<title>${
            esc(`${c.role} ${c.model}: ${formatDuration(c.durationMs)}${c.status === "ok" ? "" : " (failed)"}`)
          }</title></rect>`
      )
      y += 6
    }
    y += 4
  }
  const height = y + 16
  const roles = [...new Set(timed.map((c) => c.role))]
  const legend = `<p class="legend muted"><i style="background:#d0d7de"></i>step (from its first call to its last)${
    roles.map((role) => `<i style="background:${roleColors[role] ?? "#57606a"}"></i>${esc(role)} call`).join("")
  }</p>`
  return legend +
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Timeline" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-size="11" font-family="system-ui,sans-serif">${rows.join("")}` +
    `<text x="${labelWidth}" y="${height - 3}" fill="#57606a">0s</text>` +
    `<text x="${width - 10}" y="${height - 3}" text-anchor="end" fill="#57606a">${
      esc(formatDuration(total))
    }</text></svg>`
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
  calls: ReadonlyArray<ReportCall>,
  decor: TrajectoryDecor = plain
): { readonly summary: string; readonly body: string } => {
  const title = p.question.length > 100 ? `${p.question.slice(0, 99)}…` : p.question
  const options = p.options.map((o) => `<li>${esc(o)}</li>`).join("")
  const facts = [
    ["Prediction", `${esc(p.prediction ?? "— (unparseable)")} ${verdict(p)} · answer ${esc(p.answer ?? "—")}`],
    [
      "Stop reason",
      esc(isForced(p) ? `${p.stopReason} · forced answer (given after the step budget was spent)` : p.stopReason)
    ],
    // What the agent was told of the question's kind; runs saved before vtree kept it have none.
    ...(p.benchmark?.hint === undefined ? [] : [
      ["Task type shown", p.benchmark.hint.taskType === "" ? "—" : esc(p.benchmark.hint.taskType)],
      ["Skill", p.benchmark.hint.skill === null ? "— (skill mode manual or none)" : esc(p.benchmark.hint.skill)]
    ]),
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
${steps.map((s) => stepBlock(s, stepCalls(s.step), decor)).join("\n")}
${unplaced.length > 0 ? callLine(unplaced).replace("Model calls:", "Model calls outside a recorded step:") : ""}
`
  }
}
