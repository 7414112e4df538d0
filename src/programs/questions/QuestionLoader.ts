// Questions from the file or folder `--questions` names, in any layout vtree reads (programs/benchmarks):
// the files read, each classified with the depth-limited JSON reader, the benchmark detected (or forced
// with `--benchmark`) and decoded, keys shipped apart (`--answers`) applied.
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either } from "effect"
import type { JSONPath } from "jsonc-parser"
import * as NodePath from "node:path"
import type { BenchmarkFacts, BenchmarkName, Question } from "../../domain/Question.js"
import { QuestionLoadError, rowError } from "../../domain/Question.js"
import { decodeUserText, readUserFile, readUserText, userFileCaps, type UserFileError } from "../../domain/UserFile.js"
import { parseUserJson, tooDeepMessage, type UserJsonError } from "../../domain/UserJson.js"
import type { InputFile } from "../benchmarks/Benchmark.js"
import { asQuestion, classifyText, decodeBenchmark, factsOf } from "../benchmarks/BenchmarkQuestions.js"
import { exactJson, fieldPath, type RepeatedKey } from "./ExactJson.js"
import { isParquet, type ParquetError, parquetRowsOf } from "./ParquetRows.js"

/** The most rows a Parquet question file may hold: Video-MME-v2's has 3,200. */
export const parquetQuestionRows = 100_000

export interface LoadOptions {
  /** `--benchmark NAME`: this layout, not the detected one. */
  readonly benchmark?: string | undefined
  /** `--answers FILE`: keys shipped apart, `{question id: letter or index}`. */
  readonly answers?: string | undefined
}

/** The questions as the agent takes them, and beside them what the run keeps of their benchmark. */
export interface LoadedQuestions {
  readonly benchmark: BenchmarkName
  readonly questions: ReadonlyArray<Question>
  /** By question id. */
  readonly facts: ReadonlyMap<string, BenchmarkFacts>
}

const loadError = (file: string, reason: "InvalidJson", message: string) =>
  new QuestionLoadError({ reason, file, location: null, field: null, message })

const parquetError = (error: ParquetError) =>
  new QuestionLoadError({
    reason: error.reason === "TooManyRows" ? "ReadFailed" : "InvalidParquet",
    file: error.file,
    location: null,
    field: null,
    message: error.message
  })

/**
 * `parseUserJson` (depth limit, syntax), then read exactly (ExactJson): integers past 2^53 as the digits
 * written, and the first key written twice reported through `onRepeated`.
 */
const parseExact = (file: string, text: string, onRepeated: (repeated: RepeatedKey) => void) => {
  const parsed = parseUserJson(file, text)
  if (Either.isLeft(parsed)) return parsed
  const exact = exactJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  if (exact.repeated !== undefined) onRepeated(exact.repeated)
  return exact.text.length === text.length ? parsed : parseUserJson(file, exact.text)
}

const repeatedKeyError = (file: string, location: string | null, path: JSONPath, key: string) => {
  const field = fieldPath([...path, key])
  return rowError(
    file,
    location,
    field,
    "is written twice in one object (JSON would keep only the last)",
    `keep one "${key}" in the object`
  )
}

/** Where a repeated key sits: the row (`index 2` of an array) and the path inside it. */
const repeatedIn = (file: string, content: InputFile["content"], part: string, body: string, r: RepeatedKey) => {
  if (content._tag === "JsonLines") {
    const line = body.split(/\r?\n/).indexOf(part) + 1
    return repeatedKeyError(file, `line ${line}`, r.path, r.key)
  }
  if (content._tag === "Json" && Array.isArray(content.value) && typeof r.path[0] === "number") {
    return repeatedKeyError(file, `index ${r.path[0]}`, r.path.slice(1), r.key)
  }
  return repeatedKeyError(file, null, r.path, r.key)
}

/**
 * The file's text as a benchmark reads it. JSON nested too deep is refused here, naming the line, before
 * anything recursive walks it; text that opens like JSON but does not parse says why, not "no layout".
 */
export const readContent = (file: string, text: string): Either.Either<InputFile, QuestionLoadError> => {
  // The last one found: a JSONL line's, when the whole text was tried first.
  let tooDeep: { text: string; error: UserJsonError } | undefined
  let repeated: { part: string; key: RepeatedKey } | undefined
  const parse = (part: string) => {
    const parsed = parseExact(file, part, (key) => (repeated ??= { part, key }))
    if (Either.isLeft(parsed) && parsed.left.reason === "TooDeep") tooDeep = { text: part, error: parsed.left }
    return parsed
  }
  const content = classifyText(text, parse)
  if (content._tag !== "Text") {
    return repeated === undefined
      ? Either.right({ file, content })
      : Either.left(repeatedIn(file, content, repeated.part, text.replace(/^\uFEFF/, ""), repeated.key))
  }
  const body = content.text
  if (tooDeep !== undefined) {
    if (tooDeep.text === body) return Either.left(loadError(file, "InvalidJson", tooDeep.error.message))
    const line = body.split(/\r?\n/).indexOf(tooDeep.text) + 1
    return Either.left(loadError(file, "InvalidJson", tooDeepMessage(file, `line ${line}`)))
  }
  const opening = body.trimStart()[0]
  if (opening === "[" || (opening === "{" && !body.trimStart().includes("\n"))) {
    const why = parseUserJson(file, body)
    if (Either.isLeft(why)) return Either.left(loadError(file, "InvalidJson", why.left.message))
  }
  if (opening === "{") {
    const lines = body.split(/\r?\n/)
    const bad = lines.findIndex((l) => l.trim() !== "" && Either.isLeft(parseUserJson(file, l)))
    const whole = Either.isRight(parseUserJson(file, body))
    if (bad >= 0 && !whole) {
      const why = parseUserJson(file, lines[bad]!)
      const reason = Either.isLeft(why)
        ? why.left.message.replace(`${file}: `, "").replace(/ — fix the file$/, "")
        : "not valid JSON"
      return Either.left(
        rowError(file, `line ${bad + 1}`, null, reason, "each line must hold one complete JSON object", "InvalidJson")
      )
    }
  }
  return Either.right({ file, content })
}

