import { Effect, Layer } from "effect"
import { type ChatRequest, type ChatResponse, LLMProvider, type ToolCall } from "../../services/LLMProvider.js"
import {
  approximateTokens,
  type ChatReply,
  makeScriptedChat,
  type Script,
  type ScriptedChatOptions,
  type ScriptedFake
} from "./Scripted.js"

/** A reply: a full ChatResponse, just the content, or a ProviderError to fail with. */
export type LlmReply = ChatReply

/** `model`: the reported model name for string replies (default "scripted-llm"). */
export type ScriptedLlmOptions = ScriptedChatOptions

/** The fake, its Layer, and every request received so far, in order. */
export type ScriptedLlm = ScriptedFake<LLMProvider, LLMProvider["Type"], ChatRequest>

/**
 * A scripted LLMProvider that also hands back what it was asked:
 *   const llm = yield* ScriptedLlm.make(['{"action": …}', new ProviderError({…})])
 */
export const make = (script: Script<ChatRequest, LlmReply>, options: ScriptedLlmOptions = {}) =>
  Effect.gen(function*() {
    const model = options.model ?? "scripted-llm"
    const engine = yield* makeScriptedChat<ChatRequest>({
      name: "ScriptedLlm",
      role: (request) => request.role,
      model,
      script,
      latency: options.latency,
      promptTokens: (request) => request.messages.reduce((sum, message) => sum + approximateTokens(message.content), 0)
    })
    const service = LLMProvider.of({ chat: engine.call })
    return { service, layer: Layer.succeed(LLMProvider, service), requests: engine.requests } satisfies ScriptedLlm
  })

/**
 * A reply of the tools protocol: native calls (`[name, args]` pairs, ids `call_1`, `call_2`, …; args
 * given as text are sent as written, e.g. cut-off JSON) with optional message text and reasoning.
 */
export const toolCallReply = (
  calls: ReadonlyArray<readonly [name: string, args: Readonly<Record<string, unknown>> | string]>,
  options: { readonly content?: string; readonly reasoning?: string; readonly model?: string } = {}
): ChatResponse => {
  const toolCalls: ReadonlyArray<ToolCall> = calls.map(([name, args], index) => ({
    id: `call_${index + 1}`,
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args)
  }))
  const content = options.content ?? ""
  return {
    content,
    ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
    toolCalls,
    usage: {
      promptTokens: 0,
      completionTokens: approximateTokens(content) +
        toolCalls.reduce((sum, call) => sum + approximateTokens(call.arguments) + 1, 0)
    },
    model: options.model ?? "scripted-llm"
  }
}

/** One line to provide: `Effect.provide(ScriptedLlm.layer(["reply 1", "reply 2"]))`. */
export const layer = (
  script: Script<ChatRequest, LlmReply>,
  options: ScriptedLlmOptions = {}
): Layer.Layer<LLMProvider> => Layer.effect(LLMProvider, Effect.map(make(script, options), (fake) => fake.service))
