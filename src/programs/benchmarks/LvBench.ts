/**
 * LVBench: `video_info.meta.jsonl`, one line per video `{key, type, video_info, qa: [{uid, question, answer,
 * question_type: [...], time_reference}]}`. The options are lines of `question` (`(A) Hawk`); the answer is a
 * letter; the video (tree folder) is `key`, the question id `uid`. A question counts in each of its types.
 * Export: `{uid: letter}`, what THUDM/LVBench's compute_accuracy.py reads; an unanswered question gets the
 * letter after its options (E for A–D), which matches no key and so scores wrong.
 */
import { Either, Schema } from "effect"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput, BenchmarkQuestion, Categories, QuestionResult } from "./Benchmark.js"
import { keyError, letterAt, letterOptions, normalizeKey, outsideLetter } from "./Options.js"
import { IdField, isRecord, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { headlineOf } from "./Scoring.js"

const Qa = Schema.Struct({
  uid: IdField,
  question: NonBlank,
  answer: Schema.optional(Schema.NullOr(Schema.String)),
  question_type: Schema.Union(Schema.Array(Schema.String), Schema.String),
  time_reference: Schema.optional(Schema.Unknown)
})

const VideoLine = Schema.Struct({
  key: NonBlank,
  type: Schema.optional(Schema.NullOr(Schema.String)),
  video_info: Schema.optional(Schema.Unknown),
  qa: Schema.Array(Qa)
})

const fixes: Record<string, string> = {
  key: `set "key" to the video's id (its folder under --trees)`,
  qa: `give "qa" a list of {uid, question, answer, question_type}`
}
const defaultFix = "fix the line (LVBench's video_info.meta.jsonl shows the expected shape)"
const decodeLine = rowDecoder(VideoLine, fixes, defaultFix)

/** The leaderboard's short names for LVBench's question types, in its column order. */
export const lvBenchTypes: ReadonlyArray<readonly [string, string]> = [
  ["key information retrieval", "KIR"],
  ["event understanding", "EU"],
  ["summarization", "Sum"],
  ["entity recognition", "ER"],
  ["reasoning", "Rea"],
  ["temporal grounding", "TG"]
]
const shortName = (type: string): string => {
  const t = type.trim().toLowerCase()
  return lvBenchTypes.find(([long, short]) => long === t || short.toLowerCase() === t)?.[1] ?? type.trim()
}

const optionLine = /^\s*\(([A-Z])\)\s*(.*)$/

/**
 * Splits `question` into its stem and options. A line right after an option continues it; text after a
 * blank line that follows the options is kept with the stem (an instruction, not part of the last option).
 */
export const splitLvBenchQuestion = (
  text: string
): Either.Either<{ readonly stem: string; readonly options: ReadonlyArray<string> }, string> => {
  const stem: Array<string> = []
  const trailing: Array<string> = []
  const options: Array<string> = []
  let afterBlank = false
  for (const line of text.split(/\r?\n/)) {
    const m = optionLine.exec(line)
    if (m !== null && trailing.length === 0) {
      const expected = letterAt(options.length)
      if (m[1] !== expected) return Either.left(`option "(${m[1]})" where "(${expected})" was expected`)
      options.push(m[2]!.trim())
      afterBlank = false
    } else if (options.length === 0) stem.push(line)
    else if (line.trim() === "") afterBlank = true
    else if (afterBlank || trailing.length > 0) trailing.push(line.trim())
    else options[options.length - 1] = `${options[options.length - 1]} ${line.trim()}`.trim()
  }
  if (options.length === 0) return Either.left(`holds no "(A) …" option lines`)
  return Either.right({ stem: [...stem, ...trailing].join("\n").trim(), options })
}

const durationOf = (info: unknown): number | null => {
  if (!isRecord(info)) return null
  if (typeof info.duration_minutes === "number") return info.duration_minutes * 60
  return typeof info.duration === "number" ? info.duration : null
}

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    if (input._tag === "Folder") {
      return yield* Either.left(
        rowError(input.dir, null, null, "is a folder", "pass LVBench's video_info.meta.jsonl itself")
      )
    }
    const file = input.file.file
    const lines = yield* rowsOf(input.file, "pass LVBench's video_info.meta.jsonl: one video per line")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of lines) {
      const video = yield* decodeLine(file, location, row)
      for (const [i, qa] of video.qa.entries()) {
        const split = splitLvBenchQuestion(qa.question)
        if (Either.isLeft(split)) {
          return yield* Either.left(
            rowError(
              file,
              location,
              `qa[${i}].question`,
              split.left,
              `write each option on its own line as "(A) text", in order`
            )
          )
        }
        const options = yield* letterOptions(
          split.right.options,
          file,
          location,
          `qa[${i}].question`,
          "give 2 to 10 options"
        )
        const raw = qa.answer?.trim() ?? ""
        const key = raw === "" ? null : normalizeKey(raw, options.length, "letter")
        if (raw !== "" && key === null) {
          return yield* Either.left(keyError(file, location, `qa[${i}].answer`, qa.answer, options.length, "letter"))
        }
        const types = typeof qa.question_type === "string" ? [qa.question_type] : qa.question_type
        const question: BenchmarkQuestion = {
          benchmark: "lvbench",
          id: String(qa.uid).trim(),
          videoId: video.key.trim(),
          question: split.right.stem,
          options,
          key,
          originalKey: key === null ? null : raw,
          taskType: types.length > 0 ? shortName(types[0]!) : "",
          categories: [{ axis: "question type", labels: types.map(shortName) }],
          durationSeconds: durationOf(video.video_info),
          durationGroup: null,
          domain: video.type?.trim() ? video.type.trim() : null,
          source: { file, location: `${location}: qa[${i}]` },
          row: qa
        }
        out.push(question)
      }
    }
    return out
  })

const categories = (q: BenchmarkQuestion): Categories => q.categories

/** `{uid: letter}` for every question. */
const exportLvBench = (results: ReadonlyArray<QuestionResult>): Record<string, string> =>
  Object.fromEntries(
    results.map(({ prediction, question: q }) => [q.id, prediction ?? outsideLetter(q.options.length)])
  )

export const lvBench: Benchmark = {
  name: "lvbench",
  title: "LVBench (video_info.meta.jsonl)",
  taskTypes: lvBenchTypes.map(([, short]) => short),
  fields: ["key", "qa"],
  fileHints: [/video_info\.meta\.jsonl$/i, /lvbench/i],
  detect: (input) => rowsHave(sampleRows(input), ["key", "qa"]),
  decode,
  categories,
  headline: (results) =>
    headlineOf("lvbench", results, categories, [{
      axis: "question type",
      order: lvBenchTypes.map(([, short]) => short)
    }]),
  export: exportLvBench
}
