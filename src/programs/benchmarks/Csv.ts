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
  // Whole runs are sliced at once: an unquoted field up to its separator, a quoted one up to its quote.
  const unquoted = /[^,\r\n]*/y
  let line = 1
  let i = 0
  while (i < body.length) {
    const start = line
    const fields: Array<string> = []
    const opensQuoted = body[i] === "\""
    for (;;) {
      if (body[i] === "\"") {
        let field = ""
        let from = i + 1
        for (;;) {
          const quote = body.indexOf("\"", from)
          if (quote < 0) return Either.left({ line: start, problem: "a quoted field is never closed" })
          const chunk = body.slice(from, quote)
          field += chunk
          for (let k = chunk.indexOf("\n"); k >= 0; k = chunk.indexOf("\n", k + 1)) line += 1
          if (body[quote + 1] === "\"") {
            field += "\""
            from = quote + 2
            continue
          }
          i = quote + 1
          break
        }
        fields.push(field)
        // After a closing quote only a separator or a line end may follow.
        const next = body[i]
        if (next !== undefined && next !== "," && next !== "\r" && next !== "\n") {
          return Either.left({ line, problem: `unexpected ${JSON.stringify(next)} after a closing quote` })
        }
      } else {
        unquoted.lastIndex = i
        unquoted.exec(body)
        fields.push(body.slice(i, unquoted.lastIndex))
        i = unquoted.lastIndex
      }
      if (body[i] === ",") {
        i += 1
        continue
      }
      break
    }
    // At a line end or the end of the text.
    if (body[i] === "\r") i += body[i + 1] === "\n" ? 2 : 1
    else if (body[i] === "\n") i += 1
    line += 1
    if (!(fields.length === 1 && fields[0] === "" && !opensQuoted)) records.push({ line: start, fields })
  }
  return Either.right(records)
}
