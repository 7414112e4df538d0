import { Effect, Either, Option, Schedule } from "effect"
import { normalizeAnswer } from "../../domain/Answer.js"
import type { Prediction, StepRecord, StopReason } from "../../domain/Prediction.js"
import type { ParseResult } from "../../domain/Protocol.js"
import { isRetryable, type ProviderError } from "../../domain/ProviderError.js"
import { agentDefaults } from "../../domain/RunConfig.js"
import { emptyUsage, type UsageByRole, withCallContext } from "../../services/CallLog.js"
import { type ChatMessage, type ChatResponse, LLMProvider, type ToolCall } from "../../services/LLMProvider.js"
import type { Labels } from "../prompts/PromptManager.js"
import { fillPlaceholders } from "../prompts/SystemPrompt.js"
import type { Dispatcher, Submission } from "../tools/Dispatcher.js"
import type { MutableToolStats } from "../tools/ToolContext.js"
import { AgentObserver, noopObserver } from "./Observer.js"
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
const inStepSpan = (index: number) => Effect.withSpan(`step ${index}`, { attributes: { "vtree.step": index } })

/**
 * The reflect/plan/action loop of one question: each step a reply, a tool call and its result. Never
 * fails: every ending, including a provider giving up, is a Prediction with its stop reason. Every model
 * call made inside, by the agent or by any tool fiber, is added to the prediction's usage through the
 * call context.
 */
