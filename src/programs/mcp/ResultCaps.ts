import type { JsonObject, McpContent, McpTool, ToolReply } from "./McpTool.js"

/**
 * What an MCP host accepts from one tool call: about 1 MB per result (Claude Desktop), 50,000
 * characters of text before Claude Code writes the result to a file instead (a tool may declare more
 * with `anthropic/maxResultSizeChars`, up to its 25,000-token cap) and 16 images. A result over a limit
 * is cut here, and the cut is said in the result, never silent.
 */
export const resultLimits = {
  /** The whole result as JSON: text, images (base64) and structured content together. */
  maxBytes: 1_000_000,
  /** All text content together, unless the tool declares more. */
  maxTextChars: 50_000,
  maxImages: 16
} as const

export type ResultLimits = { readonly [K in keyof typeof resultLimits]: number }

/** The `_meta` key with which a tool tells Claude Code how many characters of text its results may hold. */
export const maxResultSizeKey = "anthropic/maxResultSizeChars"

/** A resource is read on demand, not pasted into the conversation: it keeps the larger budget. */
export const maxResourceChars = 80_000

/** A tool's limits: the host's defaults, with the text budget its `_meta` declares when that is larger. */
export const limitsOf = (meta: JsonObject | undefined): ResultLimits => {
  const declared = meta?.[maxResultSizeKey]
  return typeof declared === "number" && declared > resultLimits.maxTextChars
    ? { ...resultLimits, maxTextChars: declared }
    : resultLimits
}

/** `capReply` within what `tool` declares. */
export const capToolReply = <R>(tool: McpTool<R>) => (reply: ToolReply): ToolReply =>
  capReply(reply, limitsOf(tool.meta))

const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/** Cuts `text` to `maxChars` (never inside a surrogate pair); how many characters were cut. */
export const capText = (text: string, maxChars: number): { readonly text: string; readonly cut: number } => {
  if (text.length <= maxChars) return { text, cut: 0 }
  let end = Math.max(0, maxChars)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return { text: text.slice(0, end), cut: text.length - end }
}

const cutNote = (
  what: string,
  cut: number,
  total: number,
  limit: string,
  instead = "ask for less (a narrower range, fewer ids)"
) => `[vtree: ${cut} of ${total} ${what} not shown — the result limit is ${limit}; ${instead}]`

/**
 * A resource's text within the tool results' character budget: what is kept, and a note saying what was
 * cut and what to read `instead` (none when it fits).
 */
export const capResourceText = (
  text: string,
  instead: string,
  maxChars: number = maxResourceChars
): { readonly text: string; readonly note?: string } => {
  const capped = capText(text, maxChars)
  if (capped.cut === 0) return { text }
  return {
    text: capped.text,
    note: cutNote("characters", capped.cut, text.length, `${maxChars} characters (about 20k tokens)`, instead)
  }
}

const itemBytes = (item: McpContent): number =>
  item.type === "text"
    ? utf8Bytes(item.text)
    : item.type === "image"
    ? item.data.length + 64
    : utf8Bytes(JSON.stringify(item))

const sizeOf = (content: ReadonlyArray<McpContent>, structured: unknown): number =>
  content.reduce((sum, item) => sum + itemBytes(item), 0) +
  (structured === undefined ? 0 : utf8Bytes(JSON.stringify(structured)))

/**
 * A reply within `resultLimits`, content in its order: text past the character budget cut, images past
 * the 16th dropped, then images dropped from the end while the whole result is over the byte budget.
 * Each cut adds one text note at the end saying what was left out. Structured content is kept whole:
 * tools bound their own fields.
 */
export const capReply = (reply: ToolReply, limits: ResultLimits = resultLimits): ToolReply => {
  const kept: Array<McpContent> = []
  let textBudget: number = limits.maxTextChars
  let totalChars = 0
  let charsCut = 0
  let images = 0
  let imagesOverCount = 0
  for (const item of reply.content) {
    if (item.type === "text") {
      totalChars += item.text.length
      const capped = capText(item.text, textBudget)
      textBudget -= capped.text.length
      charsCut += capped.cut
      if (capped.text.length > 0) kept.push({ type: "text", text: capped.text })
    } else if (item.type === "resource_link") {
      kept.push(item)
    } else {
      images += 1
      if (images > limits.maxImages) imagesOverCount += 1
      else kept.push(item)
    }
  }
  const notes: Array<string> = []
  if (charsCut > 0) {
    notes.push(cutNote("characters", charsCut, totalChars, `${limits.maxTextChars} characters`))
  }
  if (imagesOverCount > 0) notes.push(cutNote("images", imagesOverCount, images, `${limits.maxImages} images`))
  const noteContent = (): Array<McpContent> => notes.map((text) => ({ type: "text", text }))
  // Room for the byte note itself.
  const byteBudget = limits.maxBytes - 1024
  let droppedForBytes = 0
  while (sizeOf([...kept, ...noteContent()], reply.structuredContent) > byteBudget) {
    let last = kept.length - 1
    while (last >= 0 && kept[last]!.type !== "image") last -= 1
    if (last < 0) break
    kept.splice(last, 1)
    droppedForBytes += 1
  }
  if (droppedForBytes > 0) {
    notes.push(cutNote("images", droppedForBytes, images, `${limits.maxBytes} bytes per result`))
  }
  return { ...reply, content: [...kept, ...noteContent()] }
}
