import { type Context, Effect, Either, Option, Schedule } from "effect"
import { normalizeAnswer } from "../../domain/Answer.js"
import type { Prediction, StepRecord, StopReason } from "../../domain/Prediction.js"
import type { AgentAction, ParseResult } from "../../domain/Protocol.js"
import { isRetryable, type ProviderError } from "../../domain/ProviderError.js"
import { agentDefaults } from "../../domain/RunConfig.js"
import { emptyUsage, type UsageByRole, withCallContext } from "../../services/CallLog.js"
import {
  type ChatMessage,
  type ChatResponse,
  LLMProvider,
  type ToolCall,
  type ToolDefinition
} from "../../services/LLMProvider.js"
import { retryOnFailure } from "../../services/RetryOnFailure.js"
import { annotateSpan, withHotSpan } from "../../services/Telemetry.js"
import type { Labels } from "../prompts/PromptManager.js"
import { fillPlaceholders } from "../prompts/SystemPrompt.js"
import type { Dispatcher, Submission, ToolResult, UnknownTool } from "../tools/Dispatcher.js"
import type { MutableToolStats } from "../tools/ToolContext.js"
import { AgentObserver, type AgentObserverShape, noopObserver } from "./Observer.js"
import { parseAgentReply, parseToolCall } from "./Parse.js"

/**
 * A step whose agent call fails transiently is tried again after 20 s, then 40 s: long enough for a
 * rate-limit window or a restarting server, short enough not to stall a benchmark run. The provider
 * layer already retries quickly; this is the slower, second line.
 */
export const stepRetrySchedule: Schedule.Schedule<unknown, ProviderError> = Schedule.fromDelays(
  "20 seconds",
  "40 seconds"
)

/** Consecutive unparseable replies that end the question. */
export const maxParseFailures = 3

/**
 * How the agent says its step: `json`, one JSON object in the reply text (any model); `tools`, the
 * endpoint's native function calling, with the notes in the message text.
 */
export type AgentProtocol = "json" | "tools"

export const defaultProtocol: AgentProtocol = agentDefaults.protocol

export interface AgentLoopInput<R> {
  readonly questionId: string
  /** The answer options, `"A. …"` each: their count bounds the letters an answer may name. */
  readonly options: ReadonlyArray<string>
  readonly systemPrompt: string
  readonly userPrompt: string
  readonly dispatcher: Dispatcher<R>
  readonly labels: Labels
  readonly maxSteps: number
  /** Counters the tools share; the loop adds parse failures and unknown tools. */
  readonly stats: MutableToolStats
  readonly retrySchedule?: Schedule.Schedule<unknown, ProviderError>
  /** Default `json`. */
  readonly protocol?: AgentProtocol
  /**
   * Default true: when the budget is spent without submit_answer, one more agent call says so and asks
   * for the answer now (submit_answer the only tool offered); a submission then is the prediction,
   * marked `forced`, and the stop reason stays `budget_exceeded`. False: the reference behaviour, the
   * question ends unanswered.
   */
  readonly finalAnswer?: boolean
}

interface Ending {
  readonly stopReason: StopReason
  readonly submission?: Submission
  /** The submission came from the final-answer call, after the budget was spent. */
  readonly forced?: boolean
  readonly error?: string
  readonly providerError?: NonNullable<Prediction["providerError"]>
}

const ending = (stopReason: StopReason, details: Omit<Ending, "stopReason"> = {}): Ending => ({
  stopReason,
  ...details
})

interface Read {
  readonly parsed: ParseResult
  /** The reply as recorded in the step. */
  readonly raw: string
  /** The history entry of the reply. */
  readonly message: ChatMessage
  /** Tools protocol: the call the loop's next message answers, as a `tool` message. */
  readonly call?: ToolCall
}

/** A tools-protocol reply: the first call is the step; only it stays in the history, since only it is answered. */
const readToolReply = (response: ChatResponse): Read => {
  const calls = response.toolCalls ?? []
  const raw = JSON.stringify({ content: response.content, tool_calls: calls })
  const call = calls[0]
  if (call === undefined) {
    return {
      parsed: { _tag: "Unparseable", reason: "the reply has no tool call" },
      raw,
      message: { role: "assistant", content: response.content }
    }
  }
  return {
    parsed: parseToolCall(response.content, call, calls.length),
    raw,
    message: { role: "assistant", content: response.content, toolCalls: [call] },
    call
  }
}

/** The one tool the final-answer call offers, and the only one it runs. */
export const submitAnswerTool = "submit_answer"

