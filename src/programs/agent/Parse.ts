import { jsonrepair } from "jsonrepair"
import type { AgentAction, AgentReply, ParseResult, ReplyShape } from "../../domain/Protocol.js"

/**
 * Reads one agent reply. Pure and total: whatever the model sent, the answer is a value, never a throw.
 *
 * Models wrap the JSON the loop asks for in many ways, and each reading is recorded as a shape so a
 * report can show what a model does: reasoning in `<think>`-style blocks (kept as the thought), Markdown
 * fences, the function-call shapes of native tool calling (`{"name", "arguments"}`, `<tool_call>` tags),
 * several objects where one was asked for (the first action wins: it is the step the model would take
 * first), and replies cut off by the token limit (repaired when the action is complete).
 */

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const thinkTags = ["think", "thinking", "reasoning"] as const

interface Unthought {
  readonly text: string
  readonly thought: string | undefined
  /** A think block was opened and never closed: its end is wherever the JSON begins. */
  readonly openThought: boolean
}

/**
 * Removes reasoning blocks and keeps their text. Three forms occur: a closed block; a closing tag with
 * no opening one (chat templates that open the block for the model, so the reply starts inside it);
 * an opening tag that is never closed (a reply cut short, or a model that forgot).
 */
const stripThinking = (raw: string): Unthought => {
  const thoughts: Array<string> = []
  let text = raw
  for (const tag of thinkTags) {
    const closed = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "gi")
    text = text.replace(closed, (_, inner: string) => {
      thoughts.push(inner.trim())
      return "\n"
    })
  }
  let openThought = false
  for (const tag of thinkTags) {
    const close = text.search(new RegExp(`</${tag}>`, "i"))
    const open = text.search(new RegExp(`<${tag}>`, "i"))
    if (close >= 0 && (open < 0 || open > close)) {
      thoughts.unshift(text.slice(0, close).trim())
      text = text.slice(close + tag.length + 3)
    } else if (open >= 0 && text.slice(0, open).trim() === "") {
      text = text.slice(open + tag.length + 2)
      openThought = true
    }
  }
  const thought = thoughts.filter((part) => part !== "").join("\n\n")
  return { text, thought: thought === "" ? undefined : thought, openThought }
}

interface Span {
  readonly start: number
  /** Exclusive; the end of the text when the value was never closed. */
  readonly end: number
  readonly complete: boolean
}

/**
 * The top-level JSON-looking spans of a text: from an opening brace or bracket to its matching close,
 * with string contents skipped so a brace inside a string does not count.
 */
const jsonSpans = (text: string): ReadonlyArray<Span> => {
  const spans: Array<Span> = []
  let index = 0
  while (index < text.length) {
    const char = text[index]
    if (char !== "{" && char !== "[") {
      index += 1
      continue
    }
    const start = index
    let depth = 0
    let inString = false
    let end = -1
    for (; index < text.length; index += 1) {
      const c = text[index]
      if (inString) {
        if (c === "\\") index += 1
        else if (c === "\"") inString = false
      } else if (c === "\"") inString = true
      else if (c === "{" || c === "[") depth += 1
      else if (c === "}" || c === "]") {
        depth -= 1
        if (depth === 0) {
          end = index + 1
          break
        }
      }
    }
    if (end < 0) {
      spans.push({ start, end: text.length, complete: false })
      break
    }
    spans.push({ start, end, complete: true })
    index = end
  }
  return spans
}

// JSON.parse rather than Schema.parseJson: this lenient reader tries many candidate spans of a model's
// reply (then each again after jsonrepair) and only asks "is this JSON?"; the value found is decoded
// with the reply Schemas afterwards.
const tryParse = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const tryRepair = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)) }
  } catch {
    return { ok: false }
  }
}

/** What a JSON value says, read as the loop's reply or as a function call. */
type Reading =
  | { readonly _tag: "Action"; readonly reply: AgentReply; readonly functionCall: boolean }
  | { readonly _tag: "Invalid"; readonly reason: string }
  | { readonly _tag: "NotAnAction" }

// reflect/plan are prose to the loop; a model that writes a bare string there still gave us something.
const asObject = (value: unknown): Readonly<Record<string, unknown>> =>
  value === undefined || value === null ? {} : isRecord(value) ? value : { text: value }

/** Arguments of a function call: an object, or (OpenAI's wire form) a JSON string holding one. */
const callArguments = (value: unknown): Record<string, unknown> | undefined => {
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

const actionFrom = (tool: string, args: Record<string, unknown>): AgentAction => ({ tool: tool.trim(), args })

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

const readValue = (value: unknown): Reading => {
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
      Object.entries(action).filter(([key]) => key !== "tool" && key !== "name" && key !== "args" && key !== "arguments")
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
    const reading = isRecord(value) && value["action"] === undefined ? readFunctionCall(value, context) : readValue(value)
    if (reading._tag === "Action") return reading
    if (reading._tag === "Invalid") invalid ??= reading
  }
  return invalid ?? { _tag: "NotAnAction" }
}