export const runAgentLoop = Effect.fn("AgentLoop.run")(function*<R>(input: AgentLoopInput<R>) {
  const llm = yield* LLMProvider
  const observer = Option.getOrElse(yield* Effect.serviceOption(AgentObserver), () => noopObserver)
  const schedule = input.retrySchedule ?? stepRetrySchedule
  const tools = (input.protocol ?? defaultProtocol) === "tools" ? input.dispatcher.definitions : undefined
  const usage = emptyUsage()
  const steps: Array<StepRecord> = []
  const messages: Array<ChatMessage> = [
    {
      role: "system",
      content: tools === undefined
        ? input.systemPrompt
        : `${input.systemPrompt.trimEnd()}\n\n${input.labels.toolsProtocolNote}\n`
    },
    { role: "user", content: input.userPrompt }
  ]

  const finalAnswer = input.finalAnswer ?? agentDefaults.finalAnswer
  const finalNote = tools === undefined ? input.labels.finalAnswerMessage : input.labels.finalAnswerCallMessage

  /** One agent call of step `index`, retried on transient failures; a failure that stays is the `error` ending. */
  const ask = (index: number, offered: typeof tools) =>
    llm.chat({
      role: "agent",
      thinking: true,
      messages: [...messages],
      ...(offered === undefined ? {} : { tools: offered })
    }).pipe(
      Effect.retry({ schedule, while: isRetryable }),
      withCallContext({ parentStep: index }),
      Effect.mapError((failure) =>
        ending("error", {
          error: `${failure.provider}: ${failure.reason}: ${failure.message}`,
          providerError: { provider: failure.provider, reason: failure.reason, status: failure.status ?? null }
        })
      ),
      Effect.map((response) => ({ response, ...(tools === undefined ? readJsonReply : readToolReply)(response) }))
    )

  /**
   * The budget is spent (the note asking for the answer is already in the history): one more call, in
   * which submit_answer is the only tool offered and the only one run. A submission is the answer,
   * forced; anything else leaves the question as `spent` ended it, unanswered, with the reason said.
   */
  const askForAnswer = (spent: Ending) =>
    Effect.gen(function*() {
      const index = steps.length + 1
      yield* observer.beforeStep({ questionId: input.questionId, index, messages: [...messages] })
      const read = yield* ask(index, tools?.filter((tool) => tool.name === submitAnswerTool))
      const refused = (why: string) =>
        ending(spent.stopReason, {
          error: [spent.error, `the final-answer reply was not a submission: ${why}`].filter(Boolean).join("; ")
        })
      if (read.parsed._tag === "Unparseable") return refused(read.parsed.reason)
      const { action } = read.parsed.reply
      if (action.tool !== submitAnswerTool) return refused(`it called ${action.tool}`)
      const result = yield* input.dispatcher.dispatch(action).pipe(
        withCallContext({ parentStep: index }),
        Effect.either
      )
      if (Either.isLeft(result)) return refused(result.left.message)
      const { output, submission } = result.right
      if (submission === undefined) return refused(output)
      const step: StepRecord = {
        index,
        thought: read.response.reasoning ?? read.parsed.thought ?? null,
        reflect: read.parsed.reply.reflect,
        plan: read.parsed.reply.plan,
        tool: action.tool,
        args: action.args,
        output,
        raw: read.raw,
        replyShapes: read.parsed.shapes
      }
      steps.push(step)
      yield* observer.afterStep(input.questionId, step)
      return ending(spent.stopReason, { ...spent, submission, forced: true })
    }).pipe(inStepSpan(steps.length + 1))

  let parseFailures = 0
  let unknownCalls = 0
  /** Step `index`: the agent's call and the tool it names; an Ending when the question ends here. */
  const runStep = (index: number) =>
    Effect.gen(function*() {
      yield* observer.beforeStep({ questionId: input.questionId, index, messages: [...messages] })
      const { call, message, parsed, raw, response } = yield* ask(index, tools)
      messages.push(message)
      // A call must be answered by a tool message naming it; anything else goes back as the user. With
      // `last`, the note asking for the final answer follows: in the same user turn (json, so turns keep
      // alternating for chat templates that insist), or as a user turn after the tool message.
      const answer = (content: string, last = false) => {
        if (call === undefined) {
          messages.push({ role: "user", content: last ? `${content}\n\n${finalNote}` : content })
          return
        }
        messages.push({ role: "tool", toolCallId: call.id, content })
        if (last) messages.push({ role: "user", content: finalNote })
      }
      if (parsed._tag === "Unparseable") {
        parseFailures += 1
        input.stats.parseFailures += 1
        yield* Effect.annotateCurrentSpan("vtree.step.rejected", "unparseable")
        if (parseFailures >= maxParseFailures) {
          return ending("parse_error", {
            error: `${maxParseFailures} unparseable replies in a row; last: ${parsed.reason}`
          })
        }
        // Naming what was wrong lets the model fix that one thing rather than guess.
        answer(
          tools === undefined
            ? fillPlaceholders(input.labels.parseErrorMessage, { reason: parsed.reason })
            : call === undefined
            ? fillPlaceholders(input.labels.noToolCallMessage, { reason: parsed.reason })
            : `${input.labels.toolError} ${parsed.reason}`
        )
        return undefined
      }
      parseFailures = 0
      const { action } = parsed.reply
      const result = yield* input.dispatcher.dispatch(action).pipe(
        withCallContext({ parentStep: index }),
        Effect.either
      )
      if (Either.isLeft(result)) {
        // Not a step, but bounded: a model stuck on a tool that does not exist must still stop.
        unknownCalls += 1
        input.stats.unknownTools += 1
        yield* Effect.annotateCurrentSpan("vtree.step.rejected", "unknown_tool")
        const spent = unknownCalls > input.maxSteps
        answer(
          // The pack's message asks for a corrected JSON reply; a native call is told in the tool-error form.
          call === undefined
            ? fillPlaceholders(input.labels.unknownToolMessage, {
              tool: action.tool,
              tools: input.dispatcher.toolNames.join(", ")
            })
            : `${input.labels.toolError} ${result.left.message}`,
          spent && finalAnswer
        )
        if (spent) {
          // A model calling tools that do not exist often means to answer (`final_answer`, `answer`):
          // told that submit_answer is the way, and offered nothing else, it usually can.
          const end = ending("budget_exceeded", { error: `more than ${input.maxSteps} calls of unknown tools` })
          return finalAnswer ? yield* askForAnswer(end) : end
        }
        return undefined
      }
      const { output, submission } = result.right
      const hint = yield* observer.afterTool({
        questionId: input.questionId,
        index,
        tool: action.tool,
        args: action.args,
        output
      })
      const step: StepRecord = {
        index,
        // Reasoning the endpoint sent apart wins; otherwise what the parser lifted out of think tags.
        thought: response.reasoning ?? parsed.thought ?? null,
        reflect: parsed.reply.reflect,
        plan: parsed.reply.plan,
        tool: action.tool,
        args: action.args,
        output,
        raw,
        replyShapes: parsed.shapes
      }
      steps.push(step)
      yield* Effect.annotateCurrentSpan("vtree.step.tool", action.tool)
      const spent = submission === undefined && steps.length >= input.maxSteps
      answer(hint === undefined || hint === "" ? output : `${output}\n\n${hint}`, spent && finalAnswer)
      yield* observer.afterStep(input.questionId, step)
      if (submission !== undefined) return ending("finished", { submission })
      return undefined
    }).pipe(inStepSpan(index))

  const loop = Effect.gen(function*() {
    while (steps.length < input.maxSteps) {
      const end = yield* runStep(steps.length + 1)
      if (end !== undefined) return end
    }
    return finalAnswer ? yield* askForAnswer(ending("budget_exceeded")) : ending("budget_exceeded")
  })

  const end = yield* loop.pipe(
    Effect.merge,
    withCallContext({ questionId: input.questionId, parentStep: null, usage })
  )
  const prediction = predictionOf(input, end, steps, usage)
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