const readJsonReply = (response: ChatResponse): Read => ({
  parsed: parseAgentReply(response.content),
  raw: response.content,
  message: { role: "assistant", content: response.content }
})

/**
 * A step's span, the child of the question's `invoke_agent` span that holds the agent's call and the tool
 * it ran. A reply that is no step (unparseable, an unknown tool) has a span of the same index, marked.
 */
const inStepSpan = (index: number) => withHotSpan(`step ${index}`, () => ({ attributes: { "vtree.step": index } }))

/** What every step of one question shares: the agent, the append-only history, the steps taken and the counters. */
interface Conversation<R> {
  readonly input: AgentLoopInput<R>
  readonly llm: Context.Tag.Service<LLMProvider>
  readonly observer: AgentObserverShape
  readonly schedule: Schedule.Schedule<unknown, ProviderError>
  /** The function definitions the tools protocol offers; undefined under `json`. */
  readonly tools: ReadonlyArray<ToolDefinition> | undefined
  readonly finalAnswer: boolean
  /** The note asking for the answer once the budget is spent, in the protocol's words. */
  readonly finalNote: string
  readonly messages: Array<ChatMessage>
  readonly steps: Array<StepRecord>
  /** Unparseable replies in a row. */
  parseFailures: number
  /** Calls of tools that do not exist, in all. */
  unknownCalls: number
}

/** A reply read from the agent, with the response it came in. */
type Reply = Read & { readonly response: ChatResponse }

type Parsed = Extract<ParseResult, { readonly _tag: "Parsed" }>

/** The history starts with the system prompt (plus the tools protocol's note) and the question. */
const openConversation = <R>(
  input: AgentLoopInput<R>,
  llm: Context.Tag.Service<LLMProvider>,
  observer: AgentObserverShape
): Conversation<R> => {
  const tools = (input.protocol ?? defaultProtocol) === "tools" ? input.dispatcher.definitions : undefined
  return {
    input,
    llm,
    observer,
    schedule: input.retrySchedule ?? stepRetrySchedule,
    tools,
    finalAnswer: input.finalAnswer ?? agentDefaults.finalAnswer,
    finalNote: tools === undefined ? input.labels.finalAnswerMessage : input.labels.finalAnswerCallMessage,
    messages: [
      {
        role: "system",
        content: tools === undefined
          ? input.systemPrompt
          : `${input.systemPrompt.trimEnd()}\n\n${input.labels.toolsProtocolNote}\n`
      },
      { role: "user", content: input.userPrompt }
    ],
    steps: [],
    parseFailures: 0,
    unknownCalls: 0
  }
}

/** A provider failure that outlived the step's retries: the `error` ending. */
const providerFailureEnding = (failure: ProviderError): Ending =>
  ending("error", {
    error: `${failure.provider}: ${failure.reason}: ${failure.message}`,
    providerError: { provider: failure.provider, reason: failure.reason, status: failure.status ?? null }
  })

/** The agent's call of a step, retried on transient failures; a failure that stays is the `error` ending. */
const askAgent = <R>(talk: Conversation<R>, offered: ReadonlyArray<ToolDefinition> | undefined) =>
  talk.llm.chat({
    role: "agent",
    thinking: true,
    messages: [...talk.messages],
    ...(offered === undefined ? {} : { tools: offered })
  }).pipe(
    (call) => retryOnFailure(call, talk.schedule, isRetryable),
    Effect.mapError(providerFailureEnding),
    Effect.map((response): Reply => ({
      response,
      ...(talk.tools === undefined ? readJsonReply : readToolReply)(response)
    }))
  )

/**
 * Answers the reply: a call must be answered by a tool message naming it; anything else goes back as the
 * user. With `last`, the note asking for the final answer follows: in the same user turn (json, so turns
 * keep alternating for chat templates that insist), or as a user turn after the tool message.
 */
const answerReply = <R>(talk: Conversation<R>, call: ToolCall | undefined, content: string, last = false): void => {
  if (call === undefined) {
    talk.messages.push({ role: "user", content: last ? `${content}\n\n${talk.finalNote}` : content })
    return
  }
  talk.messages.push({ role: "tool", toolCallId: call.id, content })
  if (last) talk.messages.push({ role: "user", content: talk.finalNote })
}

/** Runs the tool the reply names; an unknown tool is a Left. */
const dispatchTool = <R>(talk: Conversation<R>, action: AgentAction) =>
  Effect.either(talk.input.dispatcher.dispatch(action))