interface Candidate {
  readonly text: string
  readonly complete: boolean
  readonly fenced: boolean
  readonly toolCallTag: boolean
}

const fenceBlock = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g
const toolCallBlock = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/gi

/**
 * The pieces of text that may hold the reply, in reading order: `<tool_call>` bodies, then the JSON
 * spans of the text as it stands (right even when a string inside holds a fence), then those of fenced
 * blocks.
 */
const candidatesOf = (text: string): ReadonlyArray<Candidate> => {
  const out: Array<Candidate> = []
  for (const match of text.matchAll(toolCallBlock)) {
    for (const span of jsonSpans(match[1] ?? "")) {
      out.push({ text: (match[1] ?? "").slice(span.start, span.end), complete: span.complete, fenced: false, toolCallTag: true })
    }
  }
  if (out.length > 0) return out
  for (const span of jsonSpans(text)) {
    out.push({ text: text.slice(span.start, span.end), complete: span.complete, fenced: false, toolCallTag: false })
  }
  for (const match of text.matchAll(fenceBlock)) {
    const body = match[1] ?? ""
    for (const span of jsonSpans(body)) {
      out.push({ text: body.slice(span.start, span.end), complete: span.complete, fenced: true, toolCallTag: false })
    }
  }
  return out
}

const isFencedReply = (text: string): boolean => /^\s*```/.test(text)

interface Found {
  readonly reading: Extract<Reading, { _tag: "Action" }>
  readonly candidate: Candidate
  readonly repaired: boolean
  readonly index: number
}

/** Every candidate that reads as an action, strict parses first, repairs only when none parses. */
const findActions = (candidates: ReadonlyArray<Candidate>): { readonly found: ReadonlyArray<Found>; readonly invalid: string | undefined } => {
  const found: Array<Found> = []
  let invalid: string | undefined
  candidates.forEach((candidate, index) => {
    if (!candidate.complete) return
    const parsed = tryParse(candidate.text)
    if (!parsed.ok) return
    const reading = readValue(parsed.value)
    if (reading._tag === "Action") found.push({ reading, candidate, repaired: false, index })
    else if (reading._tag === "Invalid") invalid ??= reading.reason
  })
  if (found.length > 0) return { found, invalid }
  candidates.forEach((candidate, index) => {
    if (candidate.complete && tryParse(candidate.text).ok) return
    if (!candidate.complete && !actionClosed(candidate.text)) {
      invalid ??= "the reply was cut off before its action was complete"
      return
    }
    const repaired = tryRepair(candidate.text)
    if (!repaired.ok) return
    const reading = readValue(repaired.value)
    if (reading._tag === "Action") found.push({ reading, candidate, repaired: true, index })
    else if (reading._tag === "Invalid") invalid ??= reading.reason
  })
  return { found, invalid }
}

const actionKey = /["']?(action|arguments|args|parameters|action_input)["']?\s*:\s*/g

/**
 * Whether a reply cut off mid-way still holds a whole action: the value of its action (or of a function
 * call's arguments) must be closed in the text itself. Repairing a cut inside the action would invent
 * its end — a tool name or a node id shortened into a different one.
 */
const actionClosed = (text: string): boolean => {
  for (const match of text.matchAll(actionKey)) {
    const at = (match.index ?? 0) + match[0].length
    const first = text[at]
    if (first === "{" || first === "[") {
      const span = jsonSpans(text.slice(at))[0]
      if (span !== undefined && span.start === 0 && span.complete) return true
    } else if (first === "\"") {
      if (/^"(?:[^"\\]|\\.)*"/.test(text.slice(at))) return true
    }
  }
  return false
}

/** A reply whose JSON is the whole text (fences aside) and in the loop's own shape. */
const isWholeText = (text: string, candidate: Candidate): boolean => {
  const body = isFencedReply(text) ? text.trim().replace(/^```[a-zA-Z0-9_-]*/, "").replace(/```$/, "") : text
  return body.trim() === candidate.text.trim()
}

export const parseAgentReply = (raw: string): ParseResult => {
  const { openThought, text: unthought, thought } = stripThinking(raw)
  const candidates = candidatesOf(unthought)
  const { found, invalid } = findActions(candidates)

  if (found.length === 0) {
    // Last resort, the whole text through the repair: single-quoted or key-unquoted JSON whose
    // strings hold brackets that the span scan pairs wrongly.
    const from = unthought.indexOf("{")
    const rest = from < 0 ? "" : unthought.slice(from)
    const whole = from >= 0 && (jsonSpans(rest)[0]?.complete === true || actionClosed(rest)) ? tryRepair(rest) : { ok: false as const }
    if (whole.ok) {
      const reading = readValue(whole.value)
      if (reading._tag === "Action") {
        return parsedResult(reading, [...(thought === undefined ? [] : ["think-stripped" as const]), "repaired"], thought)
      }
    }
    if (openThought && candidates.length === 0) {
      return { _tag: "Unparseable", reason: "the reply ends inside a reasoning block, before any JSON" }
    }
    if (candidates.length === 0) return { _tag: "Unparseable", reason: "no JSON object found" }
    return { _tag: "Unparseable", reason: invalid ?? "no JSON object with an action found" }
  }

  // An unclosed reasoning block ends where the reply's JSON begins; a draft inside it, if any, came
  // first, so the action the model settled on is the last one there.
  const chosen = openThought ? found[found.length - 1]! : found[0]!
  const shapes: Array<ReplyShape> = []
  if (thought !== undefined || openThought) shapes.push("think-stripped")
  if (chosen.candidate.fenced || isFencedReply(unthought)) shapes.push("fenced")
  if (chosen.reading.functionCall || chosen.candidate.toolCallTag) shapes.push("function-call")
  const distinct = new Set(found.map((f) => f.candidate.text.trim()))
  if (!openThought && distinct.size > 1) shapes.push("first-of-several")
  if (chosen.repaired) shapes.push("repaired")
  if (shapes.length === 0 && !isWholeText(unthought, chosen.candidate)) {
    // Prose around one object: read as it was meant, but not the clean form the prompt asks for.
    shapes.push("prose")
  }
  const openText = openThought ? unthought.slice(0, unthought.indexOf(chosen.candidate.text)).trim() : ""
  const fullThought = [thought, openText].filter((part) => part !== undefined && part !== "").join("\n\n")
  return parsedResult(chosen.reading, shapes.length === 0 ? ["clean"] : shapes, fullThought === "" ? undefined : fullThought)
}

const parsedResult = (
  reading: Extract<Reading, { _tag: "Action" }>,
  shapes: ReadonlyArray<ReplyShape>,
  thought: string | undefined
): ParseResult => ({
  _tag: "Parsed",
  reply: reading.reply,
  shapes,
  ...(thought === undefined ? {} : { thought })
})

/**
 * The first JSON object of a model's reply, read as leniently as agent replies are (reasoning blocks,
 * fences and prose around it ignored; invalid or cut-off JSON repaired), for callers that decode the
 * object with a Schema of their own (the tree builder's cards). Throws when there is no object.
 */
export const parseJson = (raw: string): unknown => {
  const { text } = stripThinking(raw)
  const objects = candidatesOf(text).filter((candidate) => candidate.text.startsWith("{"))
  for (const candidate of objects) {
    if (!candidate.complete) continue
    const parsed = tryParse(candidate.text)
    if (parsed.ok) return parsed.value
  }
  for (const candidate of objects) {
    const repaired = tryRepair(candidate.text)
    if (repaired.ok && typeof repaired.value === "object" && repaired.value !== null) return repaired.value
  }
  throw new Error(objects.length === 0 ? "no JSON object found" : "the JSON object could not be repaired")
}

/**
 * One reply of the tools protocol: the first native call is the action (its arguments read as leniently
 * as a JSON reply's, repaired when cut off), and the message text holds the reflect/plan notes, as JSON
 * or as prose, with any reasoning blocks kept as the thought. `calls` is how many calls the reply made.
 */
export const parseToolCall = (
  content: string,
  call: { readonly name: string; readonly arguments: string },
  calls: number
): ParseResult => {
  const name = call.name.trim()
  if (name === "") return { _tag: "Unparseable", reason: "the tool call names no function" }
  const args = callArguments(call.arguments)
  if (args === undefined) return { _tag: "Unparseable", reason: `the arguments of "${name}" are not a JSON object` }
  const { text, thought } = stripThinking(content)
  const notes = candidatesOf(text)
    .filter((candidate) => candidate.complete)
    .map((candidate) => tryParse(candidate.text))
    .find((parsed) => parsed.ok && isRecord(parsed.value))
  const object = notes?.ok === true && isRecord(notes.value) ? notes.value : undefined
  const prose = text.trim()
  const shapes: Array<ReplyShape> = ["function-call"]
  if (thought !== undefined) shapes.unshift("think-stripped")
  if (calls > 1) shapes.push("first-of-several")
  if (call.arguments.trim() !== "" && !tryParse(call.arguments).ok) shapes.push("repaired")
  return {
    _tag: "Parsed",
    reply: {
      // Notes in some other shape are kept whole as the reflection rather than dropped.
      reflect: object === undefined
        ? prose === "" ? {} : { text: prose }
        : "reflect" in object || "plan" in object
        ? asObject(object["reflect"])
        : object,
      plan: object === undefined ? {} : asObject(object["plan"]),
      action: actionFrom(name, args)
    },
    shapes,
    ...(thought === undefined ? {} : { thought })
  }
}
