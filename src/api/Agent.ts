/**
 * The agent: answer one question about a video by searching its tree: a multiple-choice question (an option
 * letter, `prediction`), or an open-ended one, without options (free text, `answer` whole; `answerFormOf`
 * says how an answer read). Needs an
 * `LLMProvider` and a `VLMProvider` (and a `CallLog` to see the calls), a loaded tree and a prompt pack.
 */
export { answerFormOf, normalizeAnswer } from "../domain/Answer.js"
export { AnswerForm } from "../domain/AnswerForm.js"
export { Prediction, StepRecord, StopReason } from "../domain/Prediction.js"
export type { AgentProtocol } from "../programs/agent/AgentLoop.js"
export {
  AgentObserver,
  type AgentObserverShape,
  makeObserver,
  type StepStart,
  type ToolEvent
} from "../programs/agent/Observer.js"
export { type QuestionInput, runQuestion, type RunQuestionOptions } from "../programs/agent/RunQuestion.js"
export { defaultMaxSteps } from "../programs/prompts/SystemPrompt.js"