/**
 * Step `index`'s span, and its call context: every model call made in the step, the agent's and its tool's,
 * is counted to it (one context for the step rather than one per call: it is set at every step).
 */
const asStep = (index: number) => <A, E, R>(step: Effect.Effect<A, E, R>) =>
  step.pipe(withCallContext({ parentStep: index }), inStepSpan(index))

/** The record of a step that ran a tool. */
const stepRecordOf = (index: number, reply: Reply, parsed: Parsed, output: string): StepRecord => ({
  index,
  // Reasoning the endpoint sent apart wins; otherwise what the parser lifted out of think tags.
  thought: reply.response.reasoning ?? parsed.thought ?? null,
  reflect: parsed.reply.reflect,
  plan: parsed.reply.plan,
  tool: parsed.reply.action.tool,
  args: parsed.reply.action.args,
  output,
  raw: reply.raw,
  replyShapes: parsed.shapes
})

/**
 * The budget is spent (the note asking for the answer is already in the history): one more call, in
 * which submit_answer is the only tool offered and the only one run. A submission is the answer,
 * forced; anything else leaves the question as `spent` ended it, unanswered, with the reason said.
 */
const askForAnswer = <R>(talk: Conversation<R>, spent: Ending) =>
  Effect.gen(function*() {
    const index = talk.steps.length + 1
    yield* talk.observer.beforeStep({ questionId: talk.input.questionId, index, messages: [...talk.messages] })
    const reply = yield* askAgent(talk, talk.tools?.filter((tool) => tool.name === submitAnswerTool))
    const refused = (why: string) =>
      ending(spent.stopReason, {
        error: [spent.error, `the final-answer reply was not a submission: ${why}`].filter(Boolean).join("; ")
      })
    if (reply.parsed._tag === "Unparseable") return refused(reply.parsed.reason)
    const { action } = reply.parsed.reply
    if (action.tool !== submitAnswerTool) return refused(`it called ${action.tool}`)
    const result = yield* dispatchTool(talk, action)
    if (Either.isLeft(result)) return refused(result.left.message)
    const { output, submission } = result.right
    if (submission === undefined) return refused(output)
    const step = stepRecordOf(index, reply, reply.parsed, output)
    talk.steps.push(step)
    yield* talk.observer.afterStep(talk.input.questionId, step)
    return ending(spent.stopReason, { ...spent, submission, forced: true })
  }).pipe(asStep(talk.steps.length + 1))

/** An unparseable reply: told what was wrong, or, the last of `maxParseFailures` in a row, the `parse_error` ending. */
const rejectUnparseable = <R>(talk: Conversation<R>, call: ToolCall | undefined, reason: string) =>
  Effect.gen(function*() {
    talk.parseFailures += 1
    talk.input.stats.parseFailures += 1
    yield* annotateSpan({ "vtree.step.rejected": "unparseable" })
    if (talk.parseFailures >= maxParseFailures) {
      return ending("parse_error", { error: `${maxParseFailures} unparseable replies in a row; last: ${reason}` })
    }
    // Naming what was wrong lets the model fix that one thing rather than guess.
    const { labels } = talk.input
    answerReply(
      talk,
      call,
      talk.tools === undefined
        ? fillPlaceholders(labels.parseErrorMessage, { reason })
        : call === undefined
        ? fillPlaceholders(labels.noToolCallMessage, { reason })
        : `${labels.toolError} ${reason}`
    )
    return undefined
  })

/**
 * A call of a tool that does not exist: not a step, but bounded, since a model stuck on a tool that does
 * not exist must still stop. Past `maxSteps` of them the budget is spent.
 */
const rejectUnknownTool = <R>(
  talk: Conversation<R>,
  call: ToolCall | undefined,
  action: AgentAction,
  error: UnknownTool
) =>
  Effect.gen(function*() {
    const { input } = talk
    talk.unknownCalls += 1
    input.stats.unknownTools += 1
    yield* annotateSpan({ "vtree.step.rejected": "unknown_tool" })
    const spent = talk.unknownCalls > input.maxSteps
    answerReply(
      talk,
      call,
      // The pack's message asks for a corrected JSON reply; a native call is told in the tool-error form.
      call === undefined
        ? fillPlaceholders(input.labels.unknownToolMessage, {
          tool: action.tool,
          tools: input.dispatcher.toolNames.join(", ")
        })
        : `${input.labels.toolError} ${error.message}`,
      spent && talk.finalAnswer
    )
    if (!spent) return undefined
    // A model calling tools that do not exist often means to answer (`final_answer`, `answer`): told that
    // submit_answer is the way, and offered nothing else, it usually can.
    const end = ending("budget_exceeded", { error: `more than ${input.maxSteps} calls of unknown tools` })
    return talk.finalAnswer ? yield* askForAnswer(talk, end) : end
  })

