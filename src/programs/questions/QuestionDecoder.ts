/**
 * Benchmark questions from their two input forms, auto-detected, decoded into one `Question`:
 * - a directory of `<videoID>.json` files, each `[{question_id, task_type, question, options, answer}]`;
 * - a JSON array or JSONL file of Video-MME rows `{video_id, videoID, question_id, duration, domain,
 *   sub_category, task_type, question, options, answer}` (videoID names the tree directory).
 * Pure: QuestionLoader.ts reads the files.
 */
import { Either, type ParseResult, Schema } from "effect"
import * as NodePath from "node:path"
import { optionLetters } from "../../domain/Answer.js"
import { firstDecodeIssue } from "../../domain/DecodeIssue.js"
import { type Question, QuestionDuration, QuestionLoadError, rowError } from "../../domain/Question.js"
import { lineColumn, tooDeepAt, tooDeepMessage } from "../../domain/UserJson.js"

// ---------------------------------------------------------------------------------------------
// Raw rows, as spelled in the files

const QuestionIdField = Schema.Union(Schema.String.pipe(Schema.pattern(/\S/)), Schema.Int)
const NonBlank = Schema.String.pipe(Schema.pattern(/\S/))
const OptionalText = Schema.optional(Schema.NullOr(Schema.String))

const VideoRow = Schema.Struct({
  question_id: QuestionIdField,
  task_type: NonBlank,
  question: NonBlank,
  options: Schema.Array(Schema.String),
  answer: OptionalText
})

const VideoMmeRow = Schema.Struct({
  videoID: NonBlank,
  video_id: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  question_id: QuestionIdField,
  duration: Schema.optional(Schema.NullOr(QuestionDuration)),
  domain: OptionalText,
  sub_category: OptionalText,
  task_type: NonBlank,
  question: NonBlank,
  options: Schema.Array(Schema.String),
  answer: OptionalText
})

const expected: Record<string, string> = {
  videoID: "expected a non-empty string naming the tree directory",
  video_id: "expected a string or number",
  question_id: "expected a non-empty string or an integer",
  duration: `expected "short", "medium", "long" or null`,
  domain: "expected a string or null",
  sub_category: "expected a string or null",
  task_type: "expected a non-empty string",
  question: "expected a non-empty string",
  options: "expected an array of strings",
  answer: "expected an option letter or null"
}

const fixes: Record<string, string> = {
  videoID: `add "videoID": the name of the video's directory under --trees`,
  question_id: `give every row a unique "question_id"`,
  duration: "use short, medium or long, or leave the field out",
  task_type: `set "task_type" to a Video-MME task type such as "Counting Problem"`,
  question: `put the question text in "question"`,
  options: `write "options": ["A. …", "B. …", …]`,
  answer: `set "answer" to the correct option letter, or null when unknown`
}

const defaultFix = "fix the row (samples/questions.jsonl shows the expected shape)"

