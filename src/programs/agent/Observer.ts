import { Context, Effect } from "effect"
import type { Prediction, StepRecord } from "../../domain/Prediction.js"
import type { ChatMessage } from "../../services/LLMProvider.js"

export interface StepStart {
  readonly questionId: string
  /** The index the step will have if the reply is a valid call. */
  readonly index: number
  readonly messages: ReadonlyArray<ChatMessage>
}

export interface ToolEvent {
  readonly questionId: string
  readonly index: number
  readonly tool: string
  readonly args: Readonly<Record<string, unknown>>
  readonly output: string
}

/**
 * Hooks around the agent loop: progress displays, trajectory recorders, and hint givers (afterTool's
 * text is appended to the tool result the agent reads). Optional: without one the loop runs as is.
 */
export interface AgentObserverShape {
  readonly beforeStep: (event: StepStart) => Effect.Effect<void>
  /** A hint for the agent, or undefined for none. */
  readonly afterTool: (event: ToolEvent) => Effect.Effect<string | undefined>
  readonly afterStep: (questionId: string, step: StepRecord) => Effect.Effect<void>
  readonly onFinish: (prediction: Prediction) => Effect.Effect<void>
}

export class AgentObserver extends Context.Tag("vtree/AgentObserver")<AgentObserver, AgentObserverShape>() {}

export const noopObserver: AgentObserverShape = {
  beforeStep: () => Effect.void,
  afterTool: () => Effect.succeed(undefined),
  afterStep: () => Effect.void,
  onFinish: () => Effect.void
}

/** An observer with only the hooks you care about; the rest do nothing. */
export const makeObserver = (hooks: Partial<AgentObserverShape>): AgentObserverShape => ({ ...noopObserver, ...hooks })
