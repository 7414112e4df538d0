import { assert, describe, it } from "@effect/vitest"
import {
  compareRuns,
  NoSharedQuestions,
  renderCompareJson,
  renderCompareText
} from "../../../src/programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../../src/programs/report/ReportCompareHtml.js"
import type { ReportPrediction } from "../../../src/programs/report/Summary.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"

// 12 shared questions: both right on 4, both wrong on 1, A only right on 1 (q5), B only right on 6
// (q6–q10 wrong in A, q11 unanswered in A). Exact McNemar on 1 vs 6: 2 · (1 + 7) / 128 = 0.125.
const outcomes = (rightIds: ReadonlyArray<number>, unanswered: ReadonlyArray<number> = []) =>
  Array.from({ length: 12 }, (_, i): ReportPrediction => {
    const id = i + 1
    const right = rightIds.includes(id)
    return prediction({
      questionId: `q${String(id).padStart(2, "0")}`,
      taskType: id <= 6 ? "Counting Problem" : "OCR Problems",
      duration: id % 2 === 0 ? "short" : "long",
      prediction: unanswered.includes(id) ? null : right ? "B" : "C",
      correct: right,
      stepsUsed: right ? 2 : 4,
      promptTokens: 100,
      completionTokens: 10,
      startedAt: 0,
      finishedAt: 1_000
    })
  })

const a = outcomes([1, 2, 3, 4, 5], [11])
const b = [...outcomes([1, 2, 3, 4, 6, 7, 8, 9, 10, 11]), prediction({ questionId: "only-in-b" })]

