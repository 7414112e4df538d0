// LongVidSearch's measures on hand-made rows: evidence recall from the clips viewed (view_node,
// observe_frame) and cited (submit_answer's evidence), tool calls per question, the judged axes, and the
// jsonl export with answer, evidence clip ids and tool calls.
import { assert, describe, it } from "@effect/vitest"
import type { Outcome } from "../../../src/domain/Outcome.js"
import type { BenchmarkFacts } from "../../../src/domain/Question.js"
import { nothingRecorded } from "../../../src/domain/RunConfig.js"
import type { PredictionRow, StepRow } from "../../../src/domain/RunRecord.js"
import { renderExport } from "../../../src/programs/report/Export.js"
import { summarize } from "../../../src/programs/report/Report.js"
import {
  citedNodeIds,
  clipOfNodeId,
  evidenceSummary,
  judgedAxes,
  toolCallsOf,
  viewedNodeIds
} from "../../../src/programs/report/ReportEvidence.js"
import { renderText } from "../../../src/programs/report/ReportText.js"
import { prediction, step } from "../../support/harness/RunRows.js"

const facts = (category: string, hop: string, slices: ReadonlyArray<number>): BenchmarkFacts => ({
  name: "longvidsearch",
  categories: [{ axis: "category", labels: [category] }, { axis: "hop level", labels: [hop] }],
  originalKey: "ref",
  durationSeconds: null,
  durationGroup: null,
  source: { file: "dataset/v1_qa.json", location: "index 0" },
  row: { question: "q", answer: "ref", category, hop_level: hop, evidence_slices: slices, reasoning_chain: "…" }
})

const node = (video: string, clip: number) =>
  `${video}_L1_000_L2_00${Math.floor(clip / 3)}_L3_${String(clip).padStart(3, "0")}`

const open = (questionId: string, videoId: string, benchmark: BenchmarkFacts, extra: Partial<PredictionRow> = {}) =>
  prediction({
    questionId,
    videoId,
    taskType: benchmark.categories[0]!.labels[0]!,
    options: [],
    answer: "ref",
    prediction: null,
    correct: false,
    benchmark,
    ...extra
  })

const predictions = [
  open("v1_0", "v1", facts("Global_Summary", "2-Hop", [1, 48]), {
    answerText: "534 A.D. and 536 A.D.",
    evidence: JSON.stringify([node("v1", 48), node("other", 1)]),
    stepsUsed: 4
  }),
  open("v1_1", "v1", facts("Visual_Tracking", "3-Hop", [43, 50, 72]), {
    answerText: "Rome, Ravenna and Naples.",
    evidence: "I read the map clips",
    stepsUsed: 3
  })
]

const stepRow = (questionId: string, index: number, overrides: Partial<StepRow>): StepRow => ({
  questionId,
  ...step(index),
  ...overrides
})

const steps: ReadonlyArray<StepRow> = [
  stepRow("v1_0", 1, { tool: "search_similar", args: { query: "year on screen" } }),
  stepRow("v1_0", 2, { tool: "view_node", args: { node_id: node("v1", 1) } }),
  stepRow("v1_0", 3, { tool: "view_node", args: { node_id: "v1_L1_000_L2_000" } }),
  stepRow("v1_0", 4, { tool: "submit_answer", args: { answer: "534 A.D. and 536 A.D." } }),
  stepRow("v1_1", 1, { tool: "observe_frame", args: { node_ids: [node("v1", 43), node("v1", 44)] } }),
  stepRow("v1_1", 2, { tool: "view_node", args: { node_id: node("v1", 50) } }),
  stepRow("v1_1", 3, { tool: "submit_answer", args: { answer: "Rome, Ravenna and Naples." } })
]

