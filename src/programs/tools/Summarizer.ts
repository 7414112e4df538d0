import { Effect, Either } from "effect"
import type { ChildInfo, Level, NodeNotFound, TreeNode } from "../../domain/TreeIndex.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import type { Labels, ToolPromptName } from "../prompts/PromptManager.js"
import { summaryKey } from "./SummaryCache.js"
import { type AnchorMode, errorText, formatSeconds, type ToolContext } from "./ToolContext.js"

/** The two rounds of one node: the extract reply, and the verify reply (null when that call failed). */
export type NodeSummary =
  | { readonly _tag: "ExtractFailed"; readonly message: string }
  | { readonly _tag: "Summarized"; readonly summary: string; readonly verified: string | null }

/** ★★/★ lines naming real children, or (when the model gave none or failed) the plain child list. */
export interface ChildrenView {
  readonly count: number
  readonly lines: ReadonlyArray<string>
  readonly annotated: boolean
}

export interface SummaryRequest {
  readonly nodeId: string
  readonly question: string
  /** search_similar prompts also see the query that found the node. */
  readonly query?: string
}

export const levelName = (labels: Labels, level: Level): string =>
  level === 1 ? labels.levelScene : level === 2 ? labels.levelEvent : labels.levelFrame

export const timeRangeText = (range: readonly [number, number]): string =>
  `${formatSeconds(range[0])}-${formatSeconds(range[1])}s`

/** One summarizer-model call: the pack's tool system message, the rendered prompt, thinking off. */
export const askToolModel = Effect.fnUntraced(function*(labels: Labels, prompt: string) {
  const llm = yield* LLMProvider
  const reply = yield* llm.chat({
    role: "tool",
    thinking: false,
    messages: [
      { role: "system", content: labels.toolSystem },
      { role: "user", content: prompt }
    ]
  })
  return reply.content.trim()
})

const anchorPattern = /\[\s*([cs]\d+(?:\s*,\s*[cs]\d+)*)\s*\]/g

/**
 * Keeps the citations that name a real anchor and drops the rest (counted). `quote` also writes out
 * the line each citation stands for, so the agent reads the source, not only the model's paraphrase.
 */
export const resolveAnchors = (
  text: string,
  anchors: ReadonlyMap<string, string>,
  mode: Exclude<AnchorMode, "off">
): { readonly text: string; readonly invalid: number } => {
  let invalid = 0
  const resolved = text.replace(anchorPattern, (_whole, list: string) => {
    const ids = list.split(",").map((id) => id.trim())
    const valid = ids.filter((id) => anchors.has(id))
    invalid += ids.length - valid.length
    if (valid.length === 0) return ""
    if (mode === "ids") return `[${valid.join(", ")}]`
    return valid.map((id) => `[${id}: ${anchors.get(id)!.trim()}]`).join("")
  })
  // Removing a citation can leave a space before punctuation or a doubled space; tidy only that.
  return { text: resolved.replace(/ +([.,;:!?。，；：])/g, "$1").replace(/ {2,}/g, " ").trim(), invalid }
}

interface NodeSource {
  readonly node: TreeNode
  readonly text: string
  readonly anchors: ReadonlyMap<string, string>
}

const noAnchors: ReadonlyMap<string, string> = new Map()

const nodeSource = Effect.fnUntraced(function*(context: ToolContext, nodeId: string) {
  const node = yield* context.tree.getNode(nodeId)
  if (context.anchor === "off") {
    const text = yield* context.tree.nodeText(nodeId)
    return { node, text, anchors: noAnchors } satisfies NodeSource
  }
  const anchored = yield* context.tree.anchoredText(nodeId)
  return { node, text: anchored.text, anchors: anchored.anchors } satisfies NodeSource
})

const isComplete = (summary: NodeSummary): boolean => summary._tag === "Summarized" && summary.verified !== null

/**
 * Extract → verify for one node, memoised per run: the key is the node, the prompt name and the
 * rendered extract prompt (which holds the question, the query and the node text).
 */
export const summarizeNode = Effect.fn("Summarizer.summarizeNode")(function*(
  context: ToolContext,
  request: SummaryRequest
) {
  const { labels } = context.prompts
  const source = yield* nodeSource(context, request.nodeId)
  const [extractName, verifyName]: [ToolPromptName, ToolPromptName] = request.query === undefined
    ? ["view_node_extract", "view_node_verify"]
    : ["search_similar_extract", "search_similar_verify"]
  const vars: Record<string, string> = {
    question: request.question,
    node_id: source.node.id,
    level: levelName(labels, source.node.level),
    time_range: timeRangeText(source.node.timeRange),
    node_text: source.text,
    ...(request.query === undefined ? {} : { query: request.query })
  }
  // In anchor mode the model must be told how to cite, or it paraphrases and the anchors are lost.
  const withAnchorNote = (prompt: string): string =>
    context.anchor === "off" ? prompt : `${prompt}\n\n${labels.anchorNote}`
  const extractPrompt = withAnchorNote(context.prompts.toolPrompt(extractName, vars))
  const anchored = (text: string): string => {
    if (context.anchor === "off") return text
    const resolved = resolveAnchors(text, source.anchors, context.anchor)
    context.stats.invalidAnchors += resolved.invalid
    return resolved.text
  }
  const compute = Effect.gen(function*() {
    const draft = yield* Effect.either(askToolModel(labels, extractPrompt))
    if (Either.isLeft(draft)) {
      context.stats.extractFailed += 1
      return { _tag: "ExtractFailed", message: errorText(draft.left) } satisfies NodeSummary
    }
    const verified = yield* Effect.either(
      askToolModel(labels, withAnchorNote(context.prompts.toolPrompt(verifyName, { ...vars, draft: draft.right })))
    )
    if (Either.isLeft(verified)) context.stats.verifyFailed += 1
    return {
      _tag: "Summarized",
      summary: anchored(draft.right),
      verified: Either.isRight(verified) ? anchored(verified.right) : null
    } satisfies NodeSummary
  })
  const key = summaryKey([context.tree.dir, source.node.id, extractName, context.anchor, extractPrompt])
  return yield* context.cache.getOrCompute(key, compute, {
    onHit: () => {
      context.stats.summaryCacheHits += 1
    },
    keep: isComplete
  })
})

