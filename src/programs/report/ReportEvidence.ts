// LongVidSearch's measures beside accuracy: evidence recall (the share of a question's gold clips the agent
// viewed with view_node or observe_frame, or cited in submit_answer's evidence) and tool calls per question
// (the benchmark's cost measure), and its accuracy per category and hop level from judged outcomes. Pure:
// stored rows in. A clip is read from a node id ending `_L3_<clip>` of the question's video, the ids
// `vtree tree import --from longvidsearch` gives; on trees built otherwise the L3 numbers are no clip
// indices, and the recall says nothing.
import type { GroupAccuracy, Outcome } from "../../domain/Outcome.js"
import type { PredictionRow, StepRow } from "../../domain/RunRecord.js"
import { quantile } from "../../domain/Stats.js"
import { countOf, formatCount, formatPercent } from "../../text/Format.js"
import type { AgentTrace } from "../benchmarks/Benchmark.js"
import { goldClipsOf, judgedHeadline } from "../benchmarks/LongVidSearch.js"
import { resultsOfPredictions } from "../benchmarks/StoredResults.js"
import { judgedOutcomes } from "./ReportJudges.js"

// The stored rows (Summary.ts's ReportPrediction and ReportStep): named here so Summary.ts may import this module.
type ReportPrediction = PredictionRow
type ReportStep = StepRow

/** The clip index a node id of `videoId`'s tree names (`<videoId>_L1_000_L2_003_L3_047` → 47), or null. */
export const clipOfNodeId = (videoId: string, nodeId: string): number | null => {
  if (!nodeId.startsWith(`${videoId}_L1_`)) return null
  const clip = /_L2_\d+_L3_(\d+)$/.exec(nodeId)?.[1]
  return clip === undefined ? null : Number(clip)
}

const idsOf = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : []

/** Node ids the steps' view_node and observe_frame calls named, in order. */
export const viewedNodeIds = (steps: ReadonlyArray<Pick<ReportStep, "tool" | "args">>): ReadonlyArray<string> =>
  steps.flatMap((s) =>
    s.tool === "view_node" ? idsOf(s.args["node_id"]) : s.tool === "observe_frame" ? idsOf(s.args["node_ids"]) : []
  )

