import { assert, describe, it } from "@effect/vitest"
import type { JudgementRow, Verdict } from "../../../src/domain/Judgement.js"
import { majorityOf } from "../../../src/domain/Judgement.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { judgedOutcomes, judgesHtml, judgeSummary } from "../../../src/programs/report/ReportJudges.js"
import { renderText } from "../../../src/programs/report/ReportText.js"
import { prediction } from "../../support/harness/RunRows.js"

const open = (questionId: string, answerText: string | null, reference: string | null = "ref") =>
  prediction({ questionId, options: [], answer: reference, prediction: null, answerText, correct: false })

const verdict = (questionId: string, judgeModel: string, v: Verdict | null): JudgementRow => ({
  questionId,
  judgeModel,
  verdict: v,
  reason: "",
  promptTokens: 10,
  completionTokens: 2,
  costUsd: 0.001,
  cacheKey: `${questionId}/${judgeModel}`,
  cached: false,
  judgedAt: 3_000
})

describe("majorityOf", () => {
  it("takes the side with more votes, states an even split as a tie, and lets failed judges abstain", () => {
    assert.strictEqual(majorityOf(["correct", "correct", "incorrect"]), "correct")
    assert.strictEqual(majorityOf(["incorrect", null, "incorrect", "correct"]), "incorrect")
    assert.strictEqual(majorityOf(["correct", "incorrect"]), "tie")
    assert.strictEqual(majorityOf(["correct", "incorrect", null]), "tie")
    assert.strictEqual(majorityOf([null, null]), "none")
    assert.strictEqual(majorityOf([]), "none")
  })
})

describe("judgedOutcomes", () => {
  const predictions = [
    open("q1", "Paris"),
    open("q2", "blue"),
    open("q3", "the chef"),
    open("q4", "anything"),
    open("q5", null),
    open("q6", "free", null),
    prediction({ questionId: "mc" })
  ]
  const verdicts = [
    verdict("q1", "a", "correct"),
    verdict("q1", "b", "correct"),
    verdict("q1", "c", "incorrect"),
    verdict("q2", "a", "incorrect"),
    verdict("q2", "b", "incorrect"),
    verdict("q3", "a", "correct"),
    verdict("q3", "b", "incorrect"),
    verdict("q4", "a", null)
  ]

  it("scores open-ended questions by majority: a tie, a failed or an absent judge is unscored, never wrong", () => {
    assert.deepStrictEqual(
      [...judgedOutcomes(predictions, verdicts)],
      [["q1", "correct"], ["q2", "wrong"], ["q3", "unscored"], ["q4", "unscored"], ["q5", "wrong"], ["q6", "unscored"]]
    )
  })

  it("leaves out a verdict given before the question was saved again: it judged another answer", () => {
    const asked = [open("q1", "Rome"), open("q2", "red")].map((p, i) => ({
      ...p,
      finishedAt: i === 0 ? 10_000 : 2_000
    }))
    const judged = [{ ...verdict("q1", "a", "correct"), judgedAt: 5_000 }, {
      ...verdict("q2", "a", "correct"),
      judgedAt: 5_000
    }]
    assert.deepStrictEqual([...judgedOutcomes(asked, judged)], [["q1", "unscored"], ["q2", "correct"]])
    assert.deepStrictEqual(judgeSummary(asked, judged)!.judges.map((j) => [j.correct, j.unscored]), [[1, 1]])
  })

  it("scores by one judge when given that judge's verdicts alone", () => {
    const outcomes = judgedOutcomes(predictions, verdicts.filter((v) => v.judgeModel === "b"))
    assert.deepStrictEqual([outcomes.get("q1"), outcomes.get("q3"), outcomes.get("q4")], [
      "correct",
      "wrong",
      "unscored"
    ])
  })
})

describe("judgeSummary", () => {
  it("gives accuracy per judge and by majority, the ties, pairwise agreement and Fleiss' kappa", () => {
    const predictions = [open("q1", "x"), open("q2", "y"), open("q3", "z")]
    const rows = [
      verdict("q1", "a", "correct"),
      verdict("q1", "b", "correct"),
      verdict("q2", "a", "incorrect"),
      verdict("q2", "b", "correct"),
      verdict("q3", "a", "correct"),
      verdict("q3", "b", null)
    ]
    const summary = judgeSummary(predictions, rows)!
    assert.deepStrictEqual(
      summary.judges.map((j) => [j.judge, j.correct, j.wrong, j.unscored, j.failed, j.accuracy]),
      [["a", 2, 1, 0, 0, 2 / 3], ["b", 2, 0, 1, 1, 1]]
    )
    assert.closeTo(summary.judges[0]!.costUsd!, 0.003, 1e-12)
    assert.deepStrictEqual([summary.majority.correct, summary.majority.wrong, summary.majority.unscored], [2, 0, 1])
    assert.strictEqual(summary.ties, 1)
    assert.deepStrictEqual(summary.agreement.pairs, [{ a: "a", b: "b", agree: 1, compared: 2, share: 0.5 }])
    // Over q1 and q2, both judged by both: counts [[2, 0], [1, 1]] → P̄ = 1/2, P̄e = 9/16 + 1/16, κ = −1/3.
    assert.strictEqual(summary.agreement.items, 2)
    assert.closeTo(summary.agreement.fleissKappa!, -1 / 3, 1e-12)
  })

  it("is null for a run with nothing open-ended, and says a run not judged yet is unscored", () => {
    assert.isNull(judgeSummary([prediction({ questionId: "mc" })], []))
    const unjudged = summarize({
      run: { runId: "r", startedAt: 0, finishedAt: 1, status: "completed" },
      predictions: [open("q1", "x")],
      calls: []
    })
    assert.strictEqual(unjudged.judges?.majority.unscored, 1)
    assert.include(renderText(unjudged), "Open-ended answers judged (1 question): not judged yet, all unscored")
    assert.include(judgesHtml(unjudged.judges), "Not judged yet")
  })

  it("shows in the text and html reports, data escaped", () => {
    const summary = summarize({
      run: { runId: "r", startedAt: 0, finishedAt: 1, status: "completed" },
      predictions: [open("q1", "x"), open("q2", "y")],
      calls: [],
      judgements: [verdict("q1", "<judge>", "correct"), verdict("q2", "<judge>", "incorrect")]
    })
    const text = renderText(summary)
    assert.include(text, "Open-ended answers judged (2 questions)")
    assert.match(text, /majority\s+1\s+1\s+0/)
    assert.include(text, "Ties (judges split evenly; unscored) 0")
    const html = judgesHtml(summary.judges)
    assert.include(html, "&lt;judge&gt;")
    assert.notInclude(html, "<judge>")
  })
})
