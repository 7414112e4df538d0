// A small RFC 4180 reader (no CSV library is installed): quoted fields, doubled quotes, commas and line
// breaks inside quotes, CRLF or LF line ends, a BOM. Pure; fails naming the line of a quote left open.
import { Either } from "effect"

export interface CsvRecord {
  /** The line (from 1) the record starts on. */
  readonly line: number
  readonly fields: ReadonlyArray<string>
}

export interface CsvError {
  readonly line: number
  readonly problem: string
}

/** Every record, blank lines skipped. A quote inside an unquoted field is kept as text, as most writers do. */
export const parseCsv = (text: string): Either.Either<ReadonlyArray<CsvRecord>, CsvError> => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const records: Array<CsvRecord> = []
  let fields: Array<string> = []
  let field = ""
  let line = 1
  let start = 1
  let i = 0
  let quoted = false
  let fieldStarted = false
  const endRecord = () => {
    fields.push(field)
    if (!(fields.length === 1 && fields[0] === "" && !fieldStarted)) records.push({ line: start, fields })
    fields = []
    field = ""
    fieldStarted = false
  }
  while (i < body.length) {
    const c = body[i]!
    if (quoted) {
      if (c === "\"") {
        if (body[i + 1] === "\"") {
          field += "\""
          i += 2
          continue
        }
        quoted = false
        i += 1
        // After a closing quote only a separator or a line end may follow.
        const next = body[i]
        if (next !== undefined && next !== "," && next !== "\r" && next !== "\n") {
          return Either.left({ line, problem: `unexpected ${JSON.stringify(next)} after a closing quote` })
        }
        continue
      }
      if (c === "\n") line += 1
      field += c
      i += 1
      continue
    }
    if (c === "\"" && field === "") {
      quoted = true
      fieldStarted = true
      i += 1
    } else if (c === ",") {
      fields.push(field)
      field = ""
      fieldStarted = true
      i += 1
    } else if (c === "\r" || c === "\n") {
      endRecord()
      i += c === "\r" && body[i + 1] === "\n" ? 2 : 1
      line += 1
      start = line
    } else {
      field += c
      fieldStarted = true
      i += 1
    }
  }
  if (quoted) return Either.left({ line: start, problem: "a quoted field is never closed" })
  if (field !== "" || fields.length > 0 || fieldStarted) endRecord()
  return Either.right(records)
}
