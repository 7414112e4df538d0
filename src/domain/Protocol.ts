import { Schema } from "effect"

/**
 * One reply of the agent model, after parsing: `{"reflect": {…}, "plan": {…}, "action": {"tool", "args"}}`.
 * reflect and plan are free-form objects the prompt pack asks for; the loop records them and never
 * interprets them.
 */
export interface AgentReply {
  readonly reflect: Readonly<Record<string, unknown>>
  readonly plan: Readonly<Record<string, unknown>>
  readonly action: AgentAction
}

export interface AgentAction {
  readonly tool: string
  readonly args: Readonly<Record<string, unknown>>
}

/**
 * How a reply was read, so a report can show what a model really sends: `clean` is the one JSON object
 * the prompt asks for and nothing else; the others name each liberty the parser took:
 * fenced (in a Markdown code fence), prose (text around the object), think-stripped (reasoning in
 * <think>/<thinking>/<reasoning> blocks removed and kept as the thought), function-call (a native
 * tool-call shape: {"name", "arguments"}, <tool_call>, tool_calls), first-of-several (several actions,
 * the first taken), repaired (invalid or cut-off JSON repaired; the action itself was whole).
 */
export const ReplyShape = Schema.Literal(
  "clean",
  "fenced",
  "prose",
  "think-stripped",
  "function-call",
  "first-of-several",
  "repaired"
)
export type ReplyShape = typeof ReplyShape.Type

/** How many counted steps were read in each shape (a step may count under several). */
export type ReplyShapeCounts = Readonly<Partial<Record<ReplyShape, number>>>

export const countShapes = (
  steps: ReadonlyArray<{ readonly replyShapes?: ReadonlyArray<ReplyShape> | undefined }>
): ReplyShapeCounts => {
  const counts: Partial<Record<ReplyShape, number>> = {}
  for (const step of steps) for (const shape of step.replyShapes ?? []) counts[shape] = (counts[shape] ?? 0) + 1
  return counts
}

export type ParseResult =
  | {
    readonly _tag: "Parsed"
    readonly reply: AgentReply
    readonly shapes: ReadonlyArray<ReplyShape>
    /** The text of reasoning blocks found in the reply, for a step whose endpoint sent none apart. */
    readonly thought?: string
  }
  | { readonly _tag: "Unparseable"; readonly reason: string }

// Models send numbers as strings and single ids where a list is asked for; accepting both shapes costs
// nothing and spares the agent a wasted step.
const NodeIds = Schema.Union(
  Schema.NonEmptyArray(Schema.String),
  Schema.transform(Schema.String, Schema.Array(Schema.String), {
    strict: true,
    decode: (id) => [id],
    encode: (ids) => ids.join(",")
  })
)

const LooseInt = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int()))

export const ViewNodeArgs = Schema.Struct({
  node_id: Schema.String.pipe(Schema.minLength(1)),
  // Absent → the question being answered; the agent may also ask a narrower sub-question.
  question: Schema.optional(Schema.String)
})
export type ViewNodeArgs = typeof ViewNodeArgs.Type

export const SearchSimilarArgs = Schema.Struct({
  query: Schema.String.pipe(Schema.minLength(1)),
  question: Schema.optional(Schema.String),
  k: Schema.optional(LooseInt.pipe(Schema.between(1, 20)))
})
export type SearchSimilarArgs = typeof SearchSimilarArgs.Type

export const ObserveFrameArgs = Schema.Struct({
  node_ids: NodeIds,
  question: Schema.optional(Schema.String)
})
export type ObserveFrameArgs = typeof ObserveFrameArgs.Type

export const SubmitAnswerArgs = Schema.Struct({
  answer: Schema.String,
  evidence: Schema.optional(Schema.Unknown),
  reasoning: Schema.optional(Schema.Unknown)
})
export type SubmitAnswerArgs = typeof SubmitAnswerArgs.Type

export const ReadSkillArgs = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1))
})
export type ReadSkillArgs = typeof ReadSkillArgs.Type