// A node id as the tree writes it, inside any text (a JSON list, prose): the pattern ReportFrames links by.
const nodeIdInText = /[^\s"'<>&;,:|()[\]{}#]+_L1_\d+_L2_\d+_L3_\d+/gu

/** Node ids named in submit_answer's evidence, as stored (text, or a JSON list as text). */
export const citedNodeIds = (evidence: string | null): ReadonlyArray<string> =>
  evidence === null ? [] : [...evidence.matchAll(nodeIdInText)].map((m) => m[0])

/** Steps that called a tool to reach evidence: every step but the answer. */
export const toolCallsOf = (steps: ReadonlyArray<Pick<ReportStep, "tool">>): number =>
  steps.filter((s) => s.tool !== "submit_answer").length

const stepsByQuestion = (steps: ReadonlyArray<ReportStep>): ReadonlyMap<string, ReadonlyArray<ReportStep>> => {
  const byQuestion = new Map<string, Array<ReportStep>>()
  for (const s of steps) {
    const list = byQuestion.get(s.questionId)
    if (list === undefined) byQuestion.set(s.questionId, [s])
    else list.push(s)
  }
  return byQuestion
}

const clipsOf = (videoId: string, nodeIds: ReadonlyArray<string>): ReadonlyArray<number> => [
  ...new Set(nodeIds.flatMap((id) => {
    const clip = clipOfNodeId(videoId, id)
    return clip === null ? [] : [clip]
  }))
]

/** What the agent did for a question, from its prediction and steps (`steps` null: not loaded). */
export const traceOf = (p: ReportPrediction, steps: ReadonlyArray<ReportStep> | null): AgentTrace => ({
  answerText: p.answerText ?? null,
  viewedClips: clipsOf(p.videoId, viewedNodeIds(steps ?? [])),
  citedClips: clipsOf(p.videoId, citedNodeIds(p.evidence)),
  toolCalls: steps === null ? null : toolCallsOf(steps)
})

export interface QuestionEvidence {
  readonly questionId: string
  readonly gold: ReadonlyArray<number>
  readonly viewed: ReadonlyArray<number>
  readonly cited: ReadonlyArray<number>
  /** Gold clips viewed or cited, over the gold clips. */
  readonly recall: number
  readonly toolCalls: number
}

export interface EvidenceSummary {
  /** Questions with gold clips (the recall's denominator). */
  readonly questions: number
  /** Mean over them of the share of gold clips viewed or cited; then viewed alone, cited alone. */
  readonly recall: number | null
  readonly viewedRecall: number | null
  readonly citedRecall: number | null
  /** Tool calls per question (every step but the answer), over every question of the run. */
  readonly toolCalls: { readonly total: number; readonly mean: number | null; readonly p50: number | null }
  readonly perQuestion: ReadonlyArray<QuestionEvidence>
}

const share = (gold: ReadonlyArray<number>, seen: ReadonlyArray<number>): number =>
  gold.filter((clip) => seen.includes(clip)).length / gold.length

const mean = (values: ReadonlyArray<number>): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length

/**
 * The run's evidence measures; null when no question carries gold clips (not a LongVidSearch run), or when
 * the steps were not loaded (predictions with steps, none given): then nothing can be said.
 */
export const evidenceSummary = (
  predictions: ReadonlyArray<ReportPrediction>,
  steps: ReadonlyArray<ReportStep> | undefined
): EvidenceSummary | null => {
  const withGold = predictions.filter((p) => goldClipsOf(p.benchmark?.row).length > 0)
  if (withGold.length === 0) return null
  if ((steps ?? []).length === 0 && predictions.some((p) => p.stepsUsed > 0)) return null
  const byQuestion = stepsByQuestion(steps ?? [])
  const perQuestion = withGold.map((p): QuestionEvidence => {
    const trace = traceOf(p, byQuestion.get(p.questionId) ?? [])
    const gold = goldClipsOf(p.benchmark?.row)
    return {
      questionId: p.questionId,
      gold,
      viewed: trace.viewedClips,
      cited: trace.citedClips,
      recall: share(gold, [...trace.viewedClips, ...trace.citedClips]),
      toolCalls: trace.toolCalls ?? 0
    }
  })
  const calls = predictions.map((p) => toolCallsOf(byQuestion.get(p.questionId) ?? []))
  return {
    questions: perQuestion.length,
    recall: mean(perQuestion.map((q) => q.recall)),
    viewedRecall: mean(perQuestion.map((q) => share(q.gold, q.viewed))),
    citedRecall: mean(perQuestion.map((q) => share(q.gold, q.cited))),
    toolCalls: { total: calls.reduce((a, b) => a + b, 0), mean: mean(calls), p50: quantile(calls, 0.5) },
    perQuestion
  }
}

/**
 * A LongVidSearch run's accuracy axes (category, hop level) from judged outcomes by question id (the judges'
 * majority); a question the map lacks is unscored.
 */
/**
 * A LongVidSearch run's headline figure and axes: its answers are open-ended, so they score only as the judges'
 * majority says (ReportJudges.judgedOutcomes); an answer no judge has seen is unscored, never wrong.
 */
export const judgedView = (
  predictions: ReadonlyArray<ReportPrediction>,
  judgements: Parameters<typeof judgedOutcomes>[1]
): {
  readonly primary: { readonly name: string; readonly value: number | null }
  readonly axes: ReturnType<typeof judgedAxes>
} => {
  const outcomes = judgedOutcomes(predictions, judgements)
  const headline = judgedHeadline(resultsOfPredictions(predictions, "longvidsearch"), outcomes)
  return {
    primary: { name: "judged accuracy (judges' majority)", value: headline.overall.accuracy },
    axes: headline.axes
  }
}

export const judgedAxes = (
  predictions: ReadonlyArray<ReportPrediction>,
  outcomes: ReadonlyMap<string, Outcome>
): ReadonlyArray<{ readonly axis: string; readonly groups: ReadonlyArray<GroupAccuracy> }> =>
  judgedHeadline(resultsOfPredictions(predictions, "longvidsearch"), outcomes).axes

/** The traces of stored predictions, by question id, for the benchmark's export. */
export const tracesOf = (
  predictions: ReadonlyArray<ReportPrediction>,
  steps: ReadonlyArray<ReportStep> | undefined
): ReadonlyMap<string, AgentTrace> => {
  const byQuestion = stepsByQuestion(steps ?? [])
  return new Map(
    predictions.map((p) => [p.questionId, traceOf(p, steps === undefined ? null : byQuestion.get(p.questionId) ?? [])])
  )
}

/** The text report's lines: recall, and tool calls per question. */
export const evidenceText = (evidence: EvidenceSummary | null | undefined): ReadonlyArray<string> =>
  evidence == null ? [] : [
    `Evidence recall ${formatPercent(evidence.recall)} of the gold clips viewed or cited (viewed ${
      formatPercent(evidence.viewedRecall)
    }, cited ${formatPercent(evidence.citedRecall)}; ${countOf(evidence.questions, "question")})` +
    ` · tool calls per question p50 ${evidence.toolCalls.p50 ?? "—"}, mean ${
      evidence.toolCalls.mean === null ? "—" : evidence.toolCalls.mean.toFixed(2)
    } (${formatCount(evidence.toolCalls.total)} in all)`
  ]
