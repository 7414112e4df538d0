// How the agent's submitted answers read: clean letters, letters extracted from longer
// text, invalid and empty answers, free text for open-ended questions, counted for every report and shown
// per question. Strict scoring already counts an invalid answer wrong: no letter is read from it, so the
// question is unanswered, in the accuracy's denominator, earning nothing.
import { type AnswerForm, answerForms } from "../../domain/AnswerForm.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import { formatCount } from "../../text/Format.js"
import { esc } from "./ReportMarkup.js"

// The stored row a report reads (Summary's ReportPrediction), and the summary's field this module fills.
type ReportPrediction = PredictionRow
interface WithAnswerForms {
  readonly answerForms: AnswerFormCounts
}

/** Questions per answer form; `none`: nothing submitted; `unrecorded`: saved before vtree kept the form. */
export type AnswerFormCounts = Readonly<Record<AnswerForm | "none" | "unrecorded", number>>

/**
 * A stored row's form. Without one: the question ended without a submission (`none`: only a `finished` or
 * a forced question submitted), or it did, in a row saved before vtree kept the form (`unrecorded`).
 */
export const answerFormOfRow = (
  p: Pick<ReportPrediction, "answerForm" | "stopReason" | "forced">
): keyof AnswerFormCounts => p.answerForm ?? (p.stopReason === "finished" || p.forced === true ? "unrecorded" : "none")

export const answerFormCounts = (predictions: ReadonlyArray<ReportPrediction>): AnswerFormCounts => {
  const counts: Record<keyof AnswerFormCounts, number> = {
    ...(Object.fromEntries(answerForms.map((form) => [form, 0])) as Record<AnswerForm, number>),
    none: 0,
    unrecorded: 0
  }
  for (const p of predictions) counts[answerFormOfRow(p)] += 1
  return counts
}

/** `clean 10 · extracted 2 · invalid 1 (scored as unanswered) · …`: every form, the last two only when any. */
export const answerFormsText = (counts: AnswerFormCounts): string =>
  [
    ...answerForms.map((form) =>
      `${form} ${formatCount(counts[form])}${form === "invalid" && counts.invalid > 0 ? " (scored as unanswered)" : ""}`
    ),
    ...(counts.none === 0 ? [] : [`none submitted ${formatCount(counts.none)}`]),
    ...(counts.unrecorded === 0
      ? []
      : [`not recorded ${formatCount(counts.unrecorded)} (saved before forms were kept)`])
  ].join(" · ")

/** The text report's section. */
export const answerFormsSection = (summary: WithAnswerForms): ReadonlyArray<string> => [
  `Answers as submitted: ${answerFormsText(summary.answerForms)}`
]

/** The html summary table's row. */
export const answerFormsRow = (summary: WithAnswerForms): string =>
  `\n<tr><td>Answers as submitted</td><td id="answer-forms">${esc(answerFormsText(summary.answerForms))}</td></tr>`

/** The question table's header cell and a question's cell; the whole answer shows on hover. */
export const answerFormHeader = ["Answer form", "t"] as const

export const answerFormCell = (p: ReportPrediction): string => {
  const form = answerFormOfRow(p)
  const title = p.answerText === undefined || p.answerText === null ? "" : ` title="${esc(p.answerText.slice(0, 500))}"`
  return `<td data-v="${form}"${title}>${
    form === "clean" || form === "unrecorded" ? esc(form) : `<b>${esc(form)}</b>`
  }</td>`
}

/** Two runs' forms over the questions both answered (`report --compare`). */
export interface PairedAnswerForms {
  readonly a: AnswerFormCounts
  readonly b: AnswerFormCounts
}

export const pairedAnswerForms = (
  a: ReadonlyArray<ReportPrediction>,
  b: ReadonlyArray<ReportPrediction>
): PairedAnswerForms => ({ a: answerFormCounts(a), b: answerFormCounts(b) })

/** The comparison's text section: one line per run. */
export const pairedAnswerFormsSection = (c: { readonly answerForms: PairedAnswerForms }): ReadonlyArray<string> => [
  `Answers as submitted (shared questions)\n  A: ${answerFormsText(c.answerForms.a)}\n  B: ${
    answerFormsText(c.answerForms.b)
  }`
]

/** The comparison page's section. */
export const pairedAnswerFormsHtml = (c: { readonly answerForms: PairedAnswerForms }): string =>
  `\n<h2>Answers as submitted (shared questions)</h2>\n<table class="kv" id="answer-forms"><tr><td>A</td><td>${
    esc(answerFormsText(c.answerForms.a))
  }</td></tr><tr><td>B</td><td>${esc(answerFormsText(c.answerForms.b))}</td></tr></table>`