const describeValue = (value: unknown): string => {
  const text = value === undefined ? "undefined" : JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

const valueAt = (root: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (v, key) => (typeof v === "object" && v !== null ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    root
  )

const fromParseError = (file: string, location: string, row: unknown, error: ParseResult.ParseError) => {
  const issue = firstDecodeIssue(error)
  if (issue.path.length === 0) {
    return rowError(file, location, null, `expected a JSON object, got ${describeValue(row)}`, defaultFix)
  }
  const top = String(issue.path[0])
  const problem = issue.tag === "Missing"
    ? "is missing"
    : `${expected[top] ?? "has the wrong type"}, got ${describeValue(valueAt(row, issue.path))}`
  return rowError(file, location, issue.field, problem, fixes[top] ?? defaultFix)
}

interface RowCommon {
  readonly question_id: string | number
  readonly task_type: string
  readonly question: string
  readonly options: ReadonlyArray<string>
  readonly answer?: string | null | undefined
}

const optionLabel = /^\(?([A-Z])[.):]/

/** Options labelled in order are kept; unlabelled ones get `A. ` etc.; a mix is an error. */
const checkOptions = (
  file: string,
  location: string,
  options: ReadonlyArray<string>
): Either.Either<ReadonlyArray<string>, QuestionLoadError> => {
  const letters = optionLetters(options.length)
  if (options.length < 2 || options.length > 26) {
    return Either.left(
      rowError(file, location, "options", `expected 2 to 26 options, got ${options.length}`, fixes.options!)
    )
  }
  const blank = options.findIndex((o) => o.trim() === "")
  if (blank >= 0) {
    return Either.left(rowError(file, location, `options[${blank}]`, "is empty", "give every option its text"))
  }
  const labels = options.map((o) => optionLabel.exec(o.trim())?.[1])
  if (labels.every((l) => l === undefined)) {
    return Either.right(options.map((o, i) => `${letters[i]}. ${o.trim()}`))
  }
  const wrong = labels.findIndex((l, i) => l !== letters[i])
  if (wrong >= 0) {
    return Either.left(
      rowError(
        file,
        location,
        `options[${wrong}]`,
        `expected to start with "${letters[wrong]}.", got ${describeValue(options[wrong])}`,
        "label the options A., B., C., … in order, or leave all labels out"
      )
    )
  }
  return Either.right(options.map((o) => o.trim()))
}

const checkAnswer = (
  file: string,
  location: string,
  answer: string | null | undefined,
  optionCount: number
): Either.Either<string | null, QuestionLoadError> => {
  const text = answer?.trim().toUpperCase() ?? ""
  if (text === "") return Either.right(null)
  const letters = optionLetters(optionCount)
  if (letters.includes(text)) return Either.right(text)
  return Either.left(
    rowError(
      file,
      location,
      "answer",
      `expected one of ${letters.join(", ")}, got ${describeValue(answer)}`,
      fixes.answer!
    )
  )
}

const toQuestion = (
  file: string,
  location: string,
  row: RowCommon,
  extra: { readonly videoId: string; readonly duration: QuestionDuration | null; readonly domain: string | null }
): Either.Either<Question, QuestionLoadError> =>
  Either.gen(function*() {
    // No options: an open-ended question, its answer (if any) the reference text a judge scores against.
    const open = row.options.length === 0
    const options = open ? [] : yield* checkOptions(file, location, row.options)
    const answer = open ? row.answer?.trim() || null : yield* checkAnswer(file, location, row.answer, options.length)
    return {
      questionId: String(row.question_id).trim(),
      videoId: extra.videoId,
      taskType: row.task_type.trim(),
      duration: extra.duration,
      domain: extra.domain,
      question: row.question.trim(),
      options,
      answer
    }
  })

// ---------------------------------------------------------------------------------------------
// Files

interface Located {
  readonly question: Question
  readonly file: string
  readonly location: string
}

const decodeVideoRow = Schema.decodeUnknownEither(VideoRow, { errors: "first" })
const decodeVideoMmeRow = Schema.decodeUnknownEither(VideoMmeRow, { errors: "first" })

const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

// The rows are decoded one by one afterwards, so each error can name its line or index.
const decodeJsonText = Schema.decodeEither(Schema.parseJson())

/** JSON text as a value, or the parser's complaint. */
const tryParse = (text: string): Either.Either<unknown, string> =>
  Either.mapLeft(decodeJsonText(text), (error) => firstDecodeIssue(error).message)

// Refused before anything recursive (the decoder, its error formatting) walks a value nested too deep.
const tooDeep = (file: string, location: string | null, where: string) =>
  new QuestionLoadError({ reason: "InvalidJson", file, location, field: null, message: tooDeepMessage(file, where) })

const parseJson = (file: string, text: string, fix: string): Either.Either<unknown, QuestionLoadError> => {
  const deep = tooDeepAt(text)
  if (deep !== undefined) return Either.left(tooDeep(file, null, lineColumn(text, deep)))
  return Either.mapLeft(
    tryParse(text),
    (why) => rowError(file, null, null, `not valid JSON (${why})`, fix, "InvalidJson")
  )
}

const decodeVideoFile = (file: string, text: string): Either.Either<ReadonlyArray<Located>, QuestionLoadError> =>
  Either.gen(function*() {
    const videoId = NodePath.basename(file).replace(/\.json$/i, "")
    const fix = `write a JSON array of {question_id, task_type, question, options, answer} objects`
    const value = yield* parseJson(file, stripBom(text), fix)
    if (!Array.isArray(value)) {
      return yield* Either.left(rowError(file, null, null, `expected a JSON array, got ${describeValue(value)}`, fix))
    }
    const out: Array<Located> = []
    for (const [i, row] of value.entries()) {
      const location = `index ${i}`
      const decoded = decodeVideoRow(row)
      if (Either.isLeft(decoded)) return yield* Either.left(fromParseError(file, location, row, decoded.left))
      const question = yield* toQuestion(file, location, decoded.right, { videoId, duration: null, domain: null })
      out.push({ question, file, location })
    }
    return out
  })

const decodeVideoMmeRows = (
  file: string,
  rows: ReadonlyArray<{ readonly row: unknown; readonly location: string }>
): Either.Either<ReadonlyArray<Located>, QuestionLoadError> =>
  Either.gen(function*() {
    const out: Array<Located> = []
    for (const { location, row } of rows) {
      const decoded = decodeVideoMmeRow(row)
      if (Either.isLeft(decoded)) return yield* Either.left(fromParseError(file, location, row, decoded.left))
      const r = decoded.right
      const domain = r.domain?.trim() ? r.domain.trim() : null
      const question = yield* toQuestion(file, location, r, {
        videoId: r.videoID.trim(),
        duration: r.duration ?? null,
        domain
      })
      out.push({ question, file, location })
    }
    return out
  })

const decodeVideoMmeFile = (file: string, text: string): Either.Either<ReadonlyArray<Located>, QuestionLoadError> =>
  Either.gen(function*() {
    const body = stripBom(text)
    if (body.trimStart().startsWith("[")) {
      const value = yield* parseJson(file, body, "write a JSON array of Video-MME rows, or one row per line (JSONL)")
      if (!Array.isArray(value)) {
        return yield* Either.left(rowError(file, null, null, "expected a JSON array", defaultFix))
      }
      return yield* decodeVideoMmeRows(file, value.map((row, i) => ({ row, location: `index ${i}` })))
    }
    const rows: Array<{ row: unknown; location: string }> = []
    const lines = body.split(/\r?\n/)
    for (const [i, line] of lines.entries()) {
      if (line.trim() === "") continue
      const location = `line ${i + 1}`
      if (tooDeepAt(line) !== undefined) return yield* Either.left(tooDeep(file, location, location))
      const parsed = tryParse(line)
      if (Either.isLeft(parsed)) {
        // A pretty-printed object spans lines; say so rather than blame its first line.
        const whole = Either.isRight(tryParse(body))
        return yield* Either.left(
          whole
            ? rowError(
              file,
              null,
              null,
              "holds one JSON object over several lines",
              "write one Video-MME row per line (JSONL) or wrap the rows in a JSON array",
              "InvalidJson"
            )
            : rowError(
              file,
              location,
              null,
              `not valid JSON (${parsed.left})`,
              "each line must hold one complete JSON object",
              "InvalidJson"
            )
        )
      }
      rows.push({ row: parsed.right, location })
    }
    return yield* decodeVideoMmeRows(file, rows)
  })

const checkUnique = (located: ReadonlyArray<Located>): Either.Either<ReadonlyArray<Question>, QuestionLoadError> => {
  const seen = new Map<string, Located>()
  for (const l of located) {
    const first = seen.get(l.question.questionId)
    if (first !== undefined) {
      return Either.left(
        rowError(
          l.file,
          l.location,
          "question_id",
          `${describeValue(l.question.questionId)} already appears at ${first.file}: ${first.location}`,
          "question ids must be unique across the whole input; rename or remove one",
          "DuplicateId"
        )
      )
    }
    seen.set(l.question.questionId, l)
  }
  return Either.right(located.map((l) => l.question))
}

/** What `loadQuestions` read, for the pure decoder. */
export type QuestionSource =
  | {
    readonly _tag: "Directory"
    readonly dir: string
    /** `<videoID>.json` files; `file` is the path to show in errors. Decoded in the given order. */
    readonly files: ReadonlyArray<{ readonly file: string; readonly text: string }>
  }
  | { readonly _tag: "File"; readonly file: string; readonly text: string }

/**
 * Decode either input form into questions, in file order (directory files in the order given).
 * Fails on the first bad row, on duplicate question ids and on an input with no questions.
 */
export const decodeQuestions = (source: QuestionSource): Either.Either<ReadonlyArray<Question>, QuestionLoadError> =>
  Either.gen(function*() {
    const located: Array<Located> = []
    if (source._tag === "Directory") {
      if (source.files.length === 0) {
        return yield* Either.left(
          rowError(
            source.dir,
            null,
            null,
            "holds no <videoID>.json files",
            "add one question file per video, or pass a .json/.jsonl file of Video-MME rows",
            "Empty"
          )
        )
      }
      for (const { file, text } of source.files) {
        for (const question of yield* decodeVideoFile(file, text)) located.push(question)
      }
    } else {
      for (const question of yield* decodeVideoMmeFile(source.file, source.text)) located.push(question)
    }
    if (located.length === 0) {
      const where = source._tag === "Directory" ? source.dir : source.file
      return yield* Either.left(
        rowError(where, null, null, "holds no questions", "add at least one question row", "Empty")
      )
    }
    return yield* checkUnique(located)
  })