describe("compareRuns", () => {
  const c = compareRuns(
    { runId: "A", source: "a.db", predictions: a, costOf: () => 0.01 },
    { runId: "B", source: "b.db", predictions: b }
  )
  if (c instanceof NoSharedQuestions) throw new Error("expected shared questions")

  it("pairs over shared questions only and counts each side's accuracy with its interval", () => {
    assert.deepStrictEqual([c.shared, c.a.questions, c.b.questions], [12, 12, 13])
    assert.deepStrictEqual([c.overall.a.correct, c.overall.a.unanswered, c.overall.b.correct], [5, 1, 10])
    assert.closeTo(c.overall.delta!, 5 / 12, 1e-12)
    assert.deepStrictEqual(c.byTaskType.map((r) => [r.key, r.a.correct, r.b.correct, r.a.total]), [
      ["Counting Problem", 5, 5, 6],
      ["OCR Problems", 0, 5, 6]
    ])
    assert.deepStrictEqual(c.byDuration.map((r) => r.key), ["short", "long"])
  })

  it("lists the flips both ways and states the exact McNemar test plainly", () => {
    assert.deepStrictEqual(c.broken.map((f) => f.questionId), ["q05"])
    assert.deepStrictEqual(c.fixed.map((f) => f.questionId), ["q06", "q07", "q08", "q09", "q10", "q11"])
    assert.deepStrictEqual(c.fixed.at(-1), {
      questionId: "q11",
      videoId: "vid1",
      taskType: "OCR Problems",
      answer: "B",
      predictionA: null,
      predictionB: "B"
    })
    assert.deepStrictEqual([c.mcnemar.onlyA, c.mcnemar.onlyB], [1, 6])
    assert.closeTo(c.mcnemar.p, 0.125, 1e-12)
    assert.strictEqual(
      c.mcnemar.verdict,
      "difference not significant at 5 % (exact McNemar p = 0.125 on 7 discordant pairs)"
    )
  })

  it("gives usage deltas, and cost as unknown when one side has no prices", () => {
    const usage = Object.fromEntries(c.usage.map((u) => [u.metric, [u.a, u.b, u.delta]]))
    assert.deepStrictEqual(usage["prompt tokens"], [1_200, 1_200, 0])
    assert.closeTo(usage["cost (USD)"]![0]!, 0.12, 1e-12)
    assert.deepStrictEqual(usage["cost (USD)"]!.slice(1), [null, null])
    const [stepsA, stepsB, stepsDelta] = usage["mean steps"]!
    assert.closeTo(stepsA!, 38 / 12, 1e-12)
    assert.closeTo(stepsB!, 28 / 12, 1e-12)
    assert.closeTo(stepsDelta!, -10 / 12, 1e-12)
  })

  it("renders text, json and an html page linking each flip to both trajectories", () => {
    const text = renderCompareText(c)
    assert.include(
      text,
      "Paired over 12 shared questions: A 41.7% [19.3–68.0], B 83.3% [55.2–95.3] (95% CI), B − A +41.7 pts"
    )
    assert.include(text, "Difference not significant at 5 %")
    assert.include(text, "  q11 (OCR Problems): A unanswered → B B, answer B")
    assert.match(text, /cost \(USD\)\s+\$0\.1200\s+unknown\s+unknown/)
    assert.deepStrictEqual(JSON.parse(renderCompareJson(c)).mcnemar.onlyB, 6)
    const page = renderCompareHtml(c, {
      predictions: a,
      steps: [{ questionId: "q05", ...step(1) }],
      calls: [call({ questionId: "q05" })]
    }, {
      predictions: b,
      steps: [],
      calls: []
    })
    // q05 is the fifth row of both runs: index 4.
    assert.include(page, `<td><a href="#a4">A</a> · <a href="#b4">B</a></td>`)
    assert.include(page, `<details class="q" id="a4">`)
    assert.include(page, `<details class="q" id="b10">`)
    // 7 flips, each with a trajectory per side; no unflipped question is included.
    assert.strictEqual((page.match(/<details class="q"/g) ?? []).length, 14)
    assert.match(page, /<svg [^>]*aria-label="Accuracy per task type"/)
    // Two error bars per bucket: overall (1) + task types (2) + durations (2).
    assert.strictEqual((page.match(/class="err"/g) ?? []).length, 10)
  })

  it("runs of a file without task types: flip lines without empty parentheses, one 'none' line for the axis", () => {
    const bare = (ps: ReadonlyArray<ReportPrediction>) => ps.map((p) => ({ ...p, taskType: "", duration: null }))
    const plain = compareRuns(
      { runId: "A", source: "a.db", predictions: bare(a) },
      { runId: "B", source: "b.db", predictions: bare(b) }
    )
    if (plain instanceof NoSharedQuestions) throw new Error("expected shared questions")
    const text = renderCompareText(plain)
    assert.include(text, "\n  q11: A unanswered → B B, answer B\n")
    assert.notInclude(text, "()")
    assert.include(text, "\nTask type: none (no question has one)\n")
    assert.include(text, "\nDuration: none (no question has one)\n")
    assert.notMatch(text, /^Task type +n/m)
    const page = renderCompareHtml(plain, { predictions: bare(a), steps: [], calls: [] }, {
      predictions: bare(b),
      steps: [],
      calls: []
    })
    assert.notInclude(page, "Accuracy per task type")
    assert.notInclude(page, "Accuracy per duration")
  })

  it("refuses runs that share no question", () => {
    const none = compareRuns({ runId: "A", source: "x", predictions: a }, {
      runId: "C",
      source: "y",
      predictions: [prediction({ questionId: "z" })]
    })
    assert.instanceOf(none, NoSharedQuestions)
  })

  it("calls a small p significant, and names the better run", () => {
    const right = outcomes([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    const wrong = outcomes([])
    const c2 = compareRuns({ runId: "A", source: "x", predictions: wrong }, {
      runId: "B",
      source: "x",
      predictions: right
    })
    if (c2 instanceof NoSharedQuestions) throw new Error("expected shared questions")
    assert.strictEqual(
      c2.mcnemar.verdict,
      "difference significant at 5 % (exact McNemar p = 4.9e-4 on 12 discordant pairs): B is better"
    )
  })
})
