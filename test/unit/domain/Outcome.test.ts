import { assert, describe, it } from "@effect/vitest"
import { accuracyOfOutcomes, outcomeOf } from "../../../src/domain/Outcome.js"
import { outcomeOf as benchmarkOutcomeOf } from "../../../src/programs/benchmarks/Benchmark.js"
import { prediction } from "../../support/harness/RunRows.js"

describe("outcomeOf", () => {
  it("an open-ended question (no options) is unscored whatever its answer and reference say: judges score it", () => {
    const open = prediction({
      questionId: "open-1",
      options: [],
      answer: "Four eggs in a black skillet",
      prediction: null,
      correct: false,
      answerText: "The host fries four eggs.",
      answerForm: "free"
    })
    assert.strictEqual(outcomeOf(open), "unscored")
    assert.strictEqual(outcomeOf(prediction({ ...open, answerText: null, answerForm: null })), "unscored")
    // Even a stored flag can't make free text right or wrong by letter.
    assert.strictEqual(outcomeOf({ ...open, prediction: "A", correct: true }), "unscored")
  })

  it("a multiple-choice question keeps its outcomes", () => {
    assert.strictEqual(outcomeOf(prediction({ questionId: "q" })), "correct")
    assert.strictEqual(outcomeOf(prediction({ questionId: "q", prediction: "C", correct: false })), "wrong")
    assert.strictEqual(outcomeOf(prediction({ questionId: "q", answer: null })), "unscored")
  })

  it("strict scoring: an invalid answer (no option letter read) earns nothing and stays in the denominator", () => {
    const invalid = prediction({
      questionId: "q2",
      prediction: null,
      correct: false,
      answerText: "E",
      answerForm: "invalid"
    })
    const accuracy = accuracyOfOutcomes([outcomeOf(prediction({ questionId: "q1" })), outcomeOf(invalid)])
    assert.strictEqual(outcomeOf(invalid), "unanswered")
    assert.strictEqual(accuracy.total, 2)
    assert.strictEqual(accuracy.accuracy, 0.5)
  })

  it("a benchmark headline leaves an open-ended question unscored too, its reference no letter key", () => {
    const question = {
      benchmark: "custom" as const,
      id: "o1",
      videoId: "v",
      question: "What is cooked?",
      options: [],
      key: "eggs",
      originalKey: "eggs",
      taskType: "",
      categories: [],
      durationSeconds: null,
      durationGroup: null,
      domain: null,
      source: { file: "q.json", location: "index 0" },
      row: {}
    }
    assert.strictEqual(benchmarkOutcomeOf({ question, prediction: null }), "unscored")
    assert.strictEqual(
      benchmarkOutcomeOf({ question: { ...question, options: ["A. x", "B. y"], key: "A" }, prediction: null }),
      "unanswered"
    )
  })
})
