// Rows of a released file, and the one-line errors about them: `<file>: <location>: <field>: <problem> — <fix>`.
import { Either, type ParseResult, Schema } from "effect"
import { firstDecodeIssue } from "../../domain/DecodeIssue.js"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { BenchmarkInput, FileContent, InputFile } from "./Benchmark.js"

export interface Located {
  readonly row: unknown
  /** `index 2` (JSON array) or `line 4` (JSONL, CSV). */
  readonly location: string
}

export const describeValue = (value: unknown): string => {
  const text = value === undefined ? "undefined" : JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

/** Where a table (Parquet) row sits, counting from 1 as lines do. */
export const tableRow = (index: number): string => `row ${index + 1}`

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The rows of a JSON array or a JSONL file; anything else is refused with `layoutFix`. */
export const rowsOf = (
  input: InputFile,
  layoutFix: string
): Either.Either<ReadonlyArray<Located>, QuestionLoadError> => {
  const content = input.content
  if (content._tag === "Json" && Array.isArray(content.value)) {
    return Either.right(content.value.map((row, i) => ({ row, location: `index ${i}` })))
  }
  // A JSONL file of one line parses as a whole: one object.
  if (content._tag === "Json" && isRecord(content.value)) {
    return Either.right([{ row: content.value, location: "line 1" }])
  }
  if (content._tag === "JsonLines") {
    return Either.right(content.rows.map(({ line, value }) => ({ row: value, location: `line ${line}` })))
  }
  if (content._tag === "Table") return Either.right(content.rows.map((row, i) => ({ row, location: tableRow(i) })))
  const got = content._tag === "Json"
    ? `a JSON ${Array.isArray(content.value) ? "array" : typeof content.value}`
    : "text that is not JSON"
  return Either.left(
    rowError(input.file, null, null, `expected a JSON array or one JSON object per line, got ${got}`, layoutFix)
  )
}

const firstValues = (content: FileContent, n: number): ReadonlyArray<unknown> =>
  content._tag === "Json"
    ? Array.isArray(content.value) ? content.value.slice(0, n) : [content.value]
    : content._tag === "JsonLines"
    ? content.rows.slice(0, n).map((r) => r.value)
    : content._tag === "Table"
    ? content.rows.slice(0, n)
    : []

/** The first `n` rows of a single file, for detection; none for a folder or text. */
export const sampleRows = (input: BenchmarkInput, n = 3): ReadonlyArray<unknown> =>
  input._tag === "File" ? firstValues(input.file.content, n) : []

/** Whether every sampled row is an object holding all `fields` (and there is at least one row). */
export const rowsHave = (rows: ReadonlyArray<unknown>, fields: ReadonlyArray<string>): boolean =>
  rows.length > 0 && rows.every((row) => isRecord(row) && fields.every((f) => f in row))

/** Whether a row carries a non-empty `options` list: one without is an open-ended question (Custom.ts). */
export const hasOptions = (row: unknown): boolean =>
  isRecord(row) && "options" in row && !(Array.isArray(row["options"]) && row["options"].length === 0)

const valueAt = (root: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>(
    (v, key) => (isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    root
  )

/**
 * A Schema decoder for one layout's rows whose failures read as one line: the field as spelled in the file,
 * what was expected, what was found, and the fix for that field (`fixes`, by top-level field).
 */
export const rowDecoder = <A, I>(
  schema: Schema.Schema<A, I>,
  fixes: Readonly<Record<string, string>>,
  defaultFix: string
) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "first" })
  return (file: string, location: string, row: unknown): Either.Either<A, QuestionLoadError> =>
    Either.mapLeft(decode(row), (error: ParseResult.ParseError) => {
      const issue = firstDecodeIssue(error)
      if (issue.path.length === 0) {
        return rowError(file, location, null, `expected a JSON object, got ${describeValue(row)}`, defaultFix)
      }
      const top = String(issue.path[0])
      const problem = issue.tag === "Missing"
        ? "is missing"
        : `has the wrong type: ${describeValue(valueAt(row, issue.path))}`
      return rowError(file, location, issue.field, problem, fixes[top] ?? defaultFix)
    })
}

export const NonBlank = Schema.String.pipe(Schema.pattern(/\S/))
/** Ids are written as strings or numbers by different releases. */
export const IdField = Schema.Union(NonBlank, Schema.Number)
