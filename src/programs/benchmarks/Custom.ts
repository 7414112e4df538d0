/**
 * A hand-written question file (`custom`): a JSON array or JSONL of rows `{videoID, question_id, question,
 * options: ["A. …"] or ["…"], answer?, task_type?, duration?, domain?}`. It is Video-MME's row without the
 * fields only a benchmark has; a file whose rows all carry `task_type` and options is Video-MME's layout.
 * A row with `options` left out or `[]` is open-ended: its `answer`, if any, is the reference text a judge
 * scores the agent's free-text answer against (never a letter).
 * `task_type` is any label: a category of a benchmark (`CW`, `Counting Problem`) gets that category's
 * hint and skill from the prompt pack.
 * Export: `[{question_id, videoID, answer, prediction}]`, the prediction null when unanswered.
 */
import { Either, Schema } from "effect"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput, BenchmarkQuestion, Categories, QuestionResult } from "./Benchmark.js"
import { keyError, labelledOptions, normalizeKey } from "./Options.js"
import { hasOptions, IdField, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { headlineOf } from "./Scoring.js"

const OptionalText = Schema.optional(Schema.NullOr(Schema.String))

const Row = Schema.Struct({
  videoID: NonBlank,
  question_id: IdField,
  question: NonBlank,
  options: Schema.optional(Schema.Array(Schema.String)),
  answer: OptionalText,
  task_type: OptionalText,
  duration: Schema.optional(Schema.NullOr(Schema.Literal("short", "medium", "long"))),
  domain: OptionalText
})

/** The fields every row needs; `answer`, `task_type`, `duration` and `domain` may be left out. */
export const customFields = ["videoID", "question_id", "question", "options"]

const fixes: Record<string, string> = {
  videoID: `add "videoID": the name of the video's folder under --trees`,
  question_id: `give every row a unique "question_id"`,
  question: `put the question text in "question"`,
  options: `write "options": ["A. …", "B. …", …] or the bare texts, or [] for an open-ended question`,
  answer: `set "answer" to the right option's letter (an open-ended question's: the reference text), or leave it out`,
  task_type: `set "task_type" to a label such as "Counting Problem", or leave it out`,
  duration: "use short, medium or long, or leave the field out"
}
const defaultFix = "fix the row (docs/benchmarks.md, a hand-written question file)"
const decodeRow = rowDecoder(Row, fixes, defaultFix)

const blankToNull = (text: string | null | undefined): string | null => (text?.trim() ? text.trim() : null)

const categories = (q: BenchmarkQuestion): Categories => q.categories

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    if (input._tag === "Folder") {
      return yield* Either.left(
        rowError(input.dir, null, null, "is a folder", "pass one hand-written question file (.json or .jsonl)")
      )
    }
    const file = input.file.file
    const rows = yield* rowsOf(input.file, "write a JSON array of question rows, or one row per line (JSONL)")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of rows) {
      const r = yield* decodeRow(file, location, row)
      const open = r.options === undefined || r.options.length === 0
      const options = open ? [] : yield* labelledOptions(r.options!, file, location, "options", fixes.options!)
      const raw = r.answer?.trim() ?? ""
      const key = raw === "" ? null : open ? raw : normalizeKey(raw, options.length, "letter")
      if (raw !== "" && key === null) {
        return yield* Either.left(keyError(file, location, "answer", r.answer, options.length, "letter"))
      }
      const taskType = r.task_type?.trim() ?? ""
      out.push({
        benchmark: "custom",
        id: String(r.question_id).trim(),
        videoId: r.videoID.trim(),
        question: r.question.trim(),
        options,
        key,
        originalKey: key === null ? null : raw,
        taskType,
        categories: [{ axis: "task type", labels: taskType === "" ? [] : [taskType] }],
        durationSeconds: null,
        durationGroup: r.duration ?? null,
        domain: blankToNull(r.domain),
        source: { file, location },
        row
      })
    }
    return out
  })

export interface CustomExportRow {
  readonly question_id: string
  readonly videoID: string
  readonly answer: string | null
  /** The predicted letter; null when unanswered. */
  readonly prediction: string | null
}

const exportCustom = (results: ReadonlyArray<QuestionResult>): ReadonlyArray<CustomExportRow> =>
  results.map(({ prediction, question: q }) => ({
    question_id: q.id,
    videoID: q.videoId,
    answer: q.key,
    prediction
  }))

export const custom: Benchmark = {
  name: "custom",
  title:
    "a hand-written question file (videoID, question_id, question, options; answer and task_type optional; no options: open-ended)",
  taskTypes: [],
  fields: customFields,
  fileHints: [],
  // Rows that all carry task_type and options are Video-MME's layout: the two never both fit. A row without
  // options (open-ended) is only ever this layout's.
  detect: (input) => {
    const rows = sampleRows(input)
    return rowsHave(rows, ["videoID", "question_id", "question"]) &&
      (rows.some((row) => !hasOptions(row)) || (rowsHave(rows, customFields) && !rowsHave(rows, ["task_type"])))
  },
  decode,
  categories,
  headline: (results) => headlineOf("custom", results, categories, [{ axis: "task type" }]),
  export: exportCustom
}
