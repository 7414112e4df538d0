import { Context, Effect, FiberRef, Option } from "effect"
import type { callRoles } from "../domain/CallRole.js"
import type { ProviderErrorReason } from "../domain/ProviderError.js"
import type { Usage } from "./LLMProvider.js"

/** The roles that answer a question (callRoles): each question's usage counts them, `llm_calls` stores them. */
export type QuestionRole = (typeof callRoles)[number]
/** Every provider role that reports its calls; speech-to-text ("asr") serves the tree builder, never a question. */
export type CallRole = QuestionRole | "asr"

/** One provider call as its adapter saw it. */
export interface CallOutcome {
  readonly role: CallRole
  readonly model: string
  readonly startedAt: number
  readonly durationMs: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, those served from the endpoint's prefix cache; absent when it did not say. */
  readonly cachedPromptTokens?: number
  /** Of completionTokens, those spent thinking; absent when the endpoint did not say. */
  readonly reasoningTokens?: number
  readonly status: "ok" | "error"
  readonly errorReason: ProviderErrorReason | null
  /** The base URL that served the call (its last attempt), credentials removed; absent for local fakes. */
  readonly endpoint?: string
  /** Attempts the call made (more than 1: it was retried); absent where the adapter does not count them. */
  readonly attempts?: number
}

/** One provider call as the CallLog receives it: its outcome and the question and step it served. */
export interface ReportedCall extends CallOutcome {
  readonly questionId: string | null
  readonly parentStep: number | null
}

/**
 * One provider call, as stored in `llm_calls`. The table's role column lists the question roles only:
 * storing speech-to-text calls there needs a migration that widens its CHECK first.
 */
export interface CallRecord extends ReportedCall {
  readonly role: QuestionRole
}

/** Whether a reported call is one of a question's roles, which `llm_calls` can hold. */
export const isQuestionCall = (call: ReportedCall): call is CallRecord => call.role !== "asr"

export interface RoleUsage {
  calls: number
  promptTokens: number
  completionTokens: number
  /** Present once a call of the role reported it (see CallOutcome). */
  cachedPromptTokens?: number
  reasoningTokens?: number
}

/** The token details a usage carries, as fields to spread: a detail nobody reported stays absent. */
export const tokenDetails = (
  usage: Pick<Usage, "cachedPromptTokens" | "reasoningTokens">
): Pick<Usage, "cachedPromptTokens" | "reasoningTokens"> => ({
  ...(usage.cachedPromptTokens === undefined ? {} : { cachedPromptTokens: usage.cachedPromptTokens }),
  ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens })
})

/** Adds one call's tokens to a role's running usage. */
export const addUsage = (slot: RoleUsage, call: Usage): void => {
  slot.calls += 1
  slot.promptTokens += call.promptTokens
  slot.completionTokens += call.completionTokens
  if (call.cachedPromptTokens !== undefined) {
    slot.cachedPromptTokens = (slot.cachedPromptTokens ?? 0) + call.cachedPromptTokens
  }
  if (call.reasoningTokens !== undefined) slot.reasoningTokens = (slot.reasoningTokens ?? 0) + call.reasoningTokens
}

/** Per-question token accounting, shared by every fiber the question forks; judges score answers after the run. */
export type UsageByRole = Record<Exclude<QuestionRole, "judge">, RoleUsage>

export const emptyUsage = (): UsageByRole => ({
  agent: { calls: 0, promptTokens: 0, completionTokens: 0 },
  tool: { calls: 0, promptTokens: 0, completionTokens: 0 },
  vlm: { calls: 0, promptTokens: 0, completionTokens: 0 },
  embed: { calls: 0, promptTokens: 0, completionTokens: 0 },
  ocr: { calls: 0, promptTokens: 0, completionTokens: 0 }
})

/**
 * Which question and step a call belongs to. Carried in a FiberRef so providers deep in a tool
 * need no extra parameters; forked fibers inherit it, and they all add to the same `usage` object.
 */
export interface CallContext {
  readonly questionId: string | null
  readonly parentStep: number | null
  readonly usage: UsageByRole | null
}

export const currentCallContext: FiberRef.FiberRef<CallContext> = FiberRef.unsafeMake<CallContext>({
  questionId: null,
  parentStep: null,
  usage: null
})

/** Runs `effect` with the given call context fields replacing the current ones. */
export const withCallContext =
  (patch: Partial<CallContext>) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(
      FiberRef.get(currentCallContext),
      (current) => Effect.locally(effect, currentCallContext, { ...current, ...patch })
    )

export class CallLog extends Context.Tag("vtree/CallLog")<
  CallLog,
  {
    readonly record: (call: ReportedCall) => Effect.Effect<void>
  }
>() {}

/**
 * Every provider adapter (real or fake) reports each call here: it is added to the question's usage
 * (when one is being accounted) and handed to the CallLog (when one is provided).
 */
export const recordCall = (outcome: CallOutcome): Effect.Effect<void> =>
  // Read off the fiber at once: this runs at every model call, and each effect step there costs.
  Effect.withFiberRuntime((fiber) => {
    const context = fiber.getFiberRef(currentCallContext)
    if (context.usage !== null && outcome.role !== "asr" && outcome.role !== "judge") {
      addUsage(context.usage[outcome.role], outcome)
    }
    const log = Context.getOption(fiber.getFiberRef(FiberRef.currentContext), CallLog)
    return Option.isSome(log)
      ? log.value.record({ ...outcome, questionId: context.questionId, parentStep: context.parentStep })
      : Effect.void
  })
