/**
 * EgoSchema: `questions.json`, a list of `{q_uid, google_drive_id, question, "option 0" … "option 4"}`; the
 * video (tree folder) is q_uid. The file ships no keys: `--answers subset_answers.json` (`{q_uid: index}`)
 * supplies them for the public subset; the other questions are unscored.
 * Export: `{q_uid: index}` for every question, what the EgoSchema leaderboard reads; an unanswered question
 * gets -1, which matches no answer and so scores wrong.
 */
import { Either, Schema } from "effect"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput, BenchmarkQuestion, Categories, QuestionResult } from "./Benchmark.js"
import { indexOfLetter, keyError, letterOptions, normalizeKey } from "./Options.js"
import { IdField, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { headlineOf } from "./Scoring.js"

const Row = Schema.Struct({
  q_uid: IdField,
  question: NonBlank,
  google_drive_id: Schema.optional(Schema.NullOr(Schema.String)),
  answer: Schema.optional(Schema.NullOr(Schema.Union(Schema.Number, Schema.String)))
})

const fixes: Record<string, string> = {
  q_uid: `give every row its "q_uid" (the video's folder under --trees)`,
  question: `put the question text in "question"`
}
const defaultFix = "fix the row (EgoSchema's questions.json shows the expected shape)"
const decodeRow = rowDecoder(Row, fixes, defaultFix)

/** `"option 0"`, `"option 1"`, … in order, up to the first missing one. */
const optionsOf = (row: Record<string, unknown>): Either.Either<ReadonlyArray<string>, string> => {
  const out: Array<string> = []
  for (let i = 0; `option ${i}` in row; i++) {
    const value = row[`option ${i}`]
    if (typeof value !== "string") return Either.left(`option ${i}`)
    out.push(value)
  }
  return Either.right(out)
}

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    if (input._tag === "Folder") {
      return yield* Either.left(
        rowError(input.dir, null, null, "is a folder", "pass EgoSchema's questions.json itself")
      )
    }
    const file = input.file.file
    const rows = yield* rowsOf(input.file, "pass EgoSchema's questions.json")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of rows) {
      const r = yield* decodeRow(file, location, row)
      const texts = optionsOf(row as Record<string, unknown>)
      if (Either.isLeft(texts)) {
        return yield* Either.left(
          rowError(file, location, texts.left, "is not a string", "write each option's text as a string")
        )
      }
      const options = yield* letterOptions(
        texts.right,
        file,
        location,
        "option 0",
        `write "option 0", "option 1", … with the options' texts`
      )
      const raw = r.answer ?? null
      const key = raw === null ? null : normalizeKey(raw, options.length)
      if (raw !== null && key === null) {
        return yield* Either.left(keyError(file, location, "answer", raw, options.length))
      }
      const id = String(r.q_uid).trim()
      out.push({
        benchmark: "egoschema",
        id,
        videoId: id,
        question: r.question.trim(),
        options,
        key,
        originalKey: key === null ? null : raw,
        taskType: "",
        categories: [],
        // Every EgoSchema clip is three minutes long.
        durationSeconds: 180,
        durationGroup: null,
        domain: null,
        source: { file, location },
        row
      })
    }
    return out
  })

const categories = (_: BenchmarkQuestion): Categories => []

/** `{q_uid: index}` for every question. */
const exportEgoSchema = (results: ReadonlyArray<QuestionResult>): Record<string, number> =>
  Object.fromEntries(
    results.map(({ prediction, question: q }) => [q.id, prediction === null ? -1 : indexOfLetter(prediction)])
  )

export const egoSchema: Benchmark = {
  name: "egoschema",
  title: "EgoSchema (questions.json, keys from --answers subset_answers.json)",
  taskTypes: [],
  fields: ["q_uid", "question", "option 0"],
  fileHints: [/egoschema/i, /questions\.json$/i],
  detect: (input) => rowsHave(sampleRows(input), ["q_uid", "question", "option 0"]),
  decode,
  categories,
  headline: (results) => headlineOf("egoschema", results, categories, []),
  export: exportEgoSchema
}
