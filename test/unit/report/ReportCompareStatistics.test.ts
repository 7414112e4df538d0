import { assert, describe, it } from "@effect/vitest"
import {
  compareRuns,
  type Comparison,
  NoSharedQuestions,
  renderCompareJson,
  renderCompareText
} from "../../../src/programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../../src/programs/report/ReportCompareHtml.js"
import type { ReportPrediction } from "../../../src/programs/report/Summary.js"
import { call, prediction } from "../../support/harness/RunRows.js"

// Twelve videos of two questions: B right on both questions of videos 0–7, A on those of videos 0–3;
// B − A = (16 − 8) / 24 = 1/3. A takes 4 steps and 4 s a question, B 2 steps and 6 s.
const side = (rightVideos: number, steps: number, seconds: number) =>
  Array.from({ length: 24 }, (_, i): ReportPrediction => {
    const video = Math.floor(i / 2)
    const right = video < rightVideos
    return prediction({
      questionId: `q${String(i).padStart(2, "0")}`,
      videoId: `v${video}`,
      taskType: video % 2 === 0 ? "Counting Problem" : "OCR Problems",
      duration: video < 6 ? "short" : "long",
      prediction: right ? "B" : "C",
      correct: right,
      stepsUsed: steps,
      startedAt: 0,
      finishedAt: seconds * 1_000
    })
  })
const a = side(4, 4, 4)
const b = side(8, 2, 6)
const callsOf = (rows: ReadonlyArray<ReportPrediction>, vlmPerQuestion: number) =>
  rows.flatMap((p) =>
    Array.from({ length: vlmPerQuestion }, () => ({ ...call({ questionId: p.questionId, role: "vlm" }), callId: 0 }))
  )

const compare = (seed: number): Comparison => {
  const c = compareRuns(
    { runId: "A", source: "a.db", predictions: a, costOf: () => 0.02, calls: callsOf(a, 3) },
    { runId: "B", source: "b.db", predictions: b, costOf: () => 0.01, calls: callsOf(b, 1) },
    { bootstrap: { resamples: 500, seed } }
  )
  if (c instanceof NoSharedQuestions) throw new Error("expected shared questions")
  return c
}

describe("compare: paired bootstrap over videos", () => {
  const c = compare(3)

  it("resamples videos, stating the resamples and seed, and finds B better", () => {
    const overall = c.bootstrap.overall!
    assert.closeTo(overall.difference, 1 / 3, 1e-12)
    assert.deepStrictEqual([c.bootstrap.resamples, c.bootstrap.seed, overall.clusters], [500, 3, 12])
    assert.isTrue(overall.interval.low > 0 && overall.interval.high > 1 / 3)
    assert.isTrue(overall.p < 0.05)
  })

  it("is reproducible by seed", () => {
    assert.deepStrictEqual(compare(3).bootstrap, c.bootstrap)
    // Twelve videos give few distinct differences, so another seed may land on the same percentiles: its p moves.
    const others = [4, 5, 6].map((seed) => compare(seed).bootstrap.overall!)
    const { seed: _, ...first } = c.bootstrap.overall!
    assert.isTrue(others.some(({ seed: _, ...other }) => JSON.stringify(other) !== JSON.stringify(first)))
  })

  it("gives each category of the comparison's axes its own difference and interval", () => {
    const byType = c.bootstrap.axes.find((x) => x.axis === "task type")!
    // Counting: even videos 0–10; A right on 0, 2; B on 0, 2, 4, 6: (8 − 4) / 12.
    assert.deepStrictEqual(byType.groups.map((g) => g.key), ["Counting Problem", "OCR Problems"])
    assert.closeTo(byType.groups[0]!.bootstrap!.difference, 4 / 12, 1e-12)
    const byDuration = c.bootstrap.axes.find((x) => x.axis === "duration")!
    // Short: videos 0–5, A right on 0–3, B on 0–5: (12 − 8) / 12.
    assert.deepStrictEqual(byDuration.groups.map((g) => [g.key, g.bootstrap!.clusters]), [["short", 6], ["long", 6]])
    assert.closeTo(byDuration.groups[0]!.bootstrap!.difference, 4 / 12, 1e-12)
  })

  it("defaults to 2,000 resamples and seed 1", () => {
    const d = compareRuns({ runId: "A", source: "a.db", predictions: a }, {
      runId: "B",
      source: "b.db",
      predictions: b
    })
    if (d instanceof NoSharedQuestions) throw new Error("expected shared questions")
    assert.deepStrictEqual([d.bootstrap.resamples, d.bootstrap.seed], [2000, 1])
  })
})

describe("compare: cost per question side by side", () => {
  const c = compare(1)
  const of = (metric: string) => c.cost.metrics.find((m) => m.metric === metric)!

  it("puts both distributions over the shared questions and the paired difference per question", () => {
    assert.strictEqual(c.cost.questions, 24)
    assert.deepStrictEqual([of("steps").a.p50, of("steps").b.p50, of("steps").meanDifference], [4, 2, -2])
    assert.deepStrictEqual([of("vlmCalls").a.max, of("vlmCalls").b.max, of("vlmCalls").medianDifference], [3, 1, -2])
    assert.deepStrictEqual([of("timeMs").meanDifference, of("timeMs").pairs], [2_000, 24])
    assert.closeTo(of("costUsd").meanDifference!, -0.01, 1e-12)
  })

  it("shows the bootstrap, the categories and the cost in text, json and html", () => {
    const text = renderCompareText(c)
    assert.match(
      text,
      /Paired bootstrap over videos \(500 resamples, seed 1\): 12 videos, B − A \+33\.3 pts, 95% CI \[\+/
    )
    assert.include(text, "B − A per category, paired bootstrap over videos (500 resamples, seed 1)")
    assert.match(text, /task type\s+Counting Problem\s+6\s+\+33\.3 pts/)
    assert.match(text, /agent steps\s+4 \/ 4 \/ 4\s+2 \/ 2 \/ 2\s+−2\.0\s+−2\.0/)
    assert.match(text, /USD\s+\$0\.0200 \/ \$0\.0200 \/ \$0\.0200\s+\$0\.0100 \/ \$0\.0100 \/ \$0\.0100\s+−\$0\.0100/)
    const json = JSON.parse(renderCompareJson(c))
    assert.deepStrictEqual([json.bootstrap.resamples, json.cost.metrics.length], [500, 11])
    const page = renderCompareHtml(c, { predictions: a, steps: [], calls: [] }, {
      predictions: b,
      steps: [],
      calls: []
    })
    assert.include(page, "Paired bootstrap over videos (500 resamples, seed 1)")
    assert.include(page, "B − A per category")
  })
})