/**
 * Reads `path` (a file, or a folder's `.json` files sorted by name, dotfiles skipped) and decodes it as
 * the benchmark its content has (or `options.benchmark`), with `options.answers` applied.
 */
export const loadQuestionSet = Effect.fn("QuestionLoader.loadQuestionSet")(
  function*(path: string, options: LoadOptions = {}) {
    const fs = yield* FileSystem.FileSystem
    const readFailed = (file: string) => (e: { readonly message: string }) =>
      rowError(file, null, null, `cannot be read (${e.message})`, "check the path and its permissions", "ReadFailed")
    const notFound =
      (file: string, fix: string) =>
      (e: { readonly message: string; readonly _tag: string; readonly reason?: string }) =>
        e._tag === "SystemError" && e.reason === "NotFound"
          ? rowError(file, null, null, "does not exist", fix, "NotFound")
          : readFailed(file)(e)
    const info = yield* fs.stat(path).pipe(
      Effect.mapError(notFound(path, "pass --questions a benchmark's question file or folder (docs/benchmarks.md)"))
    )
    // Only regular files under the cap, and only UTF-8: a question read with replacement characters
    // would match no option and count as wrong without a word.
    const fileError = (fix: string) => (error: UserFileError) =>
      error.reason === "NotFound"
        ? rowError(error.file, null, null, "does not exist", fix, "NotFound")
        : new QuestionLoadError({
          reason: error.reason === "InvalidUtf8" ? "InvalidJson" : "ReadFailed",
          file: error.file,
          location: null,
          field: null,
          message: error.message
        })
    const readText = (file: string, fix: string) =>
      readUserText(file, userFileCaps.questions, { strict: true }).pipe(Effect.mapError(fileError(fix)))
    const questionsFix = "pass --questions a benchmark's question file or folder (docs/benchmarks.md)"
    // Parquet by its magic, whatever the name; anything else as UTF-8 text.
    const read = (file: string) =>
      readUserFile(file, userFileCaps.questions).pipe(
        Effect.mapError(fileError(questionsFix)),
        Effect.flatMap((bytes): Effect.Effect<InputFile, QuestionLoadError> =>
          isParquet(bytes)
            ? parquetRowsOf(file, bytes, parquetQuestionRows).pipe(
              Effect.mapBoth({
                onFailure: parquetError,
                onSuccess: (rows): InputFile => ({ file, content: { _tag: "Table", rows } })
              })
            )
            : Either.match(decodeUserText(file, bytes, { strict: true }), {
              onLeft: (e) => Effect.fail(fileError(questionsFix)(e)),
              onRight: (text) => Either.match(readContent(file, text), { onLeft: Effect.fail, onRight: Effect.succeed })
            })
        )
      )
    let input: Parameters<typeof decodeBenchmark>[0]
    if (info.type === "Directory") {
      const names = yield* fs.readDirectory(path).pipe(Effect.mapError(readFailed(path)))
      // Sorted so file order, and with it --n-samples, does not depend on the file system.
      const jsonNames = names.filter((n) => n.toLowerCase().endsWith(".json") && !n.startsWith(".")).sort()
      if (jsonNames.length === 0) {
        return yield* rowError(
          path,
          null,
          null,
          "holds no <videoID>.json files",
          "add one question file per video (or MLVU's per-task files), or pass a benchmark's question file",
          "Empty"
        )
      }
      const files = yield* Effect.forEach(jsonNames, (name) => read(NodePath.join(path, name)))
      input = { _tag: "Folder", dir: path, files }
    } else {
      input = { _tag: "File", file: yield* read(path) }
    }
    let answers: { readonly file: string; readonly value: unknown } | undefined
    if (options.answers !== undefined) {
      const file = options.answers
      const text = yield* readText(file, "pass --answers a JSON file of {question id: letter or index}")
      let repeated: RepeatedKey | undefined
      const value = parseExact(file, text, (key) => (repeated ??= key))
      if (Either.isLeft(value)) return yield* loadError(file, "InvalidJson", value.left.message)
      if (repeated !== undefined) return yield* repeatedKeyError(file, null, repeated.path, repeated.key)
      answers = { file, value: value.right }
    }
    const decoded = decodeBenchmark(input, { benchmark: options.benchmark, answers })
    if (Either.isLeft(decoded)) return yield* decoded.left
    const { benchmark, questions } = decoded.right
    const loaded: LoadedQuestions = {
      benchmark: benchmark.name,
      questions: questions.map(asQuestion),
      facts: new Map(questions.map((q) => [q.id, factsOf(q)]))
    }
    return loaded
  }
)

/** The questions alone (see loadQuestionSet): for callers that need no benchmark facts. */
export const loadQuestions = (path: string, options: LoadOptions = {}) =>
  Effect.map(loadQuestionSet(path, options), (loaded) => loaded.questions)
