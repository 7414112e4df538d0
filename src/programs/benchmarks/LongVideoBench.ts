/**
 * LongVideoBench: `lvb_val.json` / `lvb_test_wo_gt.json`, a list of `{id, video_path, subtitle_path,
 * duration, duration_group, starting_timestamp_for_subtitles, question, candidates, correct_choice (an
 * index; absent in test), question_category, topic_category, level}`. The video is video_path's stem.
 * Export: `{id: letter}` for the leaderboard; an unanswered question gets the letter after its options
 * (F for A–E), which matches no key and so scores wrong.
 */
import { Either, Schema } from "effect"
import * as NodePath from "node:path"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput, BenchmarkQuestion, Categories, QuestionResult } from "./Benchmark.js"
import { keyError, letterOptions, normalizeKey, outsideLetter } from "./Options.js"
import { IdField, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { headlineOf } from "./Scoring.js"

const Row = Schema.Struct({
  id: IdField,
  video_path: NonBlank,
  question: NonBlank,
  candidates: Schema.Array(Schema.String),
  correct_choice: Schema.optional(Schema.NullOr(Schema.Union(Schema.Number, Schema.String))),
  duration: Schema.optional(Schema.NullOr(Schema.Number)),
  duration_group: Schema.optional(Schema.NullOr(Schema.Union(Schema.Number, Schema.String))),
  question_category: Schema.optional(Schema.NullOr(Schema.String)),
  topic_category: Schema.optional(Schema.NullOr(Schema.String))
})

const fixes: Record<string, string> = {
  id: `give every row a unique "id"`,
  video_path: `set "video_path" to the video's file name; its stem names the folder under --trees`,
  question: `put the question text in "question"`,
  candidates: `write "candidates": ["…", "…"]`,
  correct_choice: `set "correct_choice" to the right candidate's index (from 0), or leave it out`
}
const defaultFix = "fix the row (LongVideoBench's lvb_val.json shows the expected shape)"
const decodeRow = rowDecoder(Row, fixes, defaultFix)

export const durationGroups = ["15", "60", "600", "3600"]

/** The 17 question categories, in the paper's order: 8 of (L1) Perception, then 9 of (L2) Relation. */
export const longVideoBenchCategories = [
  "S2E",
  "S2O",
  "S2A",
  "E2O",
  "O2E",
  "T2E",
  "T2O",
  "T2A",
  "E3E",
  "O3O",
  "SSS",
  "SOS",
  "SAA",
  "T3E",
  "T3O",
  "TOS",
  "TAA"
]

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    if (input._tag === "Folder") {
      return yield* Either.left(
        rowError(input.dir, null, null, "is a folder", "pass lvb_val.json or lvb_test_wo_gt.json itself")
      )
    }
    const file = input.file.file
    const rows = yield* rowsOf(input.file, "pass LongVideoBench's lvb_val.json or lvb_test_wo_gt.json")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of rows) {
      const r = yield* decodeRow(file, location, row)
      const options = yield* letterOptions(r.candidates, file, location, "candidates", fixes.candidates!)
      const raw = r.correct_choice ?? null
      const key = raw === null ? null : normalizeKey(raw, options.length)
      if (raw !== null && key === null) {
        return yield* Either.left(keyError(file, location, "correct_choice", raw, options.length))
      }
      const group = r.duration_group === undefined || r.duration_group === null ? null : String(r.duration_group)
      const category = r.question_category?.trim() ? r.question_category.trim() : null
      out.push({
        benchmark: "longvideobench",
        id: String(r.id).trim(),
        videoId: NodePath.basename(r.video_path.trim()).replace(/\.[^.]*$/, ""),
        question: r.question.trim(),
        options,
        key,
        originalKey: key === null ? null : raw,
        taskType: category ?? "",
        categories: [
          { axis: "question category", labels: category === null ? [] : [category] },
          { axis: "duration group", labels: group === null ? [] : [group] }
        ],
        durationSeconds: r.duration ?? null,
        durationGroup: group,
        domain: r.topic_category?.trim() ? r.topic_category.trim() : null,
        source: { file, location },
        row
      })
    }
    return out
  })

const categories = (q: BenchmarkQuestion): Categories => q.categories

/** `{id: letter}` for every question. */
const exportLongVideoBench = (results: ReadonlyArray<QuestionResult>): Record<string, string> =>
  Object.fromEntries(
    results.map(({ prediction, question: q }) => [q.id, prediction ?? outsideLetter(q.options.length)])
  )

export const longVideoBench: Benchmark = {
  name: "longvideobench",
  title: "LongVideoBench (lvb_val.json, lvb_test_wo_gt.json)",
  taskTypes: longVideoBenchCategories,
  fields: ["video_path", "question", "candidates"],
  fileHints: [/lvb_(val|test)/i, /longvideobench/i],
  detect: (input) => rowsHave(sampleRows(input), ["video_path", "question", "candidates"]),
  decode,
  categories,
  headline: (results) =>
    headlineOf("longvideobench", results, categories, [
      { axis: "question category", order: longVideoBenchCategories },
      { axis: "duration group", order: durationGroups }
    ]),
  export: exportLongVideoBench
}
