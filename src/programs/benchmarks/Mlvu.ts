/**
 * MLVU. Dev: a folder of per-task files (`1_plotQA.json`, `2_needle.json`, …), each a list of `{video,
 * duration, question, candidates, answer (the right candidate's text), question_type}` without ids, so the
 * id is `<question_type>_<index in its file>`. Test: a list of `{video, duration, question, candidates,
 * question_type, question_id}` without answers. The headline is M-Avg, the mean of the per-task accuracies,
 * shown beside the overall.
 * Export: `[{question_id, question_type, option}]` with the option's letter; an unanswered question gets the
 * letter after its options (G for A–F), which matches no key and so scores wrong.
 */
import { Either, Schema } from "effect"
import * as NodePath from "node:path"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type {
  Benchmark,
  BenchmarkInput,
  BenchmarkQuestion,
  Categories,
  InputFile,
  QuestionResult
} from "./Benchmark.js"
import { letterAt, letterOptions, outsideLetter } from "./Options.js"
import { describeValue, IdField, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { groupScores, headlineOf, meanAccuracy } from "./Scoring.js"

const Row = Schema.Struct({
  video: NonBlank,
  question: NonBlank,
  candidates: Schema.Array(Schema.String),
  question_type: NonBlank,
  answer: Schema.optional(Schema.NullOr(Schema.String)),
  question_id: Schema.optional(IdField),
  duration: Schema.optional(Schema.NullOr(Schema.Number))
})

const fixes: Record<string, string> = {
  video: `set "video" to the video's file name; its stem names the folder under --trees`,
  question: `put the question text in "question"`,
  candidates: `write "candidates": ["…", "…"]`,
  question_type: `set "question_type" to the task, e.g. "plotQA"`,
  answer: `set "answer" to the right candidate's exact text, or leave it out`
}
const defaultFix = "fix the row (MLVU's dev json files show the expected shape)"
const decodeRow = rowDecoder(Row, fixes, defaultFix)
const required = ["video", "question", "candidates", "question_type"]

/** MLVU's task order (dev, then the tasks only test has). */
export const mlvuTasks = [
  "plotQA",
  "needle",
  "ego",
  "count",
  "order",
  "anomaly_reco",
  "topic_reasoning",
  "sportsQA",
  "tutorialQA"
]

/** The right candidate's index: an exact match first, then one ignoring case and surrounding space. */
const candidateIndex = (candidates: ReadonlyArray<string>, answer: string): number => {
  const exact = candidates.indexOf(answer)
  if (exact >= 0) return exact
  const norm = (s: string) => s.trim().toLowerCase()
  return candidates.findIndex((c) => norm(c) === norm(answer))
}

const decodeFile = (input: InputFile) =>
  Either.gen(function*() {
    const file = input.file
    const rows = yield* rowsOf(
      input,
      "pass an MLVU task file (a JSON list of {video, question, candidates, answer, question_type})"
    )
    const out: Array<BenchmarkQuestion> = []
    for (const [i, { location, row }] of rows.entries()) {
      const r = yield* decodeRow(file, location, row)
      const options = yield* letterOptions(r.candidates, file, location, "candidates", fixes.candidates!)
      const answer = r.answer ?? null
      let key: string | null = null
      if (answer !== null) {
        const index = candidateIndex(r.candidates, answer)
        if (index < 0) {
          return yield* Either.left(
            rowError(
              file,
              location,
              "answer",
              `${describeValue(answer)} is none of the candidates`,
              "set \"answer\" to one candidate's exact text"
            )
          )
        }
        key = letterAt(index)
      }
      const task = r.question_type.trim()
      out.push({
        benchmark: "mlvu",
        id: r.question_id === undefined ? `${task}_${i}` : String(r.question_id).trim(),
        videoId: NodePath.basename(r.video.trim()).replace(/\.[^.]*$/, ""),
        question: r.question.trim(),
        options,
        key,
        originalKey: key === null ? null : answer,
        taskType: task,
        categories: [{ axis: "task", labels: [task] }],
        durationSeconds: r.duration ?? null,
        durationGroup: null,
        domain: null,
        source: { file, location },
        row
      })
    }
    return out
  })

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    const files = input._tag === "File" ? [input.file] : input.files
    const out: Array<BenchmarkQuestion> = []
    for (const f of files) for (const question of yield* decodeFile(f)) out.push(question)
    return out
  })

const fileFits = (f: InputFile): boolean =>
  f.content._tag === "Json" && Array.isArray(f.content.value) && rowsHave(f.content.value.slice(0, 3), required)

// LongVideoBench rows also hold question and candidates; its video_path tells them apart.
const detect = (input: BenchmarkInput): boolean => {
  if (input._tag === "Folder") return input.files.length > 0 && input.files.every(fileFits)
  const rows = sampleRows(input)
  return rowsHave(rows, required) && !rowsHave(rows, ["video_path"])
}

const categories = (q: BenchmarkQuestion): Categories => q.categories

export interface MlvuExportRow {
  readonly question_id: string
  readonly question_type: string
  /** The chosen option's letter. */
  readonly option: string
}

const exportMlvu = (results: ReadonlyArray<QuestionResult>): ReadonlyArray<MlvuExportRow> =>
  results.map(({ prediction, question: q }) => ({
    question_id: q.id,
    question_type: q.taskType,
    option: prediction ?? outsideLetter(q.options.length)
  }))

export const mlvu: Benchmark = {
  name: "mlvu",
  title: "MLVU (the dev folder of per-task json files, or the test json)",
  taskTypes: mlvuTasks,
  fields: required,
  fileHints: [/mlvu/i, /^\d+_[A-Za-z_]+\.json$/],
  detect,
  decode,
  categories,
  headline: (results) => {
    const base = headlineOf("mlvu", results, categories, [{ axis: "task", order: mlvuTasks }])
    return { ...base, primary: { name: "M-Avg", value: meanAccuracy(groupScores(results, "task", categories)) } }
  },
  export: exportMlvu
}
