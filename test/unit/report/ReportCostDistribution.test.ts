import { assert, describe, it } from "@effect/vitest"
import { summarize } from "../../../src/programs/report/Report.js"
import { framesOfStep } from "../../../src/programs/report/ReportCostDistribution.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import { renderJson, renderText } from "../../../src/programs/report/ReportText.js"
import type { ReportInput } from "../../../src/programs/report/Summary.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"

const observe = (index: number, nodeIds: ReadonlyArray<string> | string) =>
  step(index, { tool: "observe_frame", args: { node_ids: nodeIds } })

// q1: 3 steps, an observe_frame of two frame ids (extract + verify: 2 VLM calls, 4 frames), one tool call,
// one embedding call. q2: 1 step, an observe_frame of an event id (1 VLM call, counted as 8 frames).
// q3: nothing but its agent call. Prices: agent $1 per 1M tokens both ways, the rest free.
const input: ReportInput = {
  run: { runId: "run-cost", startedAt: 0, finishedAt: 60_000, status: "completed" },
  predictions: [
    prediction({
      questionId: "q1",
      stepsUsed: 3,
      promptTokens: 1_000,
      completionTokens: 100,
      cachedPromptTokens: 400,
      startedAt: 0,
      finishedAt: 9_000
    }),
    prediction({
      questionId: "q2",
      taskType: "OCR Problems",
      stepsUsed: 1,
      prediction: "C",
      correct: false,
      promptTokens: 200,
      completionTokens: 50,
      startedAt: 0,
      finishedAt: 3_000
    }),
    prediction({
      questionId: "q3",
      stepsUsed: 1,
      promptTokens: 100,
      completionTokens: 10,
      startedAt: 0,
      finishedAt: 1_000
    })
  ],
  steps: [
    { questionId: "q1", ...step(1) },
    { questionId: "q1", ...observe(2, ["vid1_L1_000_L2_000_L3_001", "vid1_L1_000_L2_000_L3_002"]) },
    { questionId: "q2", ...observe(1, "vid1_L1_000_L2_003") }
  ],
  calls: [
    call({ questionId: "q1", role: "agent", promptTokens: 1_000, completionTokens: 100 }),
    call({ questionId: "q1", role: "tool", parentStep: 1, promptTokens: 0, completionTokens: 0 }),
    call({ questionId: "q1", role: "vlm", parentStep: 2, promptTokens: 0, completionTokens: 0 }),
    call({ questionId: "q1", role: "vlm", parentStep: 2, promptTokens: 0, completionTokens: 0 }),
    call({ questionId: "q1", role: "embed", parentStep: 1, promptTokens: 0, completionTokens: 0 }),
    call({ questionId: "q2", role: "agent", promptTokens: 200, completionTokens: 50 }),
    call({ questionId: "q2", role: "vlm", parentStep: 1, promptTokens: 0, completionTokens: 0 }),
    call({ questionId: "q3", role: "agent", promptTokens: 100, completionTokens: 10 })
  ].map((c, i) => ({ ...c, callId: i + 1 }))
}
const prices = { agent: { input: 1, output: 1 } }

describe("cost per question as a distribution", () => {
  const summary = summarize(input, { prices })

  it("counts each question's steps, calls per role, frames sent, tokens, USD and time in the json rows", () => {
    const q1 = summary.perQuestion.find((q) => q.questionId === "q1")!
    assert.deepStrictEqual(
      [q1.steps, q1.toolCalls, q1.vlmCalls, q1.framesSent, q1.embedCalls, q1.cachedPromptTokens, q1.reasoningTokens],
      [3, 1, 2, 4, 1, 400, null]
    )
    assert.closeTo(q1.costUsd!, 1_100 / 1e6, 1e-12)
    const q2 = summary.perQuestion.find((q) => q.questionId === "q2")!
    assert.deepStrictEqual([q2.vlmCalls, q2.framesSent, q2.timeMs], [1, 8, 3_000])
  })

  it("gives p50, p90, max and mean of every metric, overall and per task type, and accuracy per USD", () => {
    const of = (metric: string) => summary.costDistribution.overall.find((s) => s.metric === metric)!
    assert.deepStrictEqual([of("steps").p50, of("steps").p90, of("steps").max], [1, 3, 3])
    assert.deepStrictEqual([of("framesSent").p50, of("framesSent").max, of("framesSent").count], [4, 8, 3])
    assert.deepStrictEqual([of("timeMs").p50, of("timeMs").max], [3_000, 9_000])
    assert.deepStrictEqual([of("cachedPromptTokens").count, of("cachedPromptTokens").max], [1, 400])
    assert.deepStrictEqual(summary.costDistribution.byTaskType.map((g) => [g.key, g.questions]), [
      ["Counting Problem", 2],
      ["OCR Problems", 1]
    ])
    // 2 of 3 right for 1,100 + 250 + 110 tokens at $1 per 1M: (2/3) / (1,460e-6 / 3) = 2 / 0.00146.
    assert.closeTo(summary.costDistribution.accuracyPerUsd!, 2 / 0.00146, 1e-6)
  })

  it("leaves frames unknown when the steps were not read, and accuracy per USD unknown without prices", () => {
    const bare = summarize({ run: input.run, predictions: input.predictions, calls: input.calls })
    assert.deepStrictEqual(bare.perQuestion.map((q) => q.framesSent), [null, null, 0])
    assert.isNull(bare.costDistribution.accuracyPerUsd)
  })

  it("shows the distribution in text, json and html", () => {
    const text = renderText(summary)
    assert.include(text, "Cost per question over 3 questions")
    assert.match(text, /frames sent\s+4\s+8\s+8\s+4\.0/)
    assert.include(text, "Cost per question by task type (p50 / p90 / max)")
    assert.match(text, /OCR Problems\s+1\s+1 \/ 1 \/ 1\s+1 \/ 1 \/ 1\s+8 \/ 8 \/ 8/)
    assert.include(text, "Accuracy per USD 1370 (correct answers per dollar")
    assert.strictEqual(JSON.parse(renderJson(summary)).costDistribution.overall.length, 11)
    const page = renderHtml(input, summary)
    assert.include(page, "Cost per question over 3 questions")
    assert.include(page, "Accuracy per USD 1370")
  })
})

describe("framesOfStep", () => {
  it("counts distinct frame ids, an event id as 8, and nothing it cannot read", () => {
    assert.strictEqual(framesOfStep({ node_ids: ["a_L3_001", "a_L3_001 ", "a_L3_002"] }), 2)
    assert.strictEqual(framesOfStep({ node_ids: "v_L1_000_L2_004" }), 8)
    assert.isNull(framesOfStep({ node_id: "x" }))
  })
})
