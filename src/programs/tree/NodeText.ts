import { entityFieldByLevel, summaryFieldByLevel, type TreeEntity } from "../../domain/Tree.js"
import type { AnchoredText, ChildInfo, EntityAppendix, TreeNode } from "../../domain/TreeIndex.js"

/** How a card value reads on one line; empty values read as "" and are left out by callers. */
export const formatCardValue = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "string") return value.trim()
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (Array.isArray(value)) return value.map(formatCardValue).filter((item) => item !== "").join(", ")
  if (typeof value === "object") {
    return Object.entries(value)
      .map(([key, inner]) => [key, formatCardValue(inner)] as const)
      .filter(([, inner]) => inner !== "")
      .map(([key, inner]) => `${key}: ${inner}`)
      .join("; ")
  }
  return ""
}

/** `[field, value]` per non-empty card field, the level's summary field first. */
export const cardFields = (node: TreeNode): ReadonlyArray<readonly [string, string]> => {
  const summaryField = summaryFieldByLevel[node.level]
  const fields = Object.keys(node.card)
  const ordered = fields.includes(summaryField)
    ? [summaryField, ...fields.filter((field) => field !== summaryField)]
    : fields
  return ordered.flatMap((field) => {
    const value = formatCardValue(node.card[field])
    return value === "" ? [] : [[field, value] as const]
  })
}

/** `field: value` per non-empty card field, the level's summary field first. */
export const cardLines = (node: TreeNode): ReadonlyArray<string> =>
  cardFields(node).map(([field, value]) => `${field}: ${value}`)

/** The text summarizers read: card lines, then the subtitle. */
export const nodeText = (node: TreeNode): string => {
  const subtitle = node.subtitle.trim()
  return [...cardLines(node), ...(subtitle === "" ? [] : [`subtitle: ${subtitle}`])].join("\n")
}

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: "sentence" })

/** Sentences by Unicode rules (handles 。！？ as well as . ! ?); line breaks also end a sentence. */
export const splitSentences = (text: string): ReadonlyArray<string> =>
  text.split(/\r?\n/).flatMap((line) =>
    Array.from(sentenceSegmenter.segment(line), (part) => part.segment.trim()).filter((part) => part !== "")
  )

/** Card lines numbered `[c1]…`, subtitle sentences `[s1]…`; the map is keyed by `c1`, `s1`, … */
export const anchoredText = (node: TreeNode): AnchoredText => {
  const anchors = new Map<string, string>()
  const lines: Array<string> = []
  cardLines(node).forEach((line, i) => {
    anchors.set(`c${i + 1}`, line)
    lines.push(`[c${i + 1}] ${line}`)
  })
  splitSentences(node.subtitle).forEach((sentence, i) => {
    anchors.set(`s${i + 1}`, sentence)
    lines.push(`[s${i + 1}] ${sentence}`)
  })
  return { text: lines.join("\n"), anchors }
}

/** The level's summary field, or else the start of the card text. */
export const nodeSummary = (node: TreeNode, maxChars = 120): string => {
  const summary = formatCardValue(node.card[summaryFieldByLevel[node.level]])
  if (summary !== "") return summary
  return cardLines(node).join(" ").slice(0, maxChars)
}

export const childInfo = (node: TreeNode): ChildInfo => ({
  id: node.id,
  level: node.level,
  timeRange: node.timeRange,
  summary: nodeSummary(node)
})

const cleanList = (value: unknown): ReadonlyArray<string> => {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]
  const seen = new Set<string>()
  for (const item of items) {
    const text = formatCardValue(item)
    if (text !== "") seen.add(text)
  }
  return [...seen]
}

/** A registry entry's other names, trimmed, blank ones and the name itself left out. */
const aliasesOf = (entity: TreeEntity): ReadonlyArray<string> => {
  const name = entity.name?.trim().toLowerCase() ?? ""
  return (entity.aliases ?? []).map((alias) => alias.trim()).filter((alias) =>
    alias !== "" && alias.toLowerCase() !== name
  )
}

