import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as NodePath from "node:path"
import { idFromName, maxIdBytes, plainNameProblem, videoIdFromFile } from "../../../src/domain/NameId.js"

const idOf = (name: string): string => {
  const result = idFromName(name)
  if ("problem" in result) throw new Error(`${JSON.stringify(name)}: ${result.problem}`)
  return result.id
}

const hashed = /~[0-9a-f]{8}$/

describe("idFromName", () => {
  it("keeps a clean name as it is, YouTube ids with a leading - included", () => {
    for (const name of ["J5Npf2xJpag", "-leading", "_x-Y_", "clip.v2", "holiday-20240101"]) {
      assert.strictEqual(idOf(name), name)
    }
  })

  it("keeps the letters of every script, in NFC", () => {
    assert.strictEqual(idOf("視頻"), "視頻")
    assert.strictEqual(idOf("ünïcødé"), "ünïcødé")
    // NFD input (as macOS file names are) gives the same id as NFC.
    assert.strictEqual(idOf("ünïcødé".normalize("NFD")), "ünïcødé")
    assert.strictEqual(idOf("हिन्दी"), "हिन्दी")
    assert.strictEqual(idOf("Видео_1"), "Видео_1")
  })

  it("maps anything else to -, and then tells the changed name apart by a hash", () => {
    const id = idOf("my holiday (1).final")
    assert.match(id, /^my-holiday-1-\.final~[0-9a-f]{8}$/)
    assert.notStrictEqual(idOf("a b"), idOf("a\tb"))
    assert.notStrictEqual(idOf("a b"), idOf("a-b"))
    assert.strictEqual(idOf("a-b"), "a-b")
    // Control and format characters (ESC, BEL, an RTL mark) are not kept.
    assert.match(idOf("evil\u001b[2Jname\u0007"), /^evil-2Jname~[0-9a-f]{8}$/)
    assert.match(idOf("\u200fabc\u202e"), /^abc~[0-9a-f]{8}$/)
    // A leading or trailing "." never survives: no hidden folder, no name ending in a dot.
    assert.match(idOf(".hidden"), /^hidden~/)
    assert.match(idOf(" .x."), /^x~/)
  })

  it("gives no id for a name without a letter or digit", () => {
    for (const name of ["", ".", "..", "...", "---", " ", "\u200f"]) {
      const result = idFromName(name)
      assert.deepStrictEqual(result, { problem: "has no letter or digit to make an id from" })
    }
  })

  it("fits a file name: a long name is cut and hashed", () => {
    const long = "视".repeat(100)
    const id = idOf(long)
    assert.isAtMost(Buffer.byteLength(id), maxIdBytes)
    assert.match(id, hashed)
    assert.notStrictEqual(idOf(`${long}a`), idOf(`${long}b`))
  })

  it("takes the name without its extension from a path (issue #21: ...mp4 and ..mp4)", () => {
    assert.deepStrictEqual(videoIdFromFile("/data/J5Npf2xJpag.mp4"), { id: "J5Npf2xJpag" })
    assert.deepStrictEqual(videoIdFromFile("v/...mp4"), { problem: "has no letter or digit to make an id from" })
    assert.deepStrictEqual(videoIdFromFile("v/..mp4"), { problem: "has no letter or digit to make an id from" })
    assert.deepStrictEqual(videoIdFromFile("noext"), { id: "noext" })
  })
})

describe("plainNameProblem", () => {
  it("refuses paths, dot names, NUL, and control characters (ESC, BEL, C1, bidi overrides)", () => {
    assert.isUndefined(plainNameProblem("J5Npf2xJpag"))
    assert.isUndefined(plainNameProblem("視頻 1"))
    assert.strictEqual(plainNameProblem(""), "is empty")
    assert.strictEqual(plainNameProblem("a/b"), "contains a path separator")
    assert.strictEqual(plainNameProblem(".."), "names a directory, not a video")
    assert.strictEqual(plainNameProblem("a\0"), "contains a NUL byte")
    assert.strictEqual(plainNameProblem("q\u001b[31m"), "contains the control character U+001B")
    assert.strictEqual(plainNameProblem("run\u0007"), "contains the control character U+0007")
    assert.strictEqual(plainNameProblem("x\u009b"), "contains the control character U+009B")
    assert.strictEqual(plainNameProblem("x\u202e"), "contains the control character U+202E")
  })
})

// Names as hostile as file systems allow: dot names, option-like names, controls, RTL and format
// marks, separators, scripts mixed, names near and over 255 bytes.
const hostileChar = fc.constantFrom(
  ".",
  "-",
  "_",
  " ",
  "/",
  "\\",
  ":",
  "~",
  "%",
  "\u001b",
  "\u0007",
  "\u0085",
  "\u009b",
  "\u200f",
  "\u202e",
  "\u200d",
  "\u2028",
  "\u00a0",
  "a",
  "Z",
  "7",
  "é",
  "e\u0301",
  "視",
  "頻",
  "ß",
  "İ",
  "ا",
  "ש",
  "ह",
  "्",
  "😀",
  "٣"
)
const name = fc.oneof(
  fc.constantFrom(
    ".",
    "..",
    "...",
    "-x",
    "--",
    "-report",
    "~",
    ".a",
    "a.",
    " a ",
    "\u200fx",
    "ю".repeat(140),
    "a".repeat(255)
  ),
  fc.string({ unit: hostileChar, maxLength: 40 }),
  fc.string({ unit: hostileChar, minLength: 100, maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 60 }).map((text) => text.replaceAll("\0", ""))
)

describe("idFromName properties", () => {
  it("every id is one plain path segment inside --out, at most maxIdBytes long", () => {
    const out = "/srv/trees"
    fc.assert(
      fc.property(name, (raw) => {
        const result = idFromName(raw)
        if ("problem" in result) return
        const id = result.id
        assert.isUndefined(plainNameProblem(id), JSON.stringify(id))
        assert.strictEqual(NodePath.dirname(NodePath.resolve(out, id)), out)
        assert.isAtMost(Buffer.byteLength(id), maxIdBytes)
        assert.isFalse(id.startsWith(".") || id.endsWith("."), id)
        assert.strictEqual(id, id.normalize("NFC"))
      }),
      { numRuns: 2000 }
    )
  })

  it("distinct NFC names never share an id", () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { selector: (raw) => raw.normalize("NFC"), maxLength: 30 }), (names) => {
        const ids = names.flatMap((raw) => {
          const result = idFromName(raw)
          return "id" in result ? [result.id] : []
        })
        assert.strictEqual(new Set(ids).size, ids.length)
      }),
      { numRuns: 500 }
    )
  })
})
