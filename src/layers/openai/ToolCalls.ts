import { Schema } from "effect"
import type { ChatMessage, ToolCall, ToolDefinition } from "../../services/LLMProvider.js"

// Native function calling in the chat-completions wire format: the request's `tools`, the history's
// assistant `tool_calls` and `tool` messages, and the reply's `tool_calls` (whole or streamed).

/** OpenAI sends `arguments` as JSON text; some compatible servers (Ollama) send the object itself. */
const Arguments = Schema.optional(
  Schema.NullOr(Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.Unknown })))
)

/** One call of a reply message. */
export const WireToolCall = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.String)),
  function: Schema.Struct({ name: Schema.String, arguments: Arguments }).annotations({ identifier: "Function" })
}).annotations({ identifier: "ToolCall" })
export type WireToolCall = typeof WireToolCall.Type

/** A streamed piece of a call: the first piece of call `index` names it, later ones add argument text. */
export const WireToolCallDelta = Schema.Struct({
  index: Schema.optional(Schema.NullOr(Schema.Number)),
  id: Schema.optional(Schema.NullOr(Schema.String)),
  function: Schema.optional(
    Schema.NullOr(Schema.Struct({ name: Schema.optional(Schema.NullOr(Schema.String)), arguments: Arguments }))
  )
}).annotations({ identifier: "ToolCallDelta" })
export type WireToolCallDelta = typeof WireToolCallDelta.Type

const argumentsText = (value: WireToolCall["function"]["arguments"]): string =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value)

/** The calls of a reply message; a server that sends no id gets a stable one, since the answer must name it. */
export const readToolCalls = (calls: ReadonlyArray<WireToolCall> | null | undefined): ReadonlyArray<ToolCall> =>
  (calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    name: call.function.name,
    arguments: argumentsText(call.function.arguments)
  }))

/** Streamed call pieces joined per index, in order: a name once, the argument text in pieces. */
export const foldToolCallDeltas = (deltas: ReadonlyArray<WireToolCallDelta>): ReadonlyArray<WireToolCall> => {
  const calls = new Map<number, { id: string | null; name: string; arguments: string }>()
  let last = 0
  for (const delta of deltas) {
    const index = delta.index ?? last
    last = index
    const call = calls.get(index) ?? { id: null, name: "", arguments: "" }
    if (typeof delta.id === "string" && delta.id !== "") call.id = delta.id
    if (typeof delta.function?.name === "string") call.name += delta.function.name
    call.arguments += argumentsText(delta.function?.arguments)
    calls.set(index, call)
  }
  return [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, function: { name: call.name, arguments: call.arguments } }))
}

/** The request's `tools` field, absent when no tools are offered. */
export const toolsField = (tools: ReadonlyArray<ToolDefinition> | undefined): Record<string, unknown> =>
  tools === undefined || tools.length === 0 ? {} : {
    tools: tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters }
    }))
  }

/** One history message on the wire. */
export const wireMessage = (message: ChatMessage): Record<string, unknown> => {
  switch (message.role) {
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
    case "assistant":
      return message.toolCalls === undefined || message.toolCalls.length === 0
        ? { role: "assistant", content: message.content }
        : {
          role: "assistant",
          // null rather than "": some servers refuse an empty text next to tool calls.
          content: message.content === "" ? null : message.content,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.arguments }
          }))
        }
    default:
      return { role: message.role, content: message.content }
  }
}
