import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { answerFormOf, normalizeAnswer, optionLetters } from "../../../src/domain/Answer.js"
import { answerForms } from "../../../src/domain/AnswerForm.js"

describe("answerFormOf", () => {
  // [reply, option count, form]
  const cases: ReadonlyArray<readonly [string, number, string]> = [
    // a bare letter, wrapped at most in punctuation or JSON
    ["B", 4, "clean"],
    ["b", 4, "clean"],
    ["(B)", 4, "clean"],
    ["B.", 4, "clean"],
    ["**C**", 4, "clean"],
    ["  \"D\"  ", 4, "clean"],
    ["{\"answer\": \"B\"}", 4, "clean"],
    ["```json\n{\"final_answer\": \"c\"}\n```", 4, "clean"],
    // a letter read out of longer text
    ["The best answer is C.", 4, "extracted"],
    ["D. The host covers the skillet.", 4, "extracted"],
    ["(B) because the eggs are raw", 4, "extracted"],
    ["{\"answer\": \"The answer is B\"}", 4, "extracted"],
    ["答案是B", 4, "extracted"],
    ["A man walks into the kitchen.", 4, "extracted"],
    // a letter outside the options, or nothing readable
    ["E", 4, "invalid"],
    ["(E)", 4, "invalid"],
    ["{\"answer\": \"Z\"}", 4, "invalid"],
    ["The best answer is E.", 4, "invalid"],
    ["none of them", 4, "invalid"],
    ["OCR shows BREAD", 4, "invalid"],
    ["{\"answer\": \"none\"}", 4, "invalid"],
    ["\u0000\u202e", 4, "invalid"],
    // submitted blank
    ["", 4, "empty"],
    [" \n\t ", 4, "empty"],
    ["{\"answer\": \"  \"}", 4, "empty"],
    // an open-ended question: free text, never a letter
    ["B", 0, "free"],
    ["The host fries four eggs, then salts them.", 0, "free"],
    ["   ", 0, "empty"]
  ]

  for (const [reply, count, form] of cases) {
    it(`${JSON.stringify(reply)} with ${count} options is ${form}`, () => {
      assert.strictEqual(answerFormOf(reply, count), form)
    })
  }

  it("reads a letter exactly when normalizeAnswer does, and never throws, whatever the reply", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "grapheme-composite", maxLength: 200 }),
          fc.constantFrom("(X)", "X.", "{\"answer\": \"X\"}", "The answer is X", "X because").chain((t) =>
            fc.constantFrom(...optionLetters(26)).map((letter) => t.replace("X", letter))
          )
        ),
        fc.integer({ min: -2, max: 30 }),
        (reply, n) => {
          const form = answerFormOf(reply, n)
          const letter = normalizeAnswer(reply, n)
          if (!answerForms.includes(form)) return false
          if (optionLetters(n).length === 0) return letter === null && (form === "free" || form === "empty")
          return (letter !== null) === (form === "clean" || form === "extracted")
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("a long hostile reply is classified without blowing up", () => {
    const reply = "The answer is ".repeat(20_000) + "(B)"
    assert.strictEqual(answerFormOf(reply, 4), "extracted")
    assert.strictEqual(answerFormOf("{".repeat(5_000), 4), "invalid")
  })
})
