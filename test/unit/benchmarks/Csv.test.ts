import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { parseCsv } from "../../../src/programs/benchmarks/Csv.js"

const fields = (text: string) => {
  const result = parseCsv(text)
  if (Either.isLeft(result)) return assert.fail(`line ${result.left.line}: ${result.left.problem}`)
  return result.right.map((r) => r.fields)
}

describe("parseCsv", () => {
  it("reads plain records with LF or CRLF ends", () => {
    assert.deepStrictEqual(fields("a,b,c\n1,2,3\n"), [["a", "b", "c"], ["1", "2", "3"]])
    assert.deepStrictEqual(fields("a,b\r\n1,2\r\n"), [["a", "b"], ["1", "2"]])
    assert.deepStrictEqual(fields("a,b\r\n1,2"), [["a", "b"], ["1", "2"]])
  })

  it("keeps commas, doubled quotes and line breaks inside quotes", () => {
    assert.deepStrictEqual(fields(`q,"why, then?","say ""hi""","two\r\nlines"\n`), [[
      "q",
      "why, then?",
      "say \"hi\"",
      "two\r\nlines"
    ]])
  })

  it("keeps empty fields, skips blank lines and a BOM", () => {
    assert.deepStrictEqual(fields("\uFEFFa,,c\n\n,\n"), [["a", "", "c"], ["", ""]])
    assert.deepStrictEqual(fields(`""\n`), [[""]])
  })

  it("numbers each record by the line it starts on", () => {
    const result = parseCsv(`h\n"x\ny"\nz\n`)
    assert.deepStrictEqual(Either.getOrThrow(result).map((r) => r.line), [1, 2, 4])
  })

  it("refuses a quote left open and text after a closing quote, naming the line", () => {
    assert.deepStrictEqual(
      parseCsv(`a\n"open,b\n`),
      Either.left({ line: 2, problem: "a quoted field is never closed" })
    )
    assert.deepStrictEqual(Either.getLeft(parseCsv(`a\n"x"y\n`)).pipe((o) => o._tag === "Some" ? o.value.line : 0), 2)
  })

  it("reads back any table written with RFC 4180 quoting", () => {
    const quote = (s: string) => (/[",\r\n]/.test(s) || s === "" ? `"${s.replace(/"/g, "\"\"")}"` : s)
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.string({ unit: fc.constantFrom("a", "b", ",", "\"", "\n", "\r", " ", "é") }), {
            minLength: 1,
            maxLength: 4
          }),
          {
            minLength: 1,
            maxLength: 5
          }
        ),
        fc.constantFrom("\n", "\r\n"),
        (table, eol) => {
          const text = table.map((row) => row.map(quote).join(",")).join(eol) + eol
          assert.deepStrictEqual(fields(text), table)
        }
      )
    )
  })
})
