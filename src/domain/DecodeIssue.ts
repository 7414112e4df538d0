// The one place a Schema decode failure becomes words: every file format and wire reply vtree reads
// (questions, tree.json, prompt labels, search requests, provider replies) names the failing field the same way.
import { ParseResult } from "effect"

export interface DecodeIssue {
  readonly tag: ParseResult.ArrayFormatterIssue["_tag"]
  /** From the document's root: the `at` the decoded value sat at, then the path inside it. */
  readonly path: ReadonlyArray<PropertyKey>
  /** `path` as written by `formatPath`; empty for the value itself. */
  readonly field: string
  readonly message: string
}

/** `nodes.X_L1_000.time_range[0]`: the form people search for in their editor. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`
    const name = String(key)
    return out === "" ? name : `${out}.${name}`
  }, "")

/** Every issue of a failed decode, in the decoder's order; `at` locates the decoded value in its document. */
export const decodeIssues = (
  error: ParseResult.ParseError,
  at: ReadonlyArray<PropertyKey> = []
): ReadonlyArray<DecodeIssue> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => {
    const path = [...at, ...issue.path]
    return { tag: issue._tag, path, field: formatPath(path), message: issue.message }
  })

/** The first issue: the one a one-line error reports (decoders run with `errors: "first"` stop there). */
export const firstDecodeIssue = (error: ParseResult.ParseError, at: ReadonlyArray<PropertyKey> = []): DecodeIssue =>
  decodeIssues(error, at)[0] ?? { tag: "Type", path: at, field: formatPath(at), message: "invalid value" }

/**
 * When a `Schema.parseJson(…)` decode failed because the text is not JSON at all: the parser's own
 * complaint (e.g. `Unexpected token } in JSON at position 9`); undefined when the JSON was read and
 * a field was wrong.
 */
export const jsonSyntaxProblem = (error: ParseResult.ParseError): string | undefined =>
  error.issue._tag === "Transformation" && error.issue.kind === "Encoded" ? firstDecodeIssue(error).message : undefined

/** `field: message`; a refinement message that already names its field is kept as it is. */
export const issueLine = (issue: DecodeIssue): string =>
  issue.field === "" || issue.message.startsWith(`${issue.field}:`) ? issue.message : `${issue.field}: ${issue.message}`

// The run store's tables, told apart by the key columns a row carries (most specific first).
const tableKeys: ReadonlyArray<readonly [table: string, keys: ReadonlyArray<string>]> = [
  ["llm_calls", ["run_id", "question_id", "call_id"]],
  ["steps", ["run_id", "question_id", "step"]],
  ["predictions", ["run_id", "question_id"]],
  ["runs", ["run_id"]]
]

const camelCase = (column: string): string => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** The row a decode failed on (the element the issue's path starts in, when a list of rows was decoded). */
const failedRow = (error: ParseResult.ParseError, path: ReadonlyArray<PropertyKey>): unknown => {
  const actual = (error.issue as { readonly actual?: unknown }).actual
  return Array.isArray(actual) && typeof path[0] === "number" ? actual[path[0]] : actual
}

/**
 * A stored row that does not decode, said as what is wrong: the table, the row by its key, the field and
 * the problem — `runs row run_id=r1: selection_json: Expected …`. A row edited by hand or damaged reads
 * this way; a database of another program is refused earlier, by its application id.
 */
export const storedRowProblem = (error: ParseResult.ParseError): string => {
  const issue = firstDecodeIssue(error)
  const row = failedRow(error, issue.path)
  const path = Array.isArray((error.issue as { readonly actual?: unknown }).actual) ? issue.path.slice(1) : issue.path
  const columns = typeof row === "object" && row !== null ? (row as Record<string, unknown>) : {}
  // The store's client may hand rows over with camelCase names; the person reads the table's columns.
  const valueOf = (column: string): unknown => column in columns ? columns[column] : columns[camelCase(column)]
  const found = tableKeys.find(([, keys]) => keys.every((key) => valueOf(key) !== undefined))
  const where = found === undefined
    ? "a row"
    : `${found[0]} row ${found[1].map((key) => `${key}=${String(valueOf(key))}`).join(" ")}`
  const columnPath = path.map((key) => typeof key === "string" ? snakeCase(key) : key)
  return `${where}: ${issueLine({ ...issue, path: columnPath, field: formatPath(columnPath) })}`
}
