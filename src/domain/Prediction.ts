import { Schema } from "effect"
import { ReplyShape } from "./Protocol.js"
import { ProviderErrorReason } from "./ProviderError.js"

export const StopReason = Schema.Literal("finished", "budget_exceeded", "parse_error", "error")
export type StopReason = typeof StopReason.Type

/** One counted step: a parsed reply naming a known tool, and what the tool answered. */
export const StepRecord = Schema.Struct({
  index: Schema.Int,
  /** The provider's reasoning text for this reply; recorded, never fed back. */
  thought: Schema.NullOr(Schema.String),
  reflect: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  plan: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  tool: Schema.String,
  args: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  output: Schema.String,
  /** The model's reply as sent. */
  raw: Schema.String,
  /** How the parser read `raw` (absent in records written before it said). */
  replyShapes: Schema.optionalWith(Schema.Array(ReplyShape), { exact: true })
})
export type StepRecord = typeof StepRecord.Type

export const RoleUsageSchema = Schema.Struct({
  calls: Schema.Int,
  promptTokens: Schema.Int,
  completionTokens: Schema.Int,
  // Absent until a call of the role reports them (and in records written before they were read).
  cachedPromptTokens: Schema.optionalWith(Schema.Int, { exact: true }),
  reasoningTokens: Schema.optionalWith(Schema.Int, { exact: true })
})

export const UsageSchema = Schema.Struct({
  agent: RoleUsageSchema,
  tool: RoleUsageSchema,
  vlm: RoleUsageSchema,
  embed: RoleUsageSchema,
  ocr: RoleUsageSchema
})

/** Counters of degraded or avoided work inside the tools, per question. */
export const ToolStats = Schema.Struct({
  parseFailures: Schema.Int,
  unknownTools: Schema.Int,
  badArgs: Schema.Int,
  extractFailed: Schema.Int,
  verifyFailed: Schema.Int,
  childrenFailed: Schema.Int,
  visionFailed: Schema.Int,
  visionVerifyFailed: Schema.Int,
  ocrFailed: Schema.Int,
  invalidAnchors: Schema.Int,
  summaryCacheHits: Schema.Int,
  /** Searches answered by keywords because their embedding call failed or timed out. */
  embedFallbacks: Schema.Int
})
export type ToolStats = typeof ToolStats.Type

export const emptyToolStats = (): { -readonly [K in keyof ToolStats]: number } => ({
  parseFailures: 0,
  unknownTools: 0,
  badArgs: 0,
  extractFailed: 0,
  verifyFailed: 0,
  childrenFailed: 0,
  visionFailed: 0,
  visionVerifyFailed: 0,
  ocrFailed: 0,
  invalidAnchors: 0,
  summaryCacheHits: 0,
  embedFallbacks: 0
})

/** The outcome of one question: what the harness stores and reports. */
export const Prediction = Schema.Struct({
  questionId: Schema.String,
  /** The agent's submitted answer as written; null when it never submitted. */
  answer: Schema.NullOr(Schema.String),
  /** The option letter read from `answer` by the official rule; null = unparseable or no answer. */
  prediction: Schema.NullOr(Schema.String),
  evidence: Schema.NullOr(Schema.String),
  reasoning: Schema.NullOr(Schema.String),
  steps: Schema.Array(StepRecord),
  stepsUsed: Schema.Int,
  usage: UsageSchema,
  stats: ToolStats,
  stopReason: StopReason,
  /**
   * True when the answer came from the final-answer call, made after the step budget was spent
   * (stopReason `budget_exceeded`); absent otherwise.
   */
  forced: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** What went wrong, for stopReason `error` and `parse_error`. */
  error: Schema.NullOr(Schema.String),
  /** For stopReason `error` from the agent's model: the provider failure, so a harness can tell a
   * misconfigured endpoint (Auth, unknown model) from trouble with one question. */
  providerError: Schema.optionalWith(
    Schema.Struct({ provider: Schema.String, reason: ProviderErrorReason, status: Schema.NullOr(Schema.Number) }),
    { exact: true }
  )
})
export type Prediction = typeof Prediction.Type
