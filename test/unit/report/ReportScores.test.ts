// The strict and the official score side by side in every report (text, json, html) and in `report --compare`.
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { StoredRunConfig } from "../../../src/domain/RunConfig.js"
import type { PredictionRow } from "../../../src/domain/RunRecord.js"
import { summarize } from "../../../src/programs/report/Report.js"
import {
  compareRuns,
  NoSharedQuestions,
  renderCompareJson,
  renderCompareText
} from "../../../src/programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../../src/programs/report/ReportCompareHtml.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import { renderJson, renderText } from "../../../src/programs/report/ReportText.js"
import type { ReportInput } from "../../../src/programs/report/Summary.js"
import { prediction } from "../../support/harness/RunRows.js"

const stored = Schema.decodeUnknownSync(StoredRunConfig)

// Video-MME, 6 keyed questions: q1 q2 right, q3 wrong, q4 unparsable (submitted, no letter), q5 unanswered,
// q6 errored. Strict: 2/6 = 33.3 %. Official (answered only: q1 q2 q3): 2/3 = 66.7 %.
const rows: ReadonlyArray<PredictionRow> = [
  prediction({ questionId: "q1" }),
  prediction({ questionId: "q2", forced: true, stopReason: "budget_exceeded" }),
  prediction({ questionId: "q3", prediction: "C", correct: false }),
  prediction({ questionId: "q4", prediction: null, correct: false, stopReason: "finished" }),
  prediction({ questionId: "q5", prediction: null, correct: false, stopReason: "budget_exceeded" }),
  prediction({ questionId: "q6", prediction: null, correct: false, stopReason: "error", error: "gave up" })
]

const input: ReportInput = {
  run: {
    runId: "run-s",
    startedAt: 0,
    finishedAt: 10_000,
    status: "completed",
    config: stored({ benchmark: "videomme" })
  },
  predictions: rows,
  steps: [],
  calls: []
}

describe("scores in the run report", () => {
  const summary = summarize(input)

  it("the summary holds the strict accuracy and the benchmark's official score with its counts", () => {
    assert.deepStrictEqual(summary.scores.strict, summary.overall)
    assert.strictEqual(summary.scores.strict.correct, 2)
    assert.strictEqual(summary.scores.strict.total, 6)
    assert.strictEqual(summary.scores.official.name, "Video-MME official (answered only)")
    assert.closeTo(summary.scores.official.value!, 2 / 3, 1e-12)
    assert.strictEqual(summary.scores.official.denominator, 3)
    assert.deepStrictEqual(summary.scores.official.counts, { unanswered: 1, unparsable: 1, forced: 1, error: 1 })
  })

  it("text shows both, labelled, with the counts that make them differ and the scorer followed", () => {
    const text = renderText(summary)
    assert.match(text, /^strict\s+33\.3%\s+\S+–\S+\s+6$/m)
    assert.match(text, /^Video-MME official \(answered only\)\s+66\.7%\s+—\s+3$/m)
    assert.include(text, "unanswered 1 · unparsable 1 · forced 1 · error 1")
    assert.include(text, "BradyFU/Video-MME evaluation/eval_your_results.py")
  })

  it("json carries both under scores", () => {
    const json = JSON.parse(renderJson(summary)) as {
      scores: { strict: { accuracy: number }; official: { value: number; scorer: string } }
    }
    assert.closeTo(json.scores.strict.accuracy, 2 / 6, 1e-12)
    assert.closeTo(json.scores.official.value, 2 / 3, 1e-12)
    assert.strictEqual(json.scores.official.scorer, "BradyFU/Video-MME evaluation/eval_your_results.py")
  })

  it("html shows both in one table, with the counts and the rule", () => {
    const page = renderHtml(input, summary)
    const section = page.slice(page.indexOf(`<h2 id="scores">`), page.indexOf("</p>", page.indexOf(`<h2 id="scores">`)))
    assert.include(section, "<td>strict</td><td>33.3%</td>")
    assert.include(section, "<td>Video-MME official (answered only)</td><td>66.7%</td>")
    assert.include(section, "unanswered 1 · unparsable 1 · forced 1 · error 1")
  })
})

describe("scores in report --compare", () => {
  // B answers q4 and q5 (right) where A did not: strict A 2/6, B 4/6; official A 2/3, B 4/5.
  const b = rows.map((p) =>
    p.questionId === "q4" || p.questionId === "q5"
      ? { ...p, prediction: "B", correct: true, stopReason: "finished" as const }
      : p
  )
  const c = compareRuns(
    { runId: "A", source: "a.db", predictions: rows },
    { runId: "B", source: "b.db", predictions: b }
  )
  if (c instanceof NoSharedQuestions) throw new Error("expected shared questions")

  it("gives both runs' strict and official scores over the shared questions", () => {
    assert.deepStrictEqual([c.scores.a.strict.correct, c.scores.b.strict.correct], [2, 4])
    assert.closeTo(c.scores.a.official.value!, 2 / 3, 1e-12)
    assert.closeTo(c.scores.b.official.value!, 4 / 5, 1e-12)
    assert.deepStrictEqual(c.scores.b.official.counts, { unanswered: 0, unparsable: 0, forced: 1, error: 1 })
  })

  it("text, json and html show them side by side", () => {
    const text = renderCompareText(c)
    assert.match(text, /^A\s+33\.3%\s+\S+–\S+\s+66\.7%\s+3\s+1\s+1\s+1\s+1\s+Video-MME official \(answered only\)$/m)
    assert.match(text, /^B\s+66\.7%\s+\S+–\S+\s+80\.0%\s+5\s+0\s+0\s+1\s+1\s+Video-MME official \(answered only\)$/m)
    const json = JSON.parse(renderCompareJson(c)) as { scores: { b: { official: { value: number } } } }
    assert.closeTo(json.scores.b.official.value, 4 / 5, 1e-12)
    const page = renderCompareHtml(c, { predictions: rows, steps: [], calls: [] }, {
      predictions: b,
      steps: [],
      calls: []
    })
    assert.include(page, `<h2 id="scores">`)
    assert.include(page, "<td>B</td><td>66.7%</td>")
    assert.include(page, "<td>80.0%</td>")
  })
})
