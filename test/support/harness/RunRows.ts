import { type PredictionRow, type StepInput } from "../../../src/domain/RunRecord.js"
import type { CallRecord } from "../../../src/services/CallLog.js"

export const prediction = (overrides: Partial<PredictionRow> & { readonly questionId: string }): PredictionRow => ({
  videoId: "vid1",
  taskType: "Counting Problem",
  duration: "short",
  domain: null,
  question: "How many cats appear?",
  options: ["A. one", "B. two", "C. three", "D. four"],
  answer: "B",
  prediction: "B",
  correct: true,
  evidence: "two cats at 12s",
  reasoning: "counted them",
  stepsUsed: 2,
  stopReason: "finished",
  error: null,
  promptTokens: 100,
  completionTokens: 20,
  startedAt: 1_000,
  finishedAt: 2_000,
  worker: null,
  ...overrides
})

export const step = (index: number, overrides: Partial<StepInput> = {}): StepInput => ({
  step: index,
  tool: "view_node",
  args: { node_id: "vid1_L1_000", question: "cats?" },
  output: `[Node] vid1_L1_000 | Scene | 0-300s (step ${index})`,
  thought: "look at the first scene",
  reflect: { seen: index },
  plan: { next: "view children" },
  ...overrides
})

export const call = (overrides: Partial<CallRecord> = {}): CallRecord => ({
  questionId: null,
  parentStep: 1,
  role: "agent",
  model: "reasoner",
  startedAt: 1_100,
  durationMs: 50,
  promptTokens: 40,
  completionTokens: 10,
  status: "ok",
  errorReason: null,
  ...overrides
})
