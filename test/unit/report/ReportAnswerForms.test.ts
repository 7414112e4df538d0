// Answers that were not clean (issue 40, item 5): every report counts the forms the submitted answers took,
// the question table shows each one's, and strict scoring counts an invalid answer wrong.
import { assert, describe, it } from "@effect/vitest"
import { summarize } from "../../../src/programs/report/Report.js"
import {
  compareRuns,
  type Comparison,
  renderCompareJson,
  renderCompareText
} from "../../../src/programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../../src/programs/report/ReportCompareHtml.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import { renderJson, renderText } from "../../../src/programs/report/ReportText.js"
import type { ReportInput } from "../../../src/programs/report/Summary.js"
import { prediction } from "../../support/harness/RunRows.js"

const run = { runId: "run-forms", startedAt: 0, finishedAt: 90_000, status: "completed" as const }
const wrong = { prediction: null, correct: false } as const

const input: ReportInput = {
  run,
  predictions: [
    prediction({ questionId: "q1", answerText: "B", answerForm: "clean" }),
    prediction({ questionId: "q2", answerText: "The answer is (B), as the frame shows.", answerForm: "extracted" }),
    prediction({ questionId: "q3", ...wrong, answerText: "E", answerForm: "invalid" }),
    prediction({ questionId: "q4", ...wrong, answerText: "<script>alert(1)</script>", answerForm: "invalid" }),
    prediction({ questionId: "q5", ...wrong, answerText: "", answerForm: "empty" }),
    prediction({
      questionId: "q6",
      ...wrong,
      options: [],
      answer: "Four eggs.",
      answerText: "She fries four eggs.",
      answerForm: "free"
    }),
    // Ended without submitting; and a row saved before forms were kept.
    prediction({ questionId: "q7", ...wrong, stopReason: "budget_exceeded" }),
    prediction({ questionId: "q8" })
  ],
  steps: [],
  calls: []
}

describe("answer forms in reports", () => {
  const summary = summarize(input)

  it("counts every form, without a submission, and on rows saved before forms were kept", () => {
    assert.deepStrictEqual(summary.answerForms, {
      clean: 1,
      extracted: 1,
      invalid: 2,
      empty: 1,
      free: 1,
      none: 1,
      unrecorded: 1
    })
  })

  it("strict scoring: invalid and empty answers are in the denominator and earn nothing; the open one is unscored", () => {
    assert.deepStrictEqual(
      [summary.overall.correct, summary.overall.unanswered, summary.overall.total, summary.overall.unscored],
      [3, 4, 7, 1]
    )
    assert.strictEqual(summary.overall.accuracy, 3 / 7)
  })

  it("text: one line naming every form, invalid ones said to score as unanswered", () => {
    const text = renderText(summary)
    assert.include(
      text,
      "Answers as submitted: clean 1 · extracted 1 · invalid 2 (scored as unanswered) · empty 1 · free 1 · " +
        "none submitted 1 · not recorded 1 (saved before forms were kept)"
    )
  })

  it("json: the counts, and per question the answer whole with its form", () => {
    const json = JSON.parse(renderJson(summary))
    assert.deepStrictEqual(json.answerForms, summary.answerForms)
    const byId = new Map<string, { answerForm: string; answerText: string | null; outcome: string }>(
      json.perQuestion.map((q: { questionId: string }) => [q.questionId, q])
    )
    assert.deepStrictEqual(
      [...byId.values()].map((q) => q.answerForm),
      ["clean", "extracted", "invalid", "invalid", "empty", "free", "none", "unrecorded"]
    )
    assert.deepStrictEqual(
      [byId.get("q6")!.answerText, byId.get("q6")!.outcome],
      ["She fries four eggs.", "unscored"]
    )
    assert.strictEqual(byId.get("q7")!.answerText, null)
  })

  it("html: the counts in the summary, and a form column in the question table, the answer escaped", () => {
    const page = renderHtml(input, summary)
    assert.include(page, `<td id="answer-forms">clean 1 · extracted 1 · invalid 2 (scored as unanswered)`)
    assert.include(page, `title="Sort by answer form">Answer form</th>`)
    assert.include(page, `<td data-v="invalid" title="&lt;script&gt;alert(1)&lt;/script&gt;"><b>invalid</b></td>`)
    assert.include(page, `<td data-v="clean" title="B">clean</td>`)
    assert.notInclude(page, "<script>alert(1)")
  })
})

describe("answer forms in report --compare", () => {
  const b = input.predictions.map((p) =>
    p.questionId === "q3" ? { ...p, prediction: "A", correct: false, answerText: "A", answerForm: "clean" as const } : p
  )
  const c = compareRuns(
    { runId: "a", source: "a.db", predictions: input.predictions },
    { runId: "b", source: "b.db", predictions: b.filter((p) => p.questionId !== "q8") }
  ) as Comparison

  it("counts each run's forms over the shared questions, in text, json and html", () => {
    assert.deepStrictEqual([c.answerForms.a.invalid, c.answerForms.b.invalid, c.answerForms.b.clean], [2, 1, 2])
    assert.strictEqual(c.answerForms.a.unrecorded, 0)
    const text = renderCompareText(c)
    assert.include(text, "Answers as submitted (shared questions)\n  A: clean 1 · extracted 1 · invalid 2")
    assert.include(text, "\n  B: clean 2 · extracted 1 · invalid 1 (scored as unanswered)")
    assert.deepStrictEqual(JSON.parse(renderCompareJson(c)).answerForms.b, c.answerForms.b)
    const empty = { predictions: [], steps: [], calls: [] }
    const page = renderCompareHtml(c, empty, empty)
    assert.include(page, `<table class="kv" id="answer-forms"><tr><td>A</td><td>clean 1 · extracted 1`)
  })
})
