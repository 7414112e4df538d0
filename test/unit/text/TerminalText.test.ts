import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { cutTerminalText, terminalText, terminalUnits, withoutStyles } from "../../../src/text/TerminalText.js"

// Any C0 or C1 control character, DEL, or a bidirectional override: what a terminal obeys.
const controlPattern = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
const controlsBut = (kept: string) => (text: string) =>
  [...text].some((char) => !kept.includes(char) && controlPattern.test(char))

// Strings rich in what matters here: escape sequences, control bytes, astral characters.
const hostile = fc.array(
  fc.oneof(
    fc.string({ unit: "binary" }),
    fc.constantFrom("\x1b]0;owned\x07", "\x1b[2J", "\x9b31m", "\u202e", "\r", "\n", "\t", "\x00", "😀", "é"),
    fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code))
  )
).map((parts) => parts.join(""))

describe("terminalText", () => {
  it("shows a title-setting and a screen-clearing sequence as printable text", () => {
    assert.strictEqual(terminalText("a\x1b]0;pwned\x07b\x1b[2Jc"), "a\\x1b]0;pwned\\x07b\\x1b[2Jc")
    assert.strictEqual(terminalText("\x9b2J"), "\\x9b2J")
    assert.strictEqual(terminalText("abc\u202edef"), "abc\\u202edef")
  })

  it("keeps newlines and tabs only in multi-line text", () => {
    assert.strictEqual(terminalText("a\nb\tc\r"), "a\\x0ab\\x09c\\x0d")
    assert.strictEqual(terminalText("a\nb\tc\r", { multiline: true }), "a\nb\tc\\x0d")
  })

  it("leaves every other character as it is", () => {
    const text = "Qué 漢字 😀 \\x1b is a backslash"
    assert.strictEqual(terminalText(text), text)
  })

  it("never lets a control character through (property)", () => {
    fc.assert(fc.property(hostile, (text) => {
      assert.isFalse(controlsBut("")(terminalText(text)))
      assert.isFalse(controlsBut("\n\t")(terminalText(text, { multiline: true })))
    }))
  })

  it("cuts on whole units: never inside a shown escape or a surrogate pair (property)", () => {
    fc.assert(fc.property(hostile, fc.integer({ min: 0, max: 40 }), (text, width) => {
      const cut = cutTerminalText(text, width, "…")
      assert.isFalse(controlsBut("")(cut))
      assert.isAtMost([...cut].length, width)
      // What is kept is whole units of the rendering: never part of `\x1b` or half a surrogate pair.
      const units = terminalUnits(text)
      const prefixes = units.reduce<Array<string>>((out, unit) => [...out, out[out.length - 1]! + unit], [""])
      const kept = prefixes.includes(cut) ? cut : cut.slice(0, -1)
      assert.isTrue(prefixes.includes(kept))
    }))
  })

  it("cuts tree show --anchor style text without splitting an escape", () => {
    assert.strictEqual(cutTerminalText("ab\x1b[2Jcd", 4, ""), "ab")
    assert.strictEqual(cutTerminalText("ab\x1b[2Jcd", 6, ""), "ab\\x1b")
  })

  it("drops colour styling and nothing else", () => {
    assert.strictEqual(withoutStyles("\x1b[1mUSAGE\x1b[0m \x1b]0;t\x07"), "USAGE \x1b]0;t\x07")
  })
})
