import { assert, describe, it } from "@effect/vitest"
import { nothingRecorded } from "../../../src/domain/RunConfig.js"
import { compareRuns, NoSharedQuestions, renderCompareText } from "../../../src/programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../../src/programs/report/ReportCompareHtml.js"
import {
  controlEffect,
  controlLines,
  controlSettings,
  controlSummary,
  pairedDifference
} from "../../../src/programs/report/ReportControl.js"
import { renderRunsText } from "../../../src/programs/report/RunList.js"
import { prediction } from "../../support/harness/RunRows.js"

const rows = (rights: ReadonlyArray<boolean>) =>
  rights.map((right, i) => prediction({ questionId: `q${i + 1}`, prediction: right ? "B" : "C", correct: right }))

describe("pairedDifference", () => {
  it("is the mean per-question difference with a normal interval from its standard deviation", () => {
    // d = 1, 0, 1, 0: mean 0.5, sd √(1/3), se √(1/3)/2, half-width 1.959964 · 0.288675 = 0.565792.
    const result = pairedDifference([true, true, true, false], [false, true, false, false])!
    assert.strictEqual(result.delta, 0.5)
    assert.closeTo(result.interval!.low, 0.5 - 0.565792, 1e-6)
    // 1.065792 passes +100 points, where a difference of accuracies ends.
    assert.strictEqual(result.interval!.high, 1)
    assert.isNull(pairedDifference([true], [false])!.interval)
    assert.isNull(pairedDifference([], []))
  })
})

describe("controlEffect", () => {
  const run = rows([true, true, true, false])
  const control = rows([false, true, false, false])

  it("is the run minus its control, whichever side the control is on", () => {
    const asB = controlEffect({ runId: "r" }, { runId: "c", control: "blind" }, run, control)!
    assert.strictEqual(asB.side, "B")
    assert.strictEqual(asB.delta, 0.5)
    assert.deepInclude(asB, { runId: "r", controlRunId: "c", kind: "blind", questions: 4 })
    const asA = controlEffect({ runId: "c", control: "shuffled" }, { runId: "r", control: "none" }, control, run)!
    assert.deepInclude(asA, { side: "A", runId: "r", controlRunId: "c", kind: "shuffled", delta: 0.5 })
  })

  it("says nothing unless exactly one side is a control, and leaves unkeyed questions out", () => {
    assert.isNull(controlEffect({ runId: "a" }, { runId: "b" }, run, control))
    assert.isNull(controlEffect({ runId: "a", control: "blind" }, { runId: "b", control: "chance" }, run, control))
    const keyless = [...run, prediction({ questionId: "q5", answer: null, correct: false })]
    const effect = controlEffect({ runId: "r" }, { runId: "c", control: "chance" }, keyless, [
      ...control,
      prediction({ questionId: "q5", answer: null, correct: false })
    ])!
    assert.strictEqual(effect.questions, 4)
  })

  it("reads as what the video adds in `report --compare`", () => {
    const c = compareRuns(
      { runId: "run-1", source: "a.db", predictions: run },
      { runId: "blind-1", source: "a.db", predictions: control, control: "blind" }
    )
    if (c instanceof NoSharedQuestions) throw new Error("expected shared questions")
    assert.include(
      renderCompareText(c),
      // One video: no bootstrap interval (it needs two), and the normal interval stops at +100 points.
      "The video adds +50.0 points (95 % interval −6.6 to +100.0, paired over 4 keyed questions) over what the model " +
        "answers without it: run run-1 against its blind control blind-1 (B)."
    )
    const page = renderCompareHtml(c, { predictions: run, steps: [], calls: [] }, {
      predictions: control,
      steps: [],
      calls: []
    })
    assert.include(page, "<td id=\"control\">The video adds +50.0 points")
    const plain = compareRuns(
      { runId: "run-1", source: "a.db", predictions: run },
      { runId: "run-2", source: "a.db", predictions: control }
    )
    if (plain instanceof NoSharedQuestions) throw new Error("expected shared questions")
    assert.isNull(plain.control)
    assert.notInclude(renderCompareText(plain), "adds")
  })
})

describe("a control run in its report and in `vtree runs`", () => {
  it("states a chance control's expected accuracy beside the drawn one", () => {
    const predictions = [
      prediction({ questionId: "q1", options: ["A. a", "B. b", "C. c", "D. d"] }),
      prediction({ questionId: "q2", options: ["A. a", "B. b", "C. c", "D. d"], prediction: "A", correct: false }),
      prediction({ questionId: "q3", options: ["A. a", "B. b", "C. c", "D. d", "E. e"] }),
      prediction({ questionId: "q4", options: ["A. a", "B. b"], prediction: "A", correct: false }),
      // Unkeyed: not in the expectation.
      prediction({ questionId: "q5", options: ["A. a", "B. b"], answer: null })
    ]
    const config = { ...nothingRecorded, control: "chance" as const, controlSeed: 1 }
    const control = controlSummary(config, predictions)!
    assert.closeTo(control.expectedAccuracy!, (0.25 + 0.25 + 0.2 + 0.5) / 4, 1e-12)
    assert.deepStrictEqual(controlLines({ control, overall: { accuracy: 0.5 } }), [
      "Control run: chance control (seeded uniform draw, no model) · seed 1 · expected accuracy 30.0% (mean of 1/options over the keyed), drawn 50.0%"
    ])
    assert.deepStrictEqual(controlSettings(config), [
      { name: "control", value: "chance" },
      { name: "control seed", value: "1" }
    ])
  })

  it("is no control, and shows nothing, for a run that recorded none", () => {
    assert.isNull(controlSummary(nothingRecorded, rows([true])))
    assert.deepStrictEqual(controlSettings(nothingRecorded), [])
  })

  it("marks a control in the runs list", () => {
    const listing = {
      runId: "c1",
      status: "completed",
      benchmark: "videomme" as const,
      agentModel: "m",
      saved: 1,
      total: 1,
      keyed: 1,
      correct: 1,
      accuracy: 1,
      startedAt: "1970-01-01T00:00:00.000Z",
      wallTimeMs: 1_000
    }
    assert.include(renderRunsText([{ ...listing, control: "shuffled" }]), "Video-MME · shuffled control")
    assert.notInclude(renderRunsText([listing]), "control")
  })
})
