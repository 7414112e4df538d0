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

export type ParseResult =
  | { readonly _tag: "Parsed"; readonly reply: AgentReply }
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