/** `[Summary] …` + `[Verified] …`, or `[Summary error] …`, as printed to the agent. */
export const renderSummary = (labels: Labels, summary: NodeSummary): ReadonlyArray<string> =>
  summary._tag === "ExtractFailed"
    ? [`${labels.summaryError} ${summary.message}`]
    : [
      `${labels.summary} ${summary.summary}`,
      `${labels.verified} ${summary.verified ?? labels.skipped}`
    ]

const plainChildLine = (child: ChildInfo): string =>
  `- ${child.id} | ${timeRangeText(child.timeRange)} | ${child.summary.slice(0, 120)}`

const idToken = /^[[(<*`"']*([^\s\])>*`"':,;—–]+)/

/**
 * The ★★/★ lines of a children reply that name an actual child, each child once. Anything else the
 * model wrote (preamble, the closing `details=…` line, invented ids) is left out.
 */
export const parseChildAnnotations = (
  labels: Labels,
  text: string,
  childIds: ReadonlySet<string>
): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim().replace(/^[-*•]\s+/, "")
    // The strong marker first: it starts with the weak one.
    const star = line.startsWith(labels.starStrong)
      ? labels.starStrong
      : line.startsWith(labels.starWeak)
      ? labels.starWeak
      : undefined
    if (star === undefined) continue
    const id = idToken.exec(line.slice(star.length).trim())?.[1]?.replace(/[.。]+$/, "")
    if (id === undefined || !childIds.has(id) || seen.has(id)) continue
    seen.add(id)
    lines.push(line)
  }
  return lines
}

/**
 * Which children deserve a look for this question (children extract → verify). When the calls fail
 * or mark nothing, the agent still gets every child id, time and summary, so it can navigate on.
 */
export const summarizeChildren = Effect.fn("Summarizer.summarizeChildren")(function*(
  context: ToolContext,
  nodeId: string,
  question: string
) {
  const { labels } = context.prompts
  const children = yield* context.tree.children(nodeId)
  if (children.length === 0) return null
  const plain: ChildrenView = { count: children.length, lines: children.map(plainChildLine), annotated: false }
  const vars: Record<string, string> = {
    question,
    node_id: nodeId,
    children: children.map((child) => `${child.id} | ${timeRangeText(child.timeRange)} | ${child.summary}`).join("\n")
  }
  const extractPrompt = context.prompts.toolPrompt("view_node_children_extract", vars)
  const compute = Effect.gen(function*() {
    const draft = yield* Effect.either(askToolModel(labels, extractPrompt))
    if (Either.isLeft(draft)) {
      context.stats.childrenFailed += 1
      return { view: plain, complete: false }
    }
    const verified = yield* Effect.either(
      askToolModel(labels, context.prompts.toolPrompt("view_node_children_verify", { ...vars, draft: draft.right }))
    )
    if (Either.isLeft(verified)) context.stats.verifyFailed += 1
    // A failed check still leaves the draft's marks, which beat no marks at all.
    const text = Either.isRight(verified) ? verified.right : draft.right
    const lines = parseChildAnnotations(labels, text, new Set(children.map((child) => child.id)))
    const view: ChildrenView = lines.length > 0 ? { count: children.length, lines, annotated: true } : plain
    return { view, complete: Either.isRight(verified) }
  })
  const key = summaryKey([context.tree.dir, nodeId, "view_node_children_extract", extractPrompt])
  const result = yield* context.cache.getOrCompute(key, compute, {
    onHit: () => {
      context.stats.summaryCacheHits += 1
    },
    keep: (value) => value.complete
  })
  return result.view
})

export const renderChildren = (labels: Labels, view: ChildrenView): ReadonlyArray<string> => [
  `${labels.children} ${view.count}`,
  ...view.lines
]

export interface BatchItem {
  readonly nodeId: string
  readonly summary: Either.Either<NodeSummary, NodeNotFound>
}

/**
 * Summarizes many nodes at once on a bounded number of fibers, results in input order: k hits cost
 * about two model latencies (extract, verify), not 2k. One node's failure never stops its siblings.
 */
export const summarizeNodesBatch = Effect.fn("Summarizer.summarizeNodesBatch")(function*(
  context: ToolContext,
  nodeIds: ReadonlyArray<string>,
  question: string,
  query: string
) {
  return yield* Effect.forEach(
    nodeIds,
    (nodeId) =>
      Effect.either(summarizeNode(context, { nodeId, question, query })).pipe(
        Effect.map((summary): BatchItem => ({ nodeId, summary }))
      ),
    { concurrency: Math.max(1, context.batchConcurrency) }
  )
})
