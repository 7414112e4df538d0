import { Effect, Either, JSONSchema, ParseResult, Schema } from "effect"
import {
  type AgentAction,
  ObserveFrameArgs,
  ReadSkillArgs,
  SearchSimilarArgs,
  SubmitAnswerArgs,
  ViewNodeArgs
} from "../../domain/Protocol.js"
import { GenAiAttr, operationAttributes, spanName } from "../../services/GenAiConventions.js"
import type { LLMProvider, ToolDefinition } from "../../services/LLMProvider.js"
import { annotateContent, contentText, withHotSpan } from "../../services/Telemetry.js"
import type { VLMProvider } from "../../services/VLMProvider.js"
import { countOf } from "../../text/Format.js"
import type { Labels, SkillMode } from "../prompts/PromptManager.js"
import { keywordNote, searchOrKeywords } from "../tree/KeywordFallback.js"
import {
  levelName,
  renderChildren,
  renderSummary,
  summarizeChildren,
  summarizeNode,
  summarizeNodesBatch,
  timeRangeText
} from "./Summarizer.js"
import { errorText, formatSeconds, type MutableToolStats, type ToolContext } from "./ToolContext.js"
import { observeFrame } from "./Vision.js"

/** What submit_answer hands to the loop. */
export interface Submission {
  readonly answer: string
  readonly evidence: string | null
  readonly reasoning: string | null
}

export interface ToolResult {
  readonly output: string
  /** Present only for submit_answer: the loop stops here. */
  readonly submission?: Submission
}

/**
 * One agent tool. Failures are already text by the time they leave `run`: a tool never ends the loop,
 * it tells the agent what went wrong.
 */
export interface AgentTool<R = never> {
  readonly name: string
  readonly run: (args: Readonly<Record<string, unknown>>) => Effect.Effect<ToolResult, never, R>
  /** What the tools protocol offers the model; without one, a function taking any object. */
  readonly definition?: ToolDefinition
  /**
   * Its arguments and results never reach a span, even with content capture on: the Search Hub's tools
   * carry queries and URLs, which vtree keeps out of every log.
   */
  readonly confidential?: boolean
}

/**
 * A function definition whose parameters are the JSON Schema of `schema`, the very Schema the tool
 * decodes its args with, so what the model is offered and what the tool accepts cannot drift apart.
 * Transformations are described by their encoded side: what the model may send.
 */
export const toolDefinition = <A, I, R>(
  name: string,
  description: string,
  schema: Schema.Schema<A, I, R>
): ToolDefinition => {
  // The draft marker is noise in a function definition; some servers refuse unknown top-level keys.
  const { $schema: _, ...parameters } = JSONSchema.make(schema)
  return { name, description, parameters }
}

/** The model named a tool the dispatcher does not offer (the only way to miss one; the tag says it all). */
export const UnknownToolReason = Schema.Literal("NotOffered")
export type UnknownToolReason = typeof UnknownToolReason.Type

export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  reason: UnknownToolReason,
  tool: Schema.String,
  available: Schema.Array(Schema.String),
  message: Schema.String
}) {}

export interface Dispatcher<R = never> {
  readonly toolNames: ReadonlyArray<string>
  /** One function definition per tool, in the order of toolNames (the tools protocol sends them). */
  readonly definitions: ReadonlyArray<ToolDefinition>
  readonly dispatch: (action: AgentAction) => Effect.Effect<ToolResult, UnknownTool, R>
}

/** Where bad-args messages are written and counted. */
export interface ToolKit {
  readonly labels: Labels
  readonly stats: MutableToolStats
}

/** A tool's name, its function definition and its args decoder: built once per tool, not once per question. */
export interface ToolSpec<A> {
  readonly name: string
  readonly definition: ToolDefinition
  readonly decode: (args: unknown) => Either.Either<A, ParseResult.ParseError>
}

export const toolSpec = <A, I>(name: string, schema: Schema.Schema<A, I, never>, description = ""): ToolSpec<A> => ({
  name,
  definition: toolDefinition(name, description, schema),
  decode: Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
})

/**
 * A tool whose args are decoded with its spec's schema first; undecodable args become `[Tool error]` text
 * that names the tool and the offending field, so the agent can correct itself on the next step.
 */
