// Where the JSON is in a model's reply: reasoning blocks lifted out, the top-level JSON spans found
// (in the text, in fences, in `<tool_call>` tags), parsed strictly or repaired. What the JSON says is
// ReplyAction.ts's business.
import { jsonrepair } from "jsonrepair"

export const isRecord = (value: unknown): value is Record<string, unknown> =>
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
export const stripThinking = (raw: string): Unthought => {
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
export const jsonSpans = (text: string): ReadonlyArray<Span> => {
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
export const tryParse = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

export const tryRepair = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)) }
  } catch {
    return { ok: false }
  }
}

export interface Candidate {
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
export const candidatesOf = (text: string): ReadonlyArray<Candidate> => {
  const out: Array<Candidate> = []
  for (const match of text.matchAll(toolCallBlock)) {
    for (const span of jsonSpans(match[1] ?? "")) {
      out.push({
        text: (match[1] ?? "").slice(span.start, span.end),
        complete: span.complete,
        fenced: false,
        toolCallTag: true
      })
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

export const isFencedReply = (text: string): boolean => /^\s*```/.test(text)

const actionKey = /["']?(action|arguments|args|parameters|action_input)["']?\s*:\s*/g

/**
 * Whether a reply cut off mid-way still holds a whole action: the value of its action (or of a function
 * call's arguments) must be closed in the text itself. Repairing a cut inside the action would invent
 * its end — a tool name or a node id shortened into a different one.
 */
export const actionClosed = (text: string): boolean => {
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
