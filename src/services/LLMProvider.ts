import { Context, type Effect } from "effect"
import type { ProviderError } from "../domain/ProviderError.js"

/** A function call the model made (native tool calling); `arguments` is JSON text as the model wrote it. */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** A function the model may call: its arguments as a JSON Schema. */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

export type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  /** `toolCalls`: the calls the model made in this reply, sent back as they came. */
  | { readonly role: "assistant"; readonly content: string; readonly toolCalls?: ReadonlyArray<ToolCall> }
  /** A tool's output, answering the call `toolCallId` of the assistant message before it. */
  | { readonly role: "tool"; readonly content: string; readonly toolCallId: string }

/** agent = the reasoning model (thinking on); tool = the summarizer model (thinking off). */
export type LlmRole = "agent" | "tool"

export interface ChatRequest {
  readonly role: LlmRole
  readonly messages: ReadonlyArray<ChatMessage>
  readonly thinking?: boolean
  readonly maxTokens?: number
  readonly temperature?: number
  /** Functions the model may call natively; absent → a plain chat request. */
  readonly tools?: ReadonlyArray<ToolDefinition>
}

export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, those the server read from its prefix cache; absent when it does not say. */
  readonly cachedPromptTokens?: number
  /** Of completionTokens, those spent thinking; absent when the server does not say. */
  readonly reasoningTokens?: number
}

/** Parts of a call's token counts (each a subset of its prompt or completion tokens); absent: not reported. */
export interface TokenBreakdown {
  readonly cacheWriteInput?: number
  readonly textInput?: number
  readonly imageInput?: number
  readonly audioInput?: number
  readonly videoInput?: number
  readonly textOutput?: number
  readonly audioOutput?: number
}

export interface ChatResponse {
  readonly content: string
  /** The provider's reasoning text, when it returns one. Recorded, never fed back to the model. */
  readonly reasoning?: string
  /** The functions the model called, in order (only when the request offered tools). */
  readonly toolCalls?: ReadonlyArray<ToolCall>
  readonly usage: Usage
  readonly model: string
  /** Cache writes and counts by modality, when the server reports them: for the call's span, never stored. */
  readonly tokenBreakdown?: TokenBreakdown
}

export class LLMProvider extends Context.Tag("vtree/LLMProvider")<
  LLMProvider,
  {
    readonly chat: (request: ChatRequest) => Effect.Effect<ChatResponse, ProviderError>
  }
>() {}
