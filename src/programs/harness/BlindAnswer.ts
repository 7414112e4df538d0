// The blind control's answer to one question (`vtree infer --control blind`): one agent-model call with the
// pack's blind.md, the question and its options alone — no tree, no node id, no tool — its reply read by the
// same answer normalizer as a submitted answer. What a model knows without the video.
import { Effect, Either, type Schedule } from "effect"
import { normalizeAnswer } from "../../domain/Answer.js"
import { emptyToolStats, type Prediction } from "../../domain/Prediction.js"
import { isRetryable, type ProviderError } from "../../domain/ProviderError.js"
import { emptyUsage, withCallContext } from "../../services/CallLog.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { stepRetrySchedule } from "../agent/AgentLoop.js"
import { stripThinking } from "../agent/ReplyJson.js"
import type { QuestionInput } from "../agent/RunQuestion.js"
import { renderBlindPrompt } from "../prompts/BlindPrompt.js"
import type { PromptManager } from "../prompts/PromptManager.js"

/**
 * How a control run answers a question without the agent (blind: one model call; chance: no call): the harness
 * asks it instead of loading a tree. Never fails: trouble is an `error` prediction.
 */
export interface ControlAnswering {
  readonly controlAnswer?: (question: QuestionInput) => Effect.Effect<Prediction, never, LLMProvider>
}

export interface BlindOptions {
  /** The pack's blind.md (BlindPrompt.loadBlindPrompt). */
  readonly template: string
  readonly prompts: PromptManager
  /** Overrides the agent's step-level retry (20 s, then 40 s). */
  readonly retrySchedule?: Schedule.Schedule<unknown, ProviderError>
}

// A reply is kept whole as the reasoning; this much is enough to see why it named no letter.
const shownReply = 200

/** The prediction of a blind reply: its letter by the official rule, the reply (thinking aside) as its reasoning. */
export const blindPrediction = (
  question: QuestionInput,
  reply: string,
  usage: Prediction["usage"]
): Prediction => {
  const text = stripThinking(reply).text.trim()
  // An open-ended question has no options: no letter, the reply kept whole as its answer.
  const letter = normalizeAnswer(text, question.options?.length ?? 0)
  return {
    questionId: question.questionId,
    answer: text,
    prediction: letter,
    evidence: null,
    reasoning: text === "" ? null : text,
    steps: [],
    stepsUsed: 0,
    usage,
    stats: emptyToolStats(),
    stopReason: letter === null ? "parse_error" : "finished",
    error: letter === null
      ? `the blind reply names no option letter: ${JSON.stringify(text.slice(0, shownReply))}`
      : null
  }
}

/** One question, blind: one agent call (retried as an agent step is), counted to the question's usage. */
export const blindAnswer = Effect.fn("BlindAnswer.answer")(function*(question: QuestionInput, options: BlindOptions) {
  const llm = yield* LLMProvider
  const usage = emptyUsage()
  const reply = yield* llm.chat({
    role: "agent",
    thinking: true,
    messages: [{ role: "user", content: renderBlindPrompt(options.template, options.prompts, question) }]
  }).pipe(
    Effect.retry({ schedule: options.retrySchedule ?? stepRetrySchedule, while: isRetryable }),
    Effect.either,
    withCallContext({ questionId: question.questionId, parentStep: null, usage })
  )
  if (Either.isRight(reply)) return blindPrediction(question, reply.right.content, structuredClone(usage))
  const failure = reply.left
  const prediction: Prediction = {
    ...blindPrediction(question, "", structuredClone(usage)),
    answer: null,
    stopReason: "error",
    error: `${failure.provider}: ${failure.reason}: ${failure.message}`,
    providerError: { provider: failure.provider, reason: failure.reason, status: failure.status ?? null }
  }
  return prediction
})
