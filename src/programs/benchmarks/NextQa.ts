/**
 * NExT-QA (multiple choice): a csv `video,frame_count,width,height,question,answer,qid,type,a0,…,a4`. The id
 * is `<video>_<qid>`, the answer an index, the video (tree folder) the `video` column. Categories: the type
 * (CW CH TN TC TP DC DL DO) and its family: Causal (CW, CH), Temporal (TN, TC, TP), Descriptive (DC, DL, DO).
 * Export: `{"<video>_<qid>": {prediction, answer}}` (indices), what its eval_mc.py reads; an unanswered
 * question's prediction is -1, which matches no answer and so scores wrong.
 */
import { Either } from "effect"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput, BenchmarkQuestion, Categories, QuestionResult } from "./Benchmark.js"
import { type CsvRecord, parseCsv } from "./Csv.js"
import { indexOfLetter, keyError, letterOptions, normalizeKey } from "./Options.js"
import { headlineOf } from "./Scoring.js"

const required = ["video", "question", "answer", "qid", "type", "a0", "a1"]

export const nextQaTypes = ["CW", "CH", "TN", "TC", "TP", "DC", "DL", "DO"]
export const nextQaFamilies: Readonly<Record<string, string>> = {
  CW: "Causal",
  CH: "Causal",
  TN: "Temporal",
  TC: "Temporal",
  TP: "Temporal",
  DC: "Descriptive",
  DL: "Descriptive",
  DO: "Descriptive"
}

const headerFits = (fields: ReadonlyArray<string>): boolean => required.every((c) => fields.includes(c))

const firstLine = (text: string): string => {
  const end = text.search(/\r?\n/)
  return end < 0 ? text : text.slice(0, end)
}

const detect = (input: BenchmarkInput): boolean => {
  if (input._tag !== "File" || input.file.content._tag !== "Text") return false
  const header = parseCsv(firstLine(input.file.content.text))
  return Either.isRight(header) && header.right.length === 1 && headerFits(header.right[0]!.fields.map((f) => f.trim()))
}

const fix = "pass NExT-QA's csv (video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4)"

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    if (input._tag === "Folder") return yield* Either.left(rowError(input.dir, null, null, "is a folder", fix))
    const file = input.file.file
    if (input.file.content._tag !== "Text") {
      return yield* Either.left(rowError(file, null, null, "is JSON, not csv", fix))
    }
    const parsed = parseCsv(input.file.content.text)
    if (Either.isLeft(parsed)) {
      return yield* Either.left(
        rowError(file, `line ${parsed.left.line}`, null, parsed.left.problem, "quote the field as RFC 4180 csv does")
      )
    }
    const [header, ...records] = parsed.right as ReadonlyArray<CsvRecord>
    const columns = header?.fields.map((f) => f.trim()) ?? []
    const missing = required.filter((c) => !columns.includes(c))
    if (header === undefined || missing.length > 0) {
      return yield* Either.left(rowError(file, "line 1", null, `the header lacks ${missing.join(", ")}`, fix))
    }
    const optionColumns = columns.filter((c) => /^a\d+$/.test(c)).sort((a, b) =>
      Number(a.slice(1)) - Number(b.slice(1))
    )
    const out: Array<BenchmarkQuestion> = []
    for (const record of records) {
      const location = `line ${record.line}`
      if (record.fields.length !== columns.length) {
        return yield* Either.left(
          rowError(
            file,
            location,
            null,
            `has ${record.fields.length} fields where the header has ${columns.length}`,
            "quote fields that hold commas"
          )
        )
      }
      const row: Record<string, string> = Object.fromEntries(columns.map((c, i) => [c, record.fields[i]!]))
      for (const c of ["video", "qid", "question"]) {
        if (row[c]!.trim() === "") {
          return yield* Either.left(rowError(file, location, c, "is empty", `give every row its "${c}"`))
        }
      }
      const options = yield* letterOptions(
        optionColumns.map((c) => row[c]!),
        file,
        location,
        "a0",
        "give every row its options a0, a1, …"
      )
      const raw = row.answer!.trim()
      const key = raw === "" ? null : /^\d+$/.test(raw) ? normalizeKey(Number(raw), options.length) : null
      if (raw !== "" && key === null) return yield* Either.left(keyError(file, location, "answer", raw, options.length))
      const type = row.type!.trim()
      const family = nextQaFamilies[type]
      out.push({
        benchmark: "nextqa",
        id: `${row.video!.trim()}_${row.qid!.trim()}`,
        videoId: row.video!.trim(),
        question: row.question!.trim(),
        options,
        key,
        originalKey: key === null ? null : Number(raw),
        taskType: type,
        categories: [
          { axis: "type", labels: type === "" ? [] : [type] },
          { axis: "family", labels: family === undefined ? [] : [family] }
        ],
        durationSeconds: null,
        durationGroup: null,
        domain: null,
        source: { file, location },
        row
      })
    }
    return out
  })

const categories = (q: BenchmarkQuestion): Categories => q.categories

export interface NextQaExportEntry {
  /** The predicted option's index; -1 when unanswered. */
  readonly prediction: number
  /** The key's index; null when the csv has none. */
  readonly answer: number | null
}

const exportNextQa = (results: ReadonlyArray<QuestionResult>): Record<string, NextQaExportEntry> =>
  Object.fromEntries(results.map(({ prediction, question: q }) => [q.id, {
    prediction: prediction === null ? -1 : indexOfLetter(prediction),
    answer: q.key === null ? null : indexOfLetter(q.key)
  }]))

export const nextQa: Benchmark = {
  name: "nextqa",
  title: "NExT-QA (the multiple-choice csv)",
  taskTypes: nextQaTypes,
  fields: required,
  fileHints: [/next-?qa/i, /\.csv$/i],
  detect,
  decode,
  categories,
  headline: (results) =>
    headlineOf("nextqa", results, categories, [
      { axis: "type", order: nextQaTypes },
      { axis: "family", order: ["Causal", "Temporal", "Descriptive"] }
    ]),
  export: exportNextQa
}
