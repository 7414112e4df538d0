// JSON from a question file, read the way its author meant it. JSON.parse turns an integer past 2^53 into
// the nearest double (two ids a unit apart became one, and the run refused them as duplicates) and keeps
// the last of two equal keys without a word. A second pass over the raw text with jsonc-parser's scanner
// finds both: such integers are kept as the digits written, and a repeated key is reported with its path.
import { type JSONPath, visit } from "jsonc-parser"

export interface RepeatedKey {
  readonly key: string
  /** Where the object holding it sits in the value (array indices and keys). */
  readonly path: JSONPath
}

export interface ExactJson {
  /** The text with every integer too large for a double quoted, so it parses as the string written. */
  readonly text: string
  /** The first key written twice in one object, if any. */
  readonly repeated: RepeatedKey | undefined
}

const integerLiteral = /^-?\d+$/

/**
 * Scans `text` (already known to be valid JSON no deeper than the reader's limit: the scanner recurses)
 * for integers a double cannot hold and for keys repeated within one object.
 */
export const exactJson = (text: string): ExactJson => {
  const unsafe: Array<{ readonly offset: number; readonly length: number }> = []
  const keys: Array<Set<string>> = []
  let repeated: RepeatedKey | undefined
  visit(text, {
    onObjectBegin: () => {
      keys.push(new Set())
    },
    onObjectEnd: () => {
      keys.pop()
    },
    onObjectProperty: (property, _offset, _length, _line, _column, pathSupplier) => {
      const seen = keys[keys.length - 1]
      if (seen === undefined) return
      if (seen.has(property) && repeated === undefined) repeated = { key: property, path: pathSupplier() }
      seen.add(property)
    },
    onLiteralValue: (value, offset, length) => {
      if (typeof value !== "number" || Number.isSafeInteger(value)) return
      if (integerLiteral.test(text.slice(offset, offset + length))) unsafe.push({ offset, length })
    }
  }, { disallowComments: true })
  if (unsafe.length === 0) return { text, repeated }
  const parts: Array<string> = []
  let at = 0
  for (const { length, offset } of unsafe) {
    parts.push(text.slice(at, offset), `"${text.slice(offset, offset + length)}"`)
    at = offset + length
  }
  parts.push(text.slice(at))
  return { text: parts.join(""), repeated }
}

/** A path inside a row as the row errors spell fields: `qa[1].answer`. */
export const fieldPath = (path: JSONPath): string =>
  path.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("")