export const defineTool = <A, R>(
  kit: ToolKit,
  spec: ToolSpec<A>,
  run: (args: A) => Effect.Effect<string | ToolResult, never, R>
): AgentTool<R> => ({
  name: spec.name,
  definition: spec.definition,
  run: (args) =>
    Either.match(spec.decode(args), {
      onLeft: (error) =>
        Effect.sync((): ToolResult => {
          kit.stats.badArgs += 1
          return { output: `${kit.labels.toolError} ${spec.name}: ${ParseResult.TreeFormatter.formatErrorSync(error)}` }
        }),
      onRight: (decoded) =>
        Effect.map(run(decoded), (result): ToolResult => typeof result === "string" ? { output: result } : result)
    })
})

/** Later tools replace earlier ones of the same name, so callers can add or override tools. */
export const makeDispatcher = <R>(tools: ReadonlyArray<AgentTool<R>>): Dispatcher<R> => {
  const table = new Map<string, AgentTool<R>>()
  for (const tool of tools) table.set(tool.name, tool)
  const toolNames = [...table.keys()]
  const anyObject = { type: "object", additionalProperties: true }
  return {
    toolNames,
    definitions: [...table.values()].map((tool) =>
      tool.definition ?? { name: tool.name, description: "", parameters: anyObject }
    ),
    dispatch: (action) => {
      const tool = table.get(action.tool)
      return tool === undefined
        ? Effect.fail(
          new UnknownTool({
            reason: "NotOffered",
            tool: action.tool,
            available: toolNames,
            message: `unknown tool "${action.tool}"; available: ${toolNames.join(", ")}`
          })
        )
        : runTraced(tool, action.args)
    }
  }
}

/** One tool call in its GenAI `execute_tool` span; content only when capture is on and the tool allows it. */
const runTraced = <R>(tool: AgentTool<R>, args: Readonly<Record<string, unknown>>) =>
  (tool.confidential === true ? tool.run(args) : Effect.zipRight(
    annotateContent(() => ({ [GenAiAttr.toolCallArguments]: contentText(args) })),
    Effect.tap(tool.run(args), (result) => annotateContent(() => ({ [GenAiAttr.toolCallResult]: result.output })))
  )).pipe(
    withHotSpan(spanName("execute_tool", tool.name), () => ({
      attributes: {
        ...operationAttributes.execute_tool,
        [GenAiAttr.toolName]: tool.name,
        [GenAiAttr.toolType]: "function"
      }
    }))
  )

// Free-form fields the agent may send as text, a list or an object; stored as text either way.
const asText = (value: unknown): string | null =>
  value === undefined || value === null
    ? null
    : typeof value === "string"
    ? value
    : JSON.stringify(value)

const viewNode = Effect.fn("Dispatcher.viewNode")(function*(context: ToolContext, args: ViewNodeArgs) {
  const { labels } = context.prompts
  const question = args.question ?? context.question
  const node = yield* context.tree.getNode(args.node_id)
  // The node's own rounds and its children's rounds are independent: run them side by side.
  const [summary, children, appendix] = yield* Effect.all([
    summarizeNode(context, { nodeId: node.id, question }),
    summarizeChildren(context, node.id, question),
    context.tree.entityAppendix(node.id)
  ], { concurrency: 2 })
  const lines = [
    `${labels.node} ${node.id} | ${levelName(labels, node.level)} | ${timeRangeText(node.timeRange)}`,
    ...renderSummary(labels, summary)
  ]
  if (appendix.entities.length > 0) lines.push(`${labels.entities} ${appendix.entities.join(", ")}`)
  if (appendix.visibleText.length > 0) lines.push(`${labels.onScreenText} ${appendix.visibleText.join(", ")}`)
  if (children !== null) {
    for (const line of renderChildren(labels, children)) lines.push(line)
  }
  return lines.join("\n")
})