/** A tool ran: the step is recorded and its output (with the observer's hint) answers the reply. */
const recordToolStep = <R>(
  talk: Conversation<R>,
  index: number,
  reply: Reply,
  parsed: Parsed,
  result: ToolResult
) =>
  Effect.gen(function*() {
    const { output, submission } = result
    const { action } = parsed.reply
    const hint = yield* talk.observer.afterTool({
      questionId: talk.input.questionId,
      index,
      tool: action.tool,
      args: action.args,
      output
    })
    const step = stepRecordOf(index, reply, parsed, output)
    talk.steps.push(step)
    yield* annotateSpan({ "vtree.step.tool": action.tool })
    const spent = submission === undefined && talk.steps.length >= talk.input.maxSteps
    answerReply(
      talk,
      reply.call,
      hint === undefined || hint === "" ? output : `${output}\n\n${hint}`,
      spent && talk.finalAnswer
    )
    yield* talk.observer.afterStep(talk.input.questionId, step)
    return submission === undefined ? undefined : ending("finished", { submission })
  })

/** Step `index`: the agent's call and the tool it names; an Ending when the question ends here. */
const runStep = <R>(talk: Conversation<R>, index: number) =>
  Effect.gen(function*() {
    yield* talk.observer.beforeStep({ questionId: talk.input.questionId, index, messages: [...talk.messages] })
    const reply = yield* askAgent(talk, talk.tools)
    talk.messages.push(reply.message)
    const { parsed } = reply
    if (parsed._tag === "Unparseable") return yield* rejectUnparseable(talk, reply.call, parsed.reason)
    talk.parseFailures = 0
    const result = yield* dispatchTool(talk, parsed.reply.action)
    if (Either.isLeft(result)) return yield* rejectUnknownTool(talk, reply.call, parsed.reply.action, result.left)
    return yield* recordToolStep(talk, index, reply, parsed, result.right)
  }).pipe(asStep(index))

/** Steps until one ends the question or the budget is spent; then, by default, one call for the answer. */
const runSteps = <R>(talk: Conversation<R>) =>
  Effect.gen(function*() {
    while (talk.steps.length < talk.input.maxSteps) {
      const end = yield* runStep(talk, talk.steps.length + 1)
      if (end !== undefined) return end
    }
    return talk.finalAnswer ? yield* askForAnswer(talk, ending("budget_exceeded")) : ending("budget_exceeded")
  })

/**
 * The reflect/plan/action loop of one question: each step a reply, a tool call and its result. Never
 * fails: every ending, including a provider giving up, is a Prediction with its stop reason. Every model
 * call made inside, by the agent or by any tool fiber, is added to the prediction's usage through the
 * call context.
 */
export const runAgentLoop = Effect.fn("AgentLoop.run")(function*<R>(input: AgentLoopInput<R>) {
  const llm = yield* LLMProvider
  const observer = Option.getOrElse(yield* Effect.serviceOption(AgentObserver), () => noopObserver)
  const talk = openConversation(input, llm, observer)
  const usage = emptyUsage()
  const end = yield* runSteps(talk).pipe(
    Effect.merge,
    withCallContext({ questionId: input.questionId, parentStep: null, usage })
  )
  const prediction = predictionOf(input, end, talk.steps, usage)
  yield* observer.onFinish(prediction)
  return prediction
})

/** The question's Prediction from how the loop ended, its steps and its usage. */
const predictionOf = <R>(
  input: AgentLoopInput<R>,
  end: Ending,
  steps: ReadonlyArray<StepRecord>,
  usage: UsageByRole
): Prediction => {
  const answer = end.submission?.answer ?? null
  const prediction: Prediction = {
    questionId: input.questionId,
    answer,
    prediction: answer === null ? null : normalizeAnswer(answer, input.options.length),
    evidence: end.submission?.evidence ?? null,
    reasoning: end.submission?.reasoning ?? null,
    steps,
    stepsUsed: steps.length,
    // A snapshot: the live objects belong to the call context and the tools.
    usage: structuredClone(usage),
    stats: { ...input.stats },
    stopReason: end.stopReason,
    ...(end.forced === true ? { forced: true } : {}),
    error: end.error ?? null,
    ...(end.providerError === undefined ? {} : { providerError: end.providerError })
  }
  return prediction
}
