import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import {
  indexOfLetter,
  letterAt,
  letterOptions,
  normalizeKey,
  outsideLetter
} from "../../../src/programs/benchmarks/Options.js"

describe("normalizeKey", () => {
  it("reads letters however written and 0-based indices, as numbers or digits", () => {
    assert.deepStrictEqual(
      ["B", "b", " (B) ", "B.", 1, "1", 0, "4"].map((k) => normalizeKey(k, 5)),
      ["B", "B", "B", "B", "B", "B", "A", "E"]
    )
  })

  it("reads no digit where the benchmark writes letters", () => {
    assert.deepStrictEqual(
      ["B", " (b) ", "1", 1, "0", 0].map((k) => normalizeKey(k, 4, "letter")),
      ["B", "B", null, null, null, null]
    )
  })

  it("is null for a key that names none of the options", () => {
    assert.deepStrictEqual(
      ["E", 4, "4", -1, 1.5, "", "AB", "Yellow", null, undefined, true].map((k) => normalizeKey(k, 4)),
      [null, null, null, null, null, null, null, null, null, null, null]
    )
  })

  it("round-trips every option's letter and index", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10 }).chain((n) => fc.tuple(fc.constant(n), fc.nat({ max: n - 1 }))),
        ([n, i]) => {
          assert.strictEqual(normalizeKey(i, n), letterAt(i))
          assert.strictEqual(normalizeKey(letterAt(i).toLowerCase(), n), letterAt(i))
          assert.strictEqual(indexOfLetter(letterAt(i)), i)
          assert.isNull(normalizeKey(outsideLetter(n), n))
        }
      )
    )
  })
})

describe("letterOptions", () => {
  it("letters 2 to 10 options and refuses other counts and blank options", () => {
    assert.deepStrictEqual(
      letterOptions([" x ", "y"], "f", "index 0", "candidates", "fix"),
      Either.right(["A. x", "B. y"])
    )
    assert.strictEqual(
      Either.getOrThrowWith(Either.flip(letterOptions(["x"], "f", "index 0", "candidates", "fix")), () => "").message,
      "f: index 0: candidates: expected 2 to 10 options, got 1 — fix"
    )
    assert.isTrue(
      Either.isLeft(letterOptions(Array.from({ length: 11 }, (_, i) => `o${i}`), "f", "index 0", "candidates", "fix"))
    )
    assert.strictEqual(
      Either.getOrThrowWith(Either.flip(letterOptions(["x", " "], "f", "index 0", "candidates", "fix")), () => "")
        .message,
      "f: index 0: candidates[1]: is empty — give every option its text"
    )
  })
})