const searchSimilar = Effect.fn("Dispatcher.searchSimilar")(function*(context: ToolContext, args: SearchSimilarArgs) {
  const { labels } = context.prompts
  const question = args.question ?? context.question
  const { fallback, hits } = yield* searchOrKeywords(context.tree, args.query, args.k ?? 5)
  if (fallback !== null) context.stats.embedFallbacks += 1

  const summaries = yield* summarizeNodesBatch(context, hits.map((hit) => hit.nodeId), question, args.query)
  const lines = [`${labels.searchResults} query "${args.query}" → ${countOf(hits.length, "node")}`]
  hits.forEach((hit, i) => {
    lines.push(
      `${i + 1}. ${hit.nodeId} | L${hit.level} score=${hit.score.toFixed(3)} [${formatSeconds(hit.timeRange[0])}s, ${
        formatSeconds(hit.timeRange[1])
      }s]`
    )
    const summary = summaries[i]!.summary
    const rendered = Either.isRight(summary)
      ? renderSummary(labels, summary.right)
      : [`${labels.toolError} ${summary.left.message}`]
    for (const line of rendered) lines.push(`   ${line}`)
  })
  return [...(fallback === null ? [] : [keywordNote(fallback)]), ...lines].join("\n")
})

/**
 * One line per tool for its function definition; the system prompt's tool section (in the pack's
 * language) says how and when to use each.
 */
const coreToolDescriptions = {
  view_node: "Read one node of the video tree: its summary for your question and, for scenes and events, its children.",
  search_similar:
    "Search the cards and subtitles of every node; returns the k best-matching nodes, each summarized for your question.",
  observe_frame: "Show real frames to a vision model: 1-4 frame (L3) ids, or one event (L2) id.",
  submit_answer:
    "Submit the answer (an option letter; for an open question without options, the answer in words) with its evidence and reasoning; ends the question.",
  read_skill: "Read the full text of a skill from the catalog in the system prompt."
} as const

const coreSpecs = {
  view_node: toolSpec("view_node", ViewNodeArgs, coreToolDescriptions.view_node),
  search_similar: toolSpec("search_similar", SearchSimilarArgs, coreToolDescriptions.search_similar),
  observe_frame: toolSpec("observe_frame", ObserveFrameArgs, coreToolDescriptions.observe_frame),
  submit_answer: toolSpec("submit_answer", SubmitAnswerArgs, coreToolDescriptions.submit_answer),
  read_skill: toolSpec("read_skill", ReadSkillArgs, coreToolDescriptions.read_skill)
}

export interface CoreToolOptions {
  /** read_skill exists only in manual mode, where the system prompt lists the catalog. */
  readonly skillMode: SkillMode
}

/** view_node, search_similar, observe_frame, submit_answer (and read_skill in manual mode). */
export const makeCoreTools = (
  context: ToolContext,
  options: CoreToolOptions
): ReadonlyArray<AgentTool<LLMProvider | VLMProvider>> => {
  const { labels } = context.prompts
  const kit: ToolKit = { labels, stats: context.stats }
  const asToolError = (error: unknown) => Effect.succeed(`${labels.toolError} ${errorText(error)}`)
  const tools: Array<AgentTool<LLMProvider | VLMProvider>> = [
    defineTool(
      kit,
      coreSpecs.view_node,
      (args) => viewNode(context, args).pipe(Effect.catchAll(asToolError))
    ),
    defineTool(
      kit,
      coreSpecs.search_similar,
      (args) => searchSimilar(context, args).pipe(Effect.catchAll(asToolError))
    ),
    defineTool(
      kit,
      coreSpecs.observe_frame,
      (args) => observeFrame(context, args.node_ids, args.question ?? context.question)
    ),
    defineTool(kit, coreSpecs.submit_answer, (args) =>
      Effect.succeed<ToolResult>({
        output: `${labels.ok} ${labels.answerSubmitted}: ${args.answer}`,
        submission: { answer: args.answer, evidence: asText(args.evidence), reasoning: asText(args.reasoning) }
      }))
  ]
  if (options.skillMode !== "manual") return tools
  const names = context.prompts.skills.filter((skill) => !skill.always).map((skill) => skill.name)
  return [
    ...tools,
    defineTool(kit, coreSpecs.read_skill, (args) =>
      Effect.succeed(
        context.prompts.readSkill(args.name) ??
          `${labels.toolError} read_skill: no skill named "${args.name}"; available: ${names.join(", ")}`
      ))
  ]
}