describe("LongVidSearch evidence", () => {
  it("reads a clip only from an L3 id of the question's own video", () => {
    assert.strictEqual(clipOfNodeId("v1", node("v1", 48)), 48)
    assert.strictEqual(clipOfNodeId("v1", "v1_L1_000_L2_000"), null)
    assert.strictEqual(clipOfNodeId("v1", node("v10", 4)), null)
    assert.deepStrictEqual(viewedNodeIds(steps.filter((s) => s.questionId === "v1_1")), [
      node("v1", 43),
      node("v1", 44),
      node("v1", 50)
    ])
    assert.deepStrictEqual(citedNodeIds(`see ${node("v1", 3)}, and "${node("v1", 9)}"`), [node("v1", 3), node("v1", 9)])
    assert.strictEqual(toolCallsOf(steps.filter((s) => s.questionId === "v1_0")), 3)
  })

  it("measures recall as the share of gold clips viewed or cited, and tool calls per question", () => {
    const evidence = evidenceSummary(predictions, steps)!
    assert.deepStrictEqual(
      evidence.perQuestion.map((q) => [q.questionId, q.gold, q.viewed, q.cited, q.recall, q.toolCalls]),
      [
        ["v1_0", [1, 48], [1], [48], 1, 3],
        ["v1_1", [43, 50, 72], [43, 44, 50], [], 2 / 3, 2]
      ]
    )
    assert.closeTo(evidence.recall!, (1 + 2 / 3) / 2, 1e-12)
    assert.closeTo(evidence.viewedRecall!, (0.5 + 2 / 3) / 2, 1e-12)
    assert.closeTo(evidence.citedRecall!, 0.25, 1e-12)
    assert.deepStrictEqual(evidence.toolCalls, { total: 5, mean: 2.5, p50: 2 })
  })

  it("says nothing for a run without gold clips, or when the steps were not loaded", () => {
    assert.isNull(evidenceSummary([prediction({ questionId: "a" })], []))
    assert.isNull(evidenceSummary(predictions, undefined))
  })

  it("summarize carries it, and the text report prints recall and tool calls", () => {
    const run = { runId: "r1", startedAt: 0, finishedAt: 10_000, status: "completed" as const }
    const summary = summarize({ run, predictions, calls: [], steps })
    assert.strictEqual(summary.evidence?.questions, 2)
    assert.include(
      renderText(summary),
      "Evidence recall 83.3% of the gold clips viewed or cited (viewed 58.3%, cited 25.0%; 2 questions) · tool calls per question p50 2, mean 2.50 (5 in all)"
    )
    assert.isNull(summarize({ run, predictions, calls: [] }).evidence)
  })

  it("gives accuracy per category and hop level from judged outcomes, unscored without them", () => {
    const rows = (outcomes: ReadonlyMap<string, Outcome>) =>
      judgedAxes(predictions, outcomes).map(({ axis, groups }) => [
        axis,
        groups.map((g) => [g.key, g.correct, g.wrong, g.unscored])
      ])
    assert.deepStrictEqual(rows(new Map()), [
      ["category", [["Global_Summary", 0, 0, 1], ["Visual_Tracking", 0, 0, 1]]],
      ["hop level", [["2-Hop", 0, 0, 1], ["3-Hop", 0, 0, 1]]]
    ])
    assert.deepStrictEqual(rows(new Map([["v1_0", "correct"], ["v1_1", "wrong"]])), [
      ["category", [["Global_Summary", 1, 0, 0], ["Visual_Tracking", 0, 1, 0]]],
      ["hop level", [["2-Hop", 1, 0, 0], ["3-Hop", 0, 1, 0]]]
    ])
  })

  it("a report's LongVidSearch axes and headline are the judges' majority, the unjudged unscored", () => {
    const run = { runId: "r1", startedAt: 0, finishedAt: 10_000, status: "completed" as const }
    const verdict = (questionId: string, judgeModel: string, verdict: "correct" | "incorrect") => ({
      questionId,
      judgeModel,
      verdict,
      reason: "…",
      promptTokens: 10,
      completionTokens: 2,
      costUsd: null,
      cacheKey: `${questionId}-${judgeModel}`,
      cached: false,
      judgedAt: 20_000
    })
    const config = { ...nothingRecorded, benchmark: "longvidsearch" as const }
    // v1_0: two of three judges say correct; v1_1: nobody judged it.
    const judgements = [
      verdict("v1_0", "judge-a", "correct"),
      verdict("v1_0", "judge-b", "correct"),
      verdict("v1_0", "judge-c", "incorrect")
    ]
    const summary = summarize({ run: { ...run, config }, predictions, calls: [], steps, judgements })
    assert.deepStrictEqual(summary.primary, { name: "judged accuracy (judges' majority)", value: 1 })
    assert.deepStrictEqual(
      summary.axes.map(({ axis, groups }) => [axis, groups.map((g) => [g.key, g.correct, g.wrong, g.unscored])]),
      [
        ["category", [["Global_Summary", 1, 0, 0], ["Visual_Tracking", 0, 0, 1]]],
        ["hop level", [["2-Hop", 1, 0, 0], ["3-Hop", 0, 0, 1]]]
      ]
    )
  })

  it("exports a line per question: id, answer text, gold, cited and viewed clip ids, tool calls", () => {
    const lines = renderExport("longvidsearch", predictions, undefined, undefined, steps).trimEnd().split("\n")
    assert.deepStrictEqual(lines.map((l) => JSON.parse(l)), [
      {
        question_id: "v1_0",
        vid: "v1",
        category: "Global_Summary",
        hop_level: "2-Hop",
        question: "How many cats appear?",
        corr_answer: "ref",
        answer: "534 A.D. and 536 A.D.",
        golden_evidence_clip: [1, 48],
        evidence_clip_ids: [48],
        viewed_clip_ids: [1],
        tool_calls: 3
      },
      {
        question_id: "v1_1",
        vid: "v1",
        category: "Visual_Tracking",
        hop_level: "3-Hop",
        question: "How many cats appear?",
        corr_answer: "ref",
        answer: "Rome, Ravenna and Naples.",
        golden_evidence_clip: [43, 50, 72],
        evidence_clip_ids: [],
        viewed_clip_ids: [43, 44, 50],
        tool_calls: 2
      }
    ])
    // Without the steps nothing is counted: tool calls unknown, no clip viewed.
    assert.deepStrictEqual(JSON.parse(renderExport("longvidsearch", predictions).split("\n")[0]!).tool_calls, null)
  })
})
