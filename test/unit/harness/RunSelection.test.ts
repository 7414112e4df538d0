import { assert, describe, it } from "@effect/vitest"
import type { Question } from "../../../src/domain/Question.js"
import { completeSelection, selectionDifference } from "../../../src/programs/harness/RunSelection.js"
import type { SelectionInput } from "../../../src/programs/harness/RunSelection.js"

const question = (questionId: string) => ({ questionId }) as Question

const base: SelectionInput = {
  questionsPath: "/q.jsonl",
  questionsSha256: "abc",
  videoIds: null,
  questionIds: null,
  taskTypes: ["OCR Problems"],
  nSamples: 3
}
const stored = completeSelection(base, [question("1"), question("2"), question("3")])

describe("selectionDifference", () => {
  it("is undefined for the same set, and names the first difference otherwise", () => {
    assert.isUndefined(
      selectionDifference(stored, completeSelection(base, [question("1"), question("2"), question("3")]))
    )
    const differs = (change: Partial<SelectionInput>, ids = ["1", "2", "3"]) =>
      selectionDifference(stored, completeSelection({ ...base, ...change }, ids.map(question)))
    assert.strictEqual(
      differs({ questionsPath: "/other.jsonl" }),
      "--questions /other.jsonl differs from the run's /q.jsonl"
    )
    assert.match(differs({ questionsSha256: "def" }) ?? "", /changed since the run started/)
    assert.strictEqual(differs({ videoIds: ["v1"] }), "--video-ids v1 differs from the run's (none)")
    assert.strictEqual(differs({ taskTypes: null }), "--task-types (none) differs from the run's OCR Problems")
    assert.strictEqual(differs({ nSamples: 5 }), "--n-samples 5 differs from the run's 3")
    // Same flags, but the set they select moved (a different vtree's selection rules, say).
    assert.strictEqual(differs({}, ["1", "2", "4"]), "the filters now select 3 questions where the run has 3")
  })
})
