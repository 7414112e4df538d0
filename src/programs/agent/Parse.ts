import type { ParseResult, ReplyShape } from "../../domain/Protocol.js"
import { actionFrom, asObject, callArguments, type Reading, readValue } from "./ReplyAction.js"
import {
  actionClosed,
  type Candidate,
  candidatesOf,
  isFencedReply,
  isRecord,
  jsonSpans,
  stripThinking,
  tryParse,
  tryRepair
} from "./ReplyJson.js"

/**
 * Reads one agent reply. Pure and total: whatever the model sent, the answer is a value, never a throw.
 *
 * Models wrap the JSON the loop asks for in many ways, and each reading is recorded as a shape so a
 * report can show what a model does: reasoning in `<think>`-style blocks (kept as the thought), Markdown
 * fences, the function-call shapes of native tool calling (`{"name", "arguments"}`, `<tool_call>` tags),
 * several objects where one was asked for (the first action wins: it is the step the model would take
 * first), and replies cut off by the token limit (repaired when the action is complete).
 */

interface Found {
  readonly reading: Extract<Reading, { _tag: "Action" }>
  readonly candidate: Candidate
  readonly repaired: boolean
  readonly index: number
}

/** Every candidate that reads as an action, strict parses first, repairs only when none parses. */
const findActions = (
  candidates: ReadonlyArray<Candidate>
): { readonly found: ReadonlyArray<Found>; readonly invalid: string | undefined } => {
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
    const whole = from >= 0 && (jsonSpans(rest)[0]?.complete === true || actionClosed(rest))
      ? tryRepair(rest)
      : { ok: false as const }
    if (whole.ok) {
      const reading = readValue(whole.value)
      if (reading._tag === "Action") {
        return parsedResult(
          reading,
          [...(thought === undefined ? [] : ["think-stripped" as const]), "repaired"],
          thought
        )
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
  return parsedResult(
    chosen.reading,
    shapes.length === 0 ? ["clean"] : shapes,
    fullThought === "" ? undefined : fullThought
  )
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
