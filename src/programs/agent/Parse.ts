import { jsonrepair } from "jsonrepair"
import type { AgentReply, ParseResult } from "../../domain/Protocol.js"

const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The outermost object of a text; an unclosed one runs to the end, for jsonrepair to close. */
const outerObject = (text: string): string => {
  const start = text.indexOf("{")
  const end = text.lastIndexOf("}")
  if (start < 0) return text.trim()
  return end > start ? text.slice(start, end + 1) : text.slice(start)
}

/**
 * Strict parses first, repairs second: the outermost object of the whole reply (right even when a
 * string inside holds a fence), then the fenced block; only then jsonrepair, fenced block first.
 */
export const parseJson = (text: string): unknown => {
  const fenced = fence.exec(text)?.[1]
  const candidates = [outerObject(text), ...(fenced !== undefined && fenced.includes("{") ? [outerObject(fenced)] : [])]
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate)
    } catch {
      // try the next reading
    }
  }
  return JSON.parse(jsonrepair(candidates[candidates.length - 1]!))
}

// reflect/plan are prose to the loop; a model that writes a bare string there still gave us something.
const asObject = (value: unknown): Readonly<Record<string, unknown>> =>
  value === undefined || value === null ? {} : isRecord(value) ? value : { text: value }

/**
 * Reads one agent reply. Pure and total: whatever the model sent, the answer is a value, never a throw.
 * An action without `args` has its other keys taken as the args (models often flatten them).
 */
export const parseAgentReply = (raw: string): ParseResult => {
  let value: unknown
  try {
    value = parseJson(raw)
  } catch (error) {
    return { _tag: "Unparseable", reason: `not JSON: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (!isRecord(value)) return { _tag: "Unparseable", reason: "the reply is not a JSON object" }
  const action = value["action"]
  if (!isRecord(action)) return { _tag: "Unparseable", reason: "missing \"action\" object" }
  const tool = action["tool"]
  if (typeof tool !== "string" || tool.trim() === "") {
    return { _tag: "Unparseable", reason: "missing \"action.tool\" string" }
  }
  let args: Record<string, unknown>
  if ("args" in action && action["args"] !== undefined && action["args"] !== null) {
    if (!isRecord(action["args"])) return { _tag: "Unparseable", reason: "\"action.args\" is not an object" }
    args = action["args"]
  } else {
    // fromEntries defines own properties, so a "__proto__" key stays data.
    args = Object.fromEntries(Object.entries(action).filter(([key]) => key !== "tool" && key !== "args"))
  }
  const reply: AgentReply = {
    reflect: asObject(value["reflect"]),
    plan: asObject(value["plan"]),
    action: { tool: tool.trim(), args }
  }
  return { _tag: "Parsed", reply }
}
