/**
 * Video-MME: a JSON array or JSONL file of rows `{video_id, videoID, question_id, duration, domain,
 * sub_category, task_type, question, options: ["A. …"], answer, url?}` (videoID names the tree folder;
 * video_id is Video-MME's own "001"…), or vtree's folder of `<videoID>.json` files, each a list of
 * `{question_id, task_type, question, options, answer}`.
 * Export: the list per video that Video-MME's eval_your_results.py reads; an unanswered question's
 * `response` is "", which that script counts wrong.
 */
import { Either, Schema } from "effect"
import * as NodePath from "node:path"
import { type QuestionLoadError, rowError, VideoMmeTaskTypes } from "../../domain/Question.js"
import type {
  Benchmark,
  BenchmarkInput,
  BenchmarkQuestion,
  Categories,
  InputFile,
  QuestionResult
} from "./Benchmark.js"
import { keyError, labelledOptions, normalizeKey } from "./Options.js"
import { hasOptions, IdField, isRecord, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { headlineOf } from "./Scoring.js"

const OptionalText = Schema.optional(Schema.NullOr(Schema.String))

const FolderRow = Schema.Struct({
  question_id: IdField,
  task_type: NonBlank,
  question: NonBlank,
  options: Schema.Array(Schema.String),
  answer: OptionalText
})

const FileRow = Schema.Struct({
  ...FolderRow.fields,
  videoID: NonBlank,
  video_id: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  duration: Schema.optional(Schema.NullOr(Schema.Literal("short", "medium", "long"))),
  domain: OptionalText,
  sub_category: OptionalText,
  url: OptionalText
})
type FileRow = typeof FileRow.Type

const fixes: Record<string, string> = {
  videoID: `add "videoID": the name of the video's folder under --trees`,
  question_id: `give every row a unique "question_id"`,
  duration: "use short, medium or long, or leave the field out",
  task_type: `set "task_type" to a Video-MME task type such as "Counting Problem"`,
  question: `put the question text in "question"`,
  options: `write "options": ["A. …", "B. …", …]`,
  answer: `set "answer" to the right option's letter, or null when unknown`
}
const defaultFix = "fix the row (samples/questions.jsonl shows the expected shape)"
const decodeFileRow = rowDecoder(FileRow, fixes, defaultFix)
const decodeFolderRow = rowDecoder(FolderRow, fixes, defaultFix)

const toQuestion = (
  file: string,
  location: string,
  row: typeof FolderRow.Type,
  original: unknown,
  extra: { readonly videoId: string; readonly durationGroup: string | null; readonly domain: string | null }
): Either.Either<BenchmarkQuestion, QuestionLoadError> =>
  Either.gen(function*() {
    const options = yield* labelledOptions(row.options, file, location, "options", fixes.options!)
    const raw = row.answer?.trim() ?? ""
    const key = raw === "" ? null : normalizeKey(raw, options.length, "letter")
    if (raw !== "" && key === null) {
      return yield* Either.left(keyError(file, location, "answer", row.answer, options.length, "letter"))
    }
    const question: BenchmarkQuestion = {
      benchmark: "videomme",
      id: String(row.question_id).trim(),
      videoId: extra.videoId,
      question: row.question.trim(),
      options,
      key,
      originalKey: key === null ? null : raw,
      taskType: row.task_type.trim(),
      categories: [],
      durationSeconds: null,
      durationGroup: extra.durationGroup,
      domain: extra.domain,
      source: { file, location },
      row: original
    }
    return { ...question, categories: categories(question) }
  })

const blankToNull = (text: string | null | undefined): string | null => (text?.trim() ? text.trim() : null)

const decodeFile = (input: InputFile) =>
  Either.gen(function*() {
    const rows = yield* rowsOf(input, "write a JSON array of Video-MME rows, or one row per line (JSONL)")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of rows) {
      const r: FileRow = yield* decodeFileRow(input.file, location, row)
      out.push(
        yield* toQuestion(input.file, location, r, row, {
          videoId: r.videoID.trim(),
          durationGroup: r.duration ?? null,
          domain: blankToNull(r.domain)
        })
      )
    }
    return out
  })

