/**
 * The agent: answer one multiple-choice question about a video by searching its tree. Needs an
 * `LLMProvider` and a `VLMProvider` (and a `CallLog` to see the calls), a loaded tree and a prompt pack.
 */
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
