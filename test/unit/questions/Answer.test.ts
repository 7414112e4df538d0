import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { normalizeAnswer, optionLetters } from "../../../src/domain/Answer.js"

describe("normalizeAnswer", () => {
  // [reply, option count, expected letter]
  const cases: ReadonlyArray<readonly [string, number, string | null]> = [
    ["The best answer is C.", 4, "C"],
    ["The correct answer is B", 4, "B"],
    ["The answer is (D)", 4, "D"],
    ["Best answer: A", 4, "A"],
    ["Answer: D) Four", 4, "D"],
    ["Option B", 4, "B"],
    ["(B)", 4, "B"],
    ["C", 4, "C"],
    ["**A**", 4, "A"],
    ["\"C\"", 4, "C"],
    ["D. The host covers the skillet.", 4, "D"],
    // lower case: taken only as the whole reply or right after an answer prefix
    ["b", 4, "B"],
    ["(c).", 4, "C"],
    ["Answer: b", 4, "B"],
    ["a man cooks eggs", 4, null],
    // "A" and "I" as English words give way to a real option letter
    ["A man walks into the kitchen, so C", 4, "C"],
    ["A man walks into the kitchen.", 4, "A"],
    ["I think A", 4, "A"],
    ["I think A", 10, "A"],
    ["I", 10, "I"],
    ["I think so", 4, null],
    // a stated choice beats earlier letters
    ["A woman cooks in a pan. The answer is C.", 4, "C"],
    ["The answer is A because the eggs in B are raw", 4, "A"],
    // nothing usable
    ["none of them", 4, null],
    ["", 4, null],
    ["   ", 4, null],
    ["E", 4, null],
    ["The best answer is E.", 4, null],
    ["The answer is E, or maybe B", 4, "B"],
    // JSON-ish replies
    ["{\"answer\": \"B\"}", 4, "B"],
    ["```json\n{\"final_answer\": \"c\"}\n```", 4, "C"],
    ["{\"answer\": \"none\"}", 4, null],
    // Chinese replies (the zh prompt pack)
    ["答案是B", 4, "B"],
    ["最佳答案是：C", 4, "C"],
    // word-internal capitals are not standalone letters
    ["OCR shows BREAD", 4, null],
    ["\\boxed{D}", 4, "D"]
  ]

  for (const [reply, count, expected] of cases) {
    it(`${JSON.stringify(reply)} with ${count} options → ${expected}`, () => {
      assert.strictEqual(normalizeAnswer(reply, count), expected)
    })
  }

  it("returns null when there are no options", () => {
    assert.strictEqual(normalizeAnswer("A", 0), null)
    assert.strictEqual(normalizeAnswer("A", Number.NaN), null)
  })

  it("is null or one of the option letters for any reply, and never throws", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme-composite", maxLength: 200 }),
        fc.integer({ min: -2, max: 30 }),
        (reply, n) => {
          const result = normalizeAnswer(reply, n)
          return result === null || optionLetters(n).includes(result)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("finds the letter a template reply names, for every option count", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 26 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }))),
        fc.constantFrom("The best answer is X.", "(X)", "Answer: X", "X", "Option X", "答案是X", "{\"answer\": \"X\"}"),
        ([n, i], template) => {
          const letter = optionLetters(n)[i]!
          return normalizeAnswer(template.replace("X", letter), n) === letter
        }
      )
    )
  })
})

describe("optionLetters", () => {
  it("labels A.. up to the count, clamped to 26", () => {
    assert.deepStrictEqual(optionLetters(4), ["A", "B", "C", "D"])
    assert.strictEqual(optionLetters(40).length, 26)
    assert.deepStrictEqual(optionLetters(-1), [])
  })
})
