// A stored run in the formats other tools read. Pure: rows in, file text out.
// - videomme: the layout Video-MME's own scorer (eval_your_results.py) reads, a list per video.
// - jsonl: one prediction per line, with usage and stop reason, for scripts.
// - csv: the same fields flat, for spreadsheets (RFC 4180 quoting; a cell that would start a formula gets a leading ').
import { outcomeOf, type ReportPrediction } from "./Report.js"

export type ExportFormat = "videomme" | "jsonl" | "csv"

export interface VideoMmeQuestion {
  readonly question_id: string
  readonly task_type: string | null
  readonly question: string
  readonly options: ReadonlyArray<string>
  readonly answer: string | null
  /** The predicted option letter; "" when the run could not read one (the scorer counts it wrong). */
  readonly response: string
}

export interface VideoMmeVideo {
  readonly video_id: string
  readonly duration: string | null
  readonly domain: string | null
  readonly sub_category: string | null
  readonly questions: ReadonlyArray<VideoMmeQuestion>
}

/** Videos in the order their first question appears; questions in stored order. */
export const toVideoMme = (predictions: ReadonlyArray<ReportPrediction & { readonly subCategory?: string | null }>): ReadonlyArray<VideoMmeVideo> => {
  const videos = new Map<string, { video: Omit<VideoMmeVideo, "questions">; questions: Array<VideoMmeQuestion> }>()
  for (const p of predictions) {
    let entry = videos.get(p.videoId)
    if (entry === undefined) {
      entry = {
        video: { video_id: p.videoId, duration: p.duration, domain: p.domain ?? null, sub_category: p.subCategory ?? null },
        questions: []
      }
      videos.set(p.videoId, entry)
    }
    entry.questions.push({
      question_id: p.questionId,
      task_type: p.taskType,
      question: p.question,
      options: p.options,
      answer: p.answer,
      response: p.prediction ?? ""
    })
  }
  return [...videos.values()].map(({ questions, video }) => ({ ...video, questions }))
}

/** One flat record per prediction: the jsonl line and the csv row. */
export const flatRecord = (p: ReportPrediction, costUsd: number | null) => ({
  question_id: p.questionId,
  video_id: p.videoId,
  task_type: p.taskType,
  duration: p.duration,
  domain: p.domain ?? null,
  question: p.question,
  options: p.options,
  answer: p.answer,
  prediction: p.prediction,
  outcome: outcomeOf(p),
  stop_reason: p.stopReason,
  steps: p.stepsUsed,
  prompt_tokens: p.promptTokens,
  completion_tokens: p.completionTokens,
  cost_usd: costUsd,
  time_ms: p.finishedAt - p.startedAt,
  error: p.error
})

/**
 * A cell a spreadsheet would read as a formula (`=HYPERLINK(…)`, `+cmd|…`, `@SUM(…)`, or starting with a
 * tab or CR) gets a leading `'`, OWASP's rule against CSV injection; a negative number stays a number.
 */
export const defusedCell = (text: string): string =>
  /^[=+@\t\r]/.test(text) || (text.startsWith("-") && !/^-\d+(\.\d+)?(e[-+]?\d+)?$/i.test(text)) ? `'${text}` : text

const csvCell = (value: unknown): string => {
  const text = value === null || value === undefined ? "" : Array.isArray(value) ? value.join(" | ") : String(value)
  const cell = typeof value === "number" ? text : defusedCell(text)
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, "\"\"")}"` : cell
}

export const renderExport = (
  format: ExportFormat,
  predictions: ReadonlyArray<ReportPrediction>,
  costOf: (questionId: string) => number | null = () => null
): string => {
  switch (format) {
    case "videomme":
      return JSON.stringify(toVideoMme(predictions), null, 2) + "\n"
    case "jsonl":
      return predictions.map((p) => JSON.stringify(flatRecord(p, costOf(p.questionId)))).join("\n") + (predictions.length > 0 ? "\n" : "")
    case "csv": {
      const records = predictions.map((p) => flatRecord(p, costOf(p.questionId)))
      const header = Object.keys(flatRecord(predictions[0] ?? emptyPrediction, null))
      return [header.join(","), ...records.map((r) => Object.values(r).map(csvCell).join(","))].join("\r\n") + "\r\n"
    }
  }
}

// Only its keys are read: the csv header of an empty run.
const emptyPrediction: ReportPrediction = {
  questionId: "",
  videoId: "",
  taskType: null,
  duration: null,
  question: "",
  options: [],
  answer: null,
  prediction: null,
  correct: false,
  evidence: null,
  reasoning: null,
  stepsUsed: 0,
  stopReason: "finished",
  error: null,
  promptTokens: 0,
  completionTokens: 0,
  startedAt: 0,
  finishedAt: 0
}
