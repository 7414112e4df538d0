/**
 * From a loader's input to checked questions: the benchmark chosen (forced or detected), its questions
 * decoded, ids checked unique, keys shipped apart (`--answers`) applied. And the two adapters a loader and
 * the agent need: file text to `FileContent`, and a `BenchmarkQuestion` as today's `Question`.
 */
import { Either } from "effect"
import {
  type BenchmarkFacts,
  type Question,
  type QuestionDuration,
  type QuestionLoadError,
  rowError
} from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput, BenchmarkQuestion, FileContent } from "./Benchmark.js"
import { normalizeKey } from "./Options.js"
import { benchmarkNamed, detectBenchmark } from "./Registry.js"
import { describeValue, isRecord } from "./Rows.js"

/**
 * What a file's text holds, with `parseJson` the caller's JSON reader (the depth-limited one): one JSON
 * value, one JSON value per non-blank line, or neither (CSV, or no known layout).
 */
export const classifyText = (
  text: string,
  parseJson: (text: string) => Either.Either<unknown, unknown>
): FileContent => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const whole = parseJson(body)
  if (Either.isRight(whole)) return { _tag: "Json", value: whole.right }
  const rows: Array<{ line: number; value: unknown }> = []
  const lines = body.split(/\r?\n/)
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue
    // Only lines that open an object or array: a csv line such as `1,2` is not JSON rows.
    if (!/^\s*[[{]/.test(line)) return { _tag: "Text", text: body }
    const value = parseJson(line)
    if (Either.isLeft(value)) return { _tag: "Text", text: body }
    rows.push({ line: i + 1, value: value.right })
  }
  return rows.length > 0 ? { _tag: "JsonLines", rows } : { _tag: "Text", text: body }
}

/** `--answers FILE` as read: `{question id: letter or index}`. */
export interface AnswersInput {
  readonly file: string
  readonly value: unknown
}

/**
 * Keys shipped apart (EgoSchema's `{q_uid: index}`; letters accepted too) set on the questions they name,
 * replacing any key the questions carried. Ids the questions lack are ignored (the questions may be a
 * part of the set), unless none matches: then the file is for other questions.
 */
export const applyAnswers = (
  questions: ReadonlyArray<BenchmarkQuestion>,
  answers: AnswersInput
): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> => {
  const { file, value } = answers
  if (!isRecord(value)) {
    return Either.left(
      rowError(
        file,
        null,
        null,
        `expected a JSON object {question id: letter or index}, got ${describeValue(value)}`,
        "pass a file such as EgoSchema's subset_answers.json",
        "InvalidAnswers"
      )
    )
  }
  const byId = new Map(questions.map((q) => [q.id, q]))
  const keys = new Map<string, { key: string; raw: string | number }>()
  for (const [id, raw] of Object.entries(value)) {
    const q = byId.get(id)
    if (q === undefined) continue
    // An open-ended question's key is its reference text, as written.
    const key = q.options.length === 0 && typeof raw === "string" && raw.trim() !== ""
      ? raw.trim()
      : typeof raw === "string" || typeof raw === "number"
      ? normalizeKey(raw, q.options.length)
      : null
    if (key === null) {
      return Either.left(rowError(
        file,
        null,
        JSON.stringify(id),
        `${describeValue(raw)} names no option (the question has ${q.options.length}: A–${
          String.fromCharCode(64 + q.options.length)
        }, or indices 0–${q.options.length - 1})`,
        "give a letter or an index from 0",
        "InvalidAnswers"
      ))
    }
    keys.set(id, { key, raw: raw as string | number })
  }
  if (keys.size === 0 && Object.keys(value).length > 0) {
    return Either.left(
      rowError(
        file,
        null,
        null,
        "names none of the questions' ids",
        "pass the answers that belong to this question file",
        "InvalidAnswers"
      )
    )
  }
  return Either.right(questions.map((q) => {
    const k = keys.get(q.id)
    return k === undefined ? q : { ...q, key: k.key, originalKey: k.raw }
  }))
}

const checkUnique = (
  questions: ReadonlyArray<BenchmarkQuestion>
): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> => {
  const seen = new Map<string, BenchmarkQuestion>()
  for (const q of questions) {
    const first = seen.get(q.id)
    if (first !== undefined) {
      return Either.left(rowError(
        q.source.file,
        q.source.location,
        null,
        `question id ${JSON.stringify(q.id)} already appears at ${first.source.file}: ${first.source.location}`,
        "question ids must be unique across the input; remove or rename one",
        "DuplicateId"
      ))
    }
    seen.set(q.id, q)
  }
  return Either.right(questions)
}

export interface DecodeOptions {
  /** `--benchmark NAME`: skips detection. */
  readonly benchmark?: string | undefined
  readonly answers?: AnswersInput | undefined
}

/** The benchmark and its questions, in input order; fails on the first problem, in one line. */
export const decodeBenchmark = (
  input: BenchmarkInput,
  options: DecodeOptions = {}
): Either.Either<
  { readonly benchmark: Benchmark; readonly questions: ReadonlyArray<BenchmarkQuestion> },
  QuestionLoadError
> =>
  Either.gen(function*() {
    const benchmark =
      yield* (options.benchmark === undefined ? detectBenchmark(input) : benchmarkNamed(options.benchmark))
    const decoded = yield* benchmark.decode(input)
    if (decoded.length === 0) {
      const path = input._tag === "File" ? input.file.file : input.dir
      return yield* Either.left(rowError(path, null, null, "holds no questions", "add at least one question", "Empty"))
    }
    const unique = yield* checkUnique(decoded)
    const questions = options.answers === undefined ? unique : yield* applyAnswers(unique, options.answers)
    return { benchmark, questions }
  })

const isDuration = (text: string | null): text is QuestionDuration =>
  text === "short" || text === "medium" || text === "long"

/** The question as today's agent, store and report take it. */
export const asQuestion = (q: BenchmarkQuestion): Question => ({
  questionId: q.id,
  videoId: q.videoId,
  taskType: q.taskType,
  duration: isDuration(q.durationGroup) ? q.durationGroup : null,
  domain: q.domain,
  question: q.question,
  options: q.options,
  answer: q.key
})

/** What the run keeps beside the `Question` (and saves with its prediction): see domain/Question's BenchmarkFacts. */
export const factsOf = (q: BenchmarkQuestion): BenchmarkFacts => ({
  name: q.benchmark,
  categories: q.categories,
  originalKey: q.originalKey,
  durationSeconds: q.durationSeconds,
  durationGroup: q.durationGroup,
  source: q.source,
  row: q.row
})
