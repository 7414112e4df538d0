// A stored run in the formats other tools read. Pure: rows in, file text out.
// - a benchmark's own format (videomme, lvbench, longvideobench, mlvu-test, egoschema, nextqa, custom, videommev2): what its
//   scorer or leaderboard reads, written by the benchmark's module (programs/benchmarks) from the stored
//   predictions and the rows they kept; only the run's own benchmark's format.
// - jsonl: one prediction per line, with usage, stop reason, evidence and reasoning, the run id and the agent
//   model, for scripts.
// - csv: the same fields flat, for spreadsheets (RFC 4180 quoting; a cell that would start a formula gets a leading ').
import { outcomeOf } from "../../domain/Outcome.js"
import { benchmarkByName, resultsOfPredictions } from "../benchmarks/StoredResults.js"
import type { VideoMmeExportVideo } from "../benchmarks/VideoMme.js"
import { benchmarkOfFormat, type ExportFormat, isBenchmarkFormat } from "./ExportFormats.js"
import { isForced } from "./Report.js"
import { answerFormOfRow } from "./ReportAnswerForms.js"
import { tracesOf } from "./ReportEvidence.js"
import type { ReportPrediction, ReportStep } from "./Summary.js"

/**
 * Video-MME's results layout: videos in the order their first question appears, `video_id`, `sub_category`
 * and `url` from the stored row (a run stored before rows were kept: the tree folder's name and null).
 */
export const toVideoMme = (predictions: ReadonlyArray<ReportPrediction>): ReadonlyArray<VideoMmeExportVideo> =>
  benchmarkByName("videomme").export(resultsOfPredictions(predictions, "videomme")) as ReadonlyArray<
    VideoMmeExportVideo
  >

/** Which run a row came from, and the agent model that answered it: rows of several runs stay apart when joined. */
export interface ExportRun {
  /** null only for rows exported without their run (a library caller that gave none). */
  readonly runId: string | null
  readonly agentModel: string | null
}

/** One flat record per prediction: the jsonl line and the csv row. */
export const flatRecord = (p: ReportPrediction, costUsd: number | null, run: ExportRun) => ({
  run_id: run.runId,
  agent_model: run.agentModel,
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
  // The answer came from the final-answer call after the step budget was spent.
  forced: isForced(p),
  steps: p.stepsUsed,
  prompt_tokens: p.promptTokens,
  completion_tokens: p.completionTokens,
  cost_usd: costUsd,
  time_ms: p.finishedAt - p.startedAt,
  error: p.error,
  evidence: p.evidence,
  reasoning: p.reasoning,
  // The submitted answer whole, and how it read (ReportAnswerForms.ts).
  answer_text: p.answerText ?? null,
  answer_form: answerFormOfRow(p)
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
  costOf: (questionId: string) => number | null = () => null,
  run: ExportRun = { runId: null, agentModel: null },
  /** The run's steps, when loaded: LongVidSearch's export counts tool calls and viewed clips from them. */
  steps?: ReadonlyArray<ReportStep>
): string => {
  if (isBenchmarkFormat(format)) {
    const benchmark = benchmarkOfFormat(format)
    const traces = tracesOf(predictions, steps)
    const results = resultsOfPredictions(predictions, benchmark).map((r) => {
      const trace = traces.get(r.question.id)
      return trace === undefined ? r : { ...r, trace }
    })
    const exported = benchmarkByName(benchmark).export(results)
    // A scorer that reads text gets it as is (Video-MME-v2's TSV, LongVidSearch's JSON Lines).
    return typeof exported === "string" ? exported : JSON.stringify(exported, null, 2) + "\n"
  }
  switch (format) {
    case "jsonl":
      return predictions.map((p) => JSON.stringify(flatRecord(p, costOf(p.questionId), run))).join("\n") +
        (predictions.length > 0 ? "\n" : "")
    case "csv": {
      const records = predictions.map((p) => flatRecord(p, costOf(p.questionId), run))
      const header = Object.keys(flatRecord(predictions[0] ?? emptyPrediction, null, run))
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