const decodeFolder = (files: ReadonlyArray<InputFile>) =>
  Either.gen(function*() {
    const out: Array<BenchmarkQuestion> = []
    for (const input of files) {
      const videoId = NodePath.basename(input.file).replace(/\.json$/i, "")
      const fix = "write a JSON array of {question_id, task_type, question, options, answer} objects"
      if (input.content._tag !== "Json" || !Array.isArray(input.content.value)) {
        return yield* Either.left(rowError(input.file, null, null, "expected a JSON array", fix))
      }
      for (const [i, row] of input.content.value.entries()) {
        const location = `index ${i}`
        const r = yield* decodeFolderRow(input.file, location, row)
        out.push(yield* toQuestion(input.file, location, r, row, { videoId, durationGroup: null, domain: null }))
      }
    }
    return out
  })

const folderFileFits = (f: InputFile): boolean =>
  f.content._tag === "Json" && Array.isArray(f.content.value) &&
  rowsHave(f.content.value.slice(0, 3), ["question_id", "task_type", "question", "options"])

const detect = (input: BenchmarkInput): boolean =>
  input._tag === "File"
    ? rowsHave(sampleRows(input), ["videoID", "question_id", "task_type", "question", "options"]) &&
      sampleRows(input).every(hasOptions)
    : input.files.length > 0 && input.files.every(folderFileFits)

const decode = (input: BenchmarkInput) => input._tag === "File" ? decodeFile(input.file) : decodeFolder(input.files)

const categories = (q: BenchmarkQuestion): Categories => [
  { axis: "task type", labels: [q.taskType] },
  { axis: "duration", labels: q.durationGroup === null ? [] : [q.durationGroup] },
  { axis: "domain", labels: q.domain === null ? [] : [q.domain] }
]

const field = (row: unknown, name: string): unknown => (isRecord(row) ? row[name] : undefined)
const textOrNull = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value : typeof value === "number" ? String(value) : null

export interface VideoMmeExportQuestion {
  readonly question_id: string
  readonly task_type: string
  readonly question: string
  readonly options: ReadonlyArray<string>
  readonly answer: string | null
  /** The predicted letter; "" when unanswered. */
  readonly response: string
}

export interface VideoMmeExportVideo {
  readonly video_id: string
  readonly duration: string | null
  readonly domain: string | null
  readonly sub_category: string | null
  /**
   * The same three facts under the keys the official scorer reads (evaluation/eval_your_results.py reads
   * `duration_category`, `video_category`, `video_subcategory` and, with skip_missing, `missing`), while
   * the repository's README shows the results file with the three keys above: a file with both is read
   * by either.
   */
  readonly duration_category: string | null
  readonly video_category: string | null
  readonly video_subcategory: string | null
  readonly missing: boolean
  readonly url?: string
  readonly questions: ReadonlyArray<VideoMmeExportQuestion>
}

/** Videos in the order their first question appears; `video_id` is Video-MME's own id when the row has one. */
const exportVideoMme = (results: ReadonlyArray<QuestionResult>): ReadonlyArray<VideoMmeExportVideo> => {
  const videos = new Map<
    string,
    { video: Omit<VideoMmeExportVideo, "questions">; questions: Array<VideoMmeExportQuestion> }
  >()
  for (const { prediction, question: q } of results) {
    let entry = videos.get(q.videoId)
    if (entry === undefined) {
      const url = textOrNull(field(q.row, "url"))
      entry = {
        video: {
          video_id: textOrNull(field(q.row, "video_id")) ?? q.videoId,
          duration: q.durationGroup,
          domain: q.domain,
          sub_category: textOrNull(field(q.row, "sub_category")),
          duration_category: q.durationGroup,
          video_category: q.domain,
          video_subcategory: textOrNull(field(q.row, "sub_category")),
          missing: false,
          ...(url === null ? {} : { url })
        },
        questions: []
      }
      videos.set(q.videoId, entry)
    }
    entry.questions.push({
      question_id: q.id,
      task_type: q.taskType,
      question: q.question,
      options: q.options,
      answer: q.key,
      response: prediction ?? ""
    })
  }
  return [...videos.values()].map(({ questions, video }) => ({ ...video, questions }))
}

export const videoMme: Benchmark = {
  name: "videomme",
  title: "Video-MME (.json/.jsonl rows, or a folder of <videoID>.json)",
  taskTypes: VideoMmeTaskTypes,
  fields: ["videoID", "question_id", "task_type", "question", "options"],
  fileHints: [/video-?mme/i],
  detect,
  decode,
  categories,
  headline: (results) =>
    headlineOf("videomme", results, categories, [
      { axis: "task type", order: VideoMmeTaskTypes },
      { axis: "duration", order: ["short", "medium", "long"] },
      { axis: "domain" }
    ]),
  export: exportVideoMme
}
