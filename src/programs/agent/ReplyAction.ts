// What a JSON value in a reply says, read as the loop's own `{reflect, plan, action}` or as one of the
// function-call shapes of native tool calling.
import type { AgentAction, AgentReply } from "../../domain/Protocol.js"
import { isRecord, tryParse, tryRepair } from "./ReplyJson.js"

/** What a JSON value says, read as the loop's reply or as a function call. */
export type Reading =
  | { readonly _tag: "Action"; readonly reply: AgentReply; readonly functionCall: boolean }
  | { readonly _tag: "Invalid"; readonly reason: string }
  | { readonly _tag: "NotAnAction" }

// reflect/plan are prose to the loop; a model that writes a bare string there still gave us something.
export const asObject = (value: unknown): Readonly<Record<string, unknown>> =>
  value === undefined || value === null ? {} : isRecord(value) ? value : { text: value }

/** Arguments of a function call: an object, or (OpenAI's wire form) a JSON string holding one. */
export const callArguments = (value: unknown): Record<string, unknown> | undefined => {
  if (value === undefined || value === null) return {}
  if (isRecord(value)) return value
  if (typeof value === "string") {
    const parsed = value.trim() === "" ? { ok: true as const, value: {} } : tryParse(value)
    if (parsed.ok && isRecord(parsed.value)) return parsed.value
    const repaired = tryRepair(value)
    if (repaired.ok && isRecord(repaired.value)) return repaired.value
  }
  return undefined
}

export const actionFrom = (tool: string, args: Record<string, unknown>): AgentAction => ({ tool: tool.trim(), args })

/**
 * `{"name": "view_node", "arguments": {…}}` (OpenAI function call, Hermes/Qwen `<tool_call>` body),
 * `{"type": "function", "function": {…}}` (an OpenAI tool call), `{"tool_calls": [...]}` (a whole
 * assistant message) and `{"tool": …, "args": …}` without the action wrapper.
 */
const readFunctionCall = (value: Record<string, unknown>, context: Record<string, unknown>): Reading => {
  if (Array.isArray(value["tool_calls"])) return readFirst(value["tool_calls"], context)
  if (isRecord(value["function"])) return readFunctionCall(value["function"], context)
  const name = value["name"] ?? value["tool"]
  if (typeof name !== "string" || name.trim() === "") return { _tag: "NotAnAction" }
  const rawArgs = "arguments" in value ? value["arguments"] : "args" in value ? value["args"] : value["parameters"]
  const args = callArguments(rawArgs)
  if (args === undefined) return { _tag: "Invalid", reason: `the arguments of "${name.trim()}" are not a JSON object` }
  return {
    _tag: "Action",
    reply: { reflect: asObject(context["reflect"]), plan: asObject(context["plan"]), action: actionFrom(name, args) },
    functionCall: true
  }
}

export const readValue = (value: unknown): Reading => {
  if (Array.isArray(value)) return readFirst(value, {})
  if (!isRecord(value)) return { _tag: "NotAnAction" }
  const action = value["action"]
  if (action === undefined) return readFunctionCall(value, value)
  // LangChain-style `{"action": "view_node", "action_input": {…}}`.
  if (typeof action === "string" && action.trim() !== "" && "action_input" in value) {
    const args = callArguments(value["action_input"])
    if (args === undefined) return { _tag: "Invalid", reason: "\"action_input\" is not an object" }
    return {
      _tag: "Action",
      reply: { reflect: asObject(value["reflect"]), plan: asObject(value["plan"]), action: actionFrom(action, args) },
      functionCall: true
    }
  }
  if (!isRecord(action)) return { _tag: "Invalid", reason: "\"action\" is not an object with a \"tool\"" }
  const tool = action["tool"] ?? action["name"]
  if (typeof tool !== "string" || tool.trim() === "") return { _tag: "Invalid", reason: "missing action.tool" }
  let args: Record<string, unknown>
  const given = action["args"] ?? action["arguments"]
  if (given !== undefined && given !== null) {
    const decoded = callArguments(given)
    if (decoded === undefined) return { _tag: "Invalid", reason: "action.args is not an object" }
    args = decoded
  } else {
    // Models often flatten the args into the action. fromEntries defines own properties, so a
    // "__proto__" key stays data.
    args = Object.fromEntries(
      Object.entries(action).filter(([key]) =>
        key !== "tool" && key !== "name" && key !== "args" && key !== "arguments"
      )
    )
  }
  return {
    _tag: "Action",
    reply: { reflect: asObject(value["reflect"]), plan: asObject(value["plan"]), action: actionFrom(tool, args) },
    functionCall: false
  }
}

/** The first element of a list that reads as an action (a list of tool calls: take the first). */
function readFirst(values: ReadonlyArray<unknown>, context: Record<string, unknown>): Reading {
  let invalid: Reading | undefined
  for (const value of values) {
    const reading = isRecord(value) && value["action"] === undefined
      ? readFunctionCall(value, context)
      : readValue(value)
    if (reading._tag === "Action") return reading
    if (reading._tag === "Invalid") invalid ??= reading
  }
  return invalid ?? { _tag: "NotAnAction" }
}
