import { assert, describe, it } from "@effect/vitest"
import { wilsonInterval } from "../../../src/domain/Stats.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import { renderJson, renderText } from "../../../src/programs/report/ReportText.js"
import type { ReportInput } from "../../../src/programs/report/Summary.js"
import { prediction } from "../../support/harness/RunRows.js"

// Ten videos of three questions, five wholly right and five wholly wrong (Stats.test.ts computes the SE by
// hand: 1/6, design effect √(10/3)), plus one unscored question that must not count.
const rows = [
  ...Array.from({ length: 30 }, (_, i) => {
    const video = Math.floor(i / 3)
    const right = video < 5
    return prediction({
      questionId: `q${String(i).padStart(2, "0")}`,
      videoId: `v${video}`,
      taskType: i % 2 === 0 ? "Counting Problem" : "OCR Problems",
      prediction: right ? "B" : "C",
      correct: right
    })
  }),
  prediction({ questionId: "q99", videoId: "v99", answer: null, prediction: "A", correct: false })
]
const input: ReportInput = {
  run: { runId: "run-c", startedAt: 0, finishedAt: 60_000, status: "completed" },
  predictions: rows,
  steps: [],
  calls: []
}

describe("clustered interval in the summary", () => {
  const summary = summarize(input)

  it("clusters the overall accuracy by video: wider than Wilson, with the design effect", () => {
    const c = summary.clustered
    assert.strictEqual(c.videos, 10)
    assert.closeTo(c.se!, 1 / 6, 1e-9)
    assert.closeTo(c.plainSe!, Math.sqrt(0.25 / 30), 1e-9)
    assert.closeTo(c.designEffect!, Math.sqrt(10 / 3), 1e-9)
    const wilson = wilsonInterval(15, 30)!
    assert.deepStrictEqual(summary.overall.interval, wilson)
    assert.isTrue(c.interval!.low < wilson.low && c.interval!.high > wilson.high)
  })

  it("clusters each task type and duration too", () => {
    const byType = summary.clustered.groups.find((g) => g.axis === "task type")!
    assert.deepStrictEqual(byType.groups.map((g) => [g.key, g.videos]), [["Counting Problem", 10], [
      "OCR Problems",
      10
    ]])
    assert.deepStrictEqual(summary.clustered.groups.map((g) => g.axis), ["task type", "duration"])
  })

  it("shows it beside Wilson in text, json and html", () => {
    const line =
      "95% CI [17.3–82.7] clustered by video (10 videos) · SE 16.7 pts vs 9.1 per question · design effect 1.83"
    assert.include(renderText(summary), `Accuracy clustered: ${line}`)
    const json = JSON.parse(renderJson(summary))
    assert.strictEqual(json.clustered.videos, 10)
    assert.include(renderHtml(input, summary), line)
  })

  it("has no interval without two videos, and says so for a run without keyed questions", () => {
    const one = summarize({ ...input, predictions: rows.slice(0, 3) })
    assert.deepStrictEqual([one.clustered.videos, one.clustered.se, one.clustered.interval], [1, null, null])
    const empty = summarize({ ...input, predictions: [] })
    assert.include(renderText(empty), "Accuracy clustered: no keyed question")
  })
})
