import { assert, describe, it } from "@effect/vitest"
import { renderRepeatsText, repeatsOf } from "../../../src/programs/report/ReportRepeats.js"
import type { ReportPrediction } from "../../../src/programs/report/Summary.js"
import { prediction } from "../../support/harness/RunRows.js"

// Four questions asked three times. The key is B; each run answers:
//        q1  q2  q3  q4
//   R1   B   B   C   —      2/4 right
//   R2   B   B   B   —      3/4 right
//   R3   B   C   C   —      1/4 right (and R3 saved an extra q5 the others did not)
// Same answer in all runs: q1 (B), q4 (unanswered) → 2 of 4.
const runOf = (letters: ReadonlyArray<string | null>, extra = false): ReadonlyArray<ReportPrediction> => [
  ...letters.map((letter, i) =>
    prediction({ questionId: `q${i + 1}`, prediction: letter, correct: letter === "B", videoId: `v${i}` })
  ),
  ...(extra ? [prediction({ questionId: "q5" })] : [])
]

describe("repeatsOf", () => {
  const r = repeatsOf([
    { runId: "R1", source: "a.db", predictions: runOf(["B", "B", "C", null]) },
    { runId: "R2", source: "a.db", predictions: runOf(["B", "B", "B", null]) },
    { runId: "R3", source: "b.db", predictions: runOf(["B", "C", "C", null], true) }
  ])

  it("gives each run's strict accuracy over the questions every run saved, with mean, SD and range", () => {
    assert.strictEqual(r.shared, 4)
    assert.deepStrictEqual(r.runs.map((x) => [x.runId, x.correct, x.keyed, x.saved]), [
      ["R1", 2, 4, 4],
      ["R2", 3, 4, 4],
      ["R3", 1, 4, 5]
    ])
    assert.closeTo(r.mean!, 0.5, 1e-12)
    // Sample SD of 0.5, 0.75, 0.25: √(((0)² + 0.25² + 0.25²) / 2) = 0.25.
    assert.closeTo(r.sd!, 0.25, 1e-12)
    assert.deepStrictEqual([r.min, r.max], [0.25, 0.75])
  })

  it("counts the questions every run answered the same, an unanswered one alike", () => {
    assert.deepStrictEqual([r.agreement.same, r.agreement.questions], [2, 4])
    assert.closeTo(r.agreement.share!, 0.5, 1e-12)
  })

  it("renders the runs and the spread as text", () => {
    const text = renderRepeatsText(r)
    assert.include(text, "3 runs over the 4 questions every run saved")
    assert.match(text, /R2\s+a\.db\s+75\.0%\s+3\/4/)
    assert.include(text, "Mean 50.0% · SD 25.0 pts · min–max 25.0%–75.0%")
    assert.include(text, "Answered the same by every run: 50.0% (2/4)")
  })

  it("has no spread without shared questions", () => {
    const none = repeatsOf([
      { runId: "R1", source: "a.db", predictions: runOf(["B"]) },
      { runId: "R2", source: "a.db", predictions: [prediction({ questionId: "other" })] }
    ])
    assert.deepStrictEqual([none.shared, none.mean, none.sd, none.agreement.share], [0, null, null, null])
  })
})