/** A registry entry on one line: `name (id; also: alias, alias): description; appearance; identity`. */
export const entityLine = (entity: TreeEntity): string => {
  const name = entity.name?.trim() ?? ""
  const aliases = aliasesOf(entity)
  const also = aliases.length === 0 ? "" : `; also: ${aliases.join(", ")}`
  const label = name === "" || name === entity.id
    ? also === "" ? entity.id : `${entity.id} (${also.slice(2)})`
    : `${name} (${entity.id}${also})`
  const about = [entity.description, entity.appearance, entity.identity].map((part) => part?.trim() ?? "").filter((
    part
  ) => part !== "")
  return about.length === 0 ? label : `${label}: ${about.join("; ")}`
}

// A letter or digit of a script written with spaces between words: a name there must stand as a whole word
// ("Tom" is not in "tomatoes"). Scripts written without spaces (Han, kana, Thai…) match inside text.
const wordChar = /[\p{L}\p{N}_]/u
const unspaced =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u
const needsBoundary = (char: string | undefined): boolean =>
  char !== undefined && wordChar.test(char) && !unspaced.test(char)

const mentions = (haystack: string, word: string | undefined): boolean => {
  const needle = word?.trim().toLowerCase() ?? ""
  if (needle === "") return false
  const chars = [...needle]
  const left = needsBoundary(chars[0])
  const right = needsBoundary(chars[chars.length - 1])
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = [...haystack.slice(Math.max(0, at - 2), at)].pop()
    const after = [...haystack.slice(at + needle.length, at + needle.length + 2)][0]
    if ((!left || !needsBoundary(before)) && (!right || !needsBoundary(after))) return true
  }
  return false
}

/**
 * The registry entries that concern a node: those that list it (or, for a frame, its event), those its
 * card or subtitle names (by id, name or alias) and those first seen within its time range, in registry order.
 */
export const registryEntriesFor = (
  node: TreeNode,
  registry: ReadonlyArray<TreeEntity>
): ReadonlyArray<TreeEntity> => {
  if (registry.length === 0) return []
  const text = nodeText(node).toLowerCase()
  const [start, end] = node.timeRange
  return registry.filter((entity) =>
    entity.nodes?.includes(node.id) === true ||
    (node.level === 3 && node.parentId !== null && entity.nodes?.includes(node.parentId) === true) ||
    mentions(text, entity.id) || mentions(text, entity.name) ||
    aliasesOf(entity).some((alias) => mentions(text, alias)) ||
    (entity.first_seen !== undefined && entity.first_seen >= start && entity.first_seen <= end)
  )
}

/**
 * The names retrieval adds to a node: the name and aliases of every registry entry that lists the node, so a
 * search for any name the video gives someone finds every node they appear in. Empty for trees whose registry
 * lists no nodes (imported ones), whose index stays what it was.
 */
export const registryNames = (nodeId: string, registry: ReadonlyArray<TreeEntity>): string =>
  registry.filter((entity) => entity.nodes?.includes(nodeId) === true)
    .map((entity) => [entity.name?.trim() ?? "", ...aliasesOf(entity)].filter((name) => name !== "").join("; "))
    .filter((line) => line !== "")
    .join("\n")

/** The card's entities, then the tree registry's entries that concern the node, then its on-screen text. */
export const entityAppendix = (node: TreeNode, registry: ReadonlyArray<TreeEntity> = []): EntityAppendix => {
  const card = cleanList(node.card[entityFieldByLevel[node.level]])
  const known = registryEntriesFor(node, registry).map(entityLine)
  return {
    entities: [...new Set([...card, ...known])],
    visibleText: cleanList(node.card["visible_text"])
  }
}

/** What retrieval indexes for a node: every card value (no field names), then the subtitle. */
export const retrievalText = (node: TreeNode): string => {
  const parts = Object.values(node.card).map(formatCardValue).filter((part) => part !== "")
  const subtitle = node.subtitle.trim()
  if (subtitle !== "") parts.push(subtitle)
  return parts.join("\n")
}
