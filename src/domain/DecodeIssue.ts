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
