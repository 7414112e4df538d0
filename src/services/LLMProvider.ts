import { Context, type Effect } from "effect"
import type { ProviderError } from "../domain/ProviderError.js"

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** agent = the reasoning model (thinking on); tool = the summarizer model (thinking off). */
export type LlmRole = "agent" | "tool"

export interface ChatRequest {
  readonly role: LlmRole
  readonly messages: ReadonlyArray<ChatMessage>
  readonly thinking?: boolean
  readonly maxTokens?: number
  readonly temperature?: number
}

export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, those the server read from its prefix cache; absent when it does not say. */
  readonly cachedPromptTokens?: number
  /** Of completionTokens, those spent thinking; absent when the server does not say. */
  readonly reasoningTokens?: number
}

export interface ChatResponse {
  readonly content: string
  /** The provider's reasoning text, when it returns one. Recorded, never fed back to the model. */
  readonly reasoning?: string
  readonly usage: Usage
  readonly model: string
}

export class LLMProvider extends Context.Tag("vtree/LLMProvider")<
  LLMProvider,
  {
    readonly chat: (request: ChatRequest) => Effect.Effect<ChatResponse, ProviderError>
  }
>() {}
