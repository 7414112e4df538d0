/**
 * Every span name and attribute name vtree's traces share with the outside world, in one place.
 *
 * Conventions followed: the OpenTelemetry GenAI semantic conventions (development status) as
 * open-telemetry/semantic-conventions-genai has them at commit e9de14b (unreleased; the GenAI conventions left
 * open-telemetry/semantic-conventions, whose v1.44.0 they build on): an application-defined run is an
 * `invoke_workflow` span, invocations inside another one carry `gen_ai.invocation.is_nested`, cache writes
 * are `gen_ai.usage.cache_write.input_tokens` and cache and per-modality counts sit on inference spans only,
 * never on `invoke_agent`. Beside them, the two attributes trace UIs type a span by: Langfuse's
 * `langfuse.observation.type` (without it, `retrieval` and `invoke_workflow` are plain spans there) and
 * OpenInference's `openinference.span.kind` (Arize Phoenix). docs/tracing.md lists what each span carries.
 */
import type { TokenBreakdown } from "./LLMProvider.js"

/** GenAI attribute names (and the general ones GenAI spans use). */
export const GenAiAttr = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  agentName: "gen_ai.agent.name",
  workflowName: "gen_ai.workflow.name",
  invocationIsNested: "gen_ai.invocation.is_nested",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  dataSourceId: "gen_ai.data_source.id",
  retrievalTopK: "gen_ai.retrieval.top_k",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteInputTokens: "gen_ai.usage.cache_write.input_tokens",
  reasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
  mcpMethodName: "mcp.method.name"
} as const

/** The GenAI operations vtree's spans perform (`gen_ai.operation.name`). */
export type GenAiOperation =
  | "invoke_workflow"
  | "invoke_agent"
  | "execute_tool"
  | "retrieval"
  | "chat"
  | "embeddings"
  | "generate_content"

/** What a span is to a trace UI: a GenAI operation, or a plain step of a workflow (a build's caption calls). */
type SpanType = GenAiOperation | "step"

/** Langfuse's and OpenInference's name for each type of span. */
const uiTypes: Record<SpanType, readonly [langfuse: string, openInference: string]> = {
  invoke_workflow: ["chain", "CHAIN"],
  invoke_agent: ["agent", "AGENT"],
  execute_tool: ["tool", "TOOL"],
  retrieval: ["retriever", "RETRIEVER"],
  chat: ["generation", "LLM"],
  generate_content: ["generation", "LLM"],
  embeddings: ["embedding", "EMBEDDING"],
  step: ["span", "CHAIN"]
}

const typed = (type: SpanType): Readonly<Record<string, string>> => ({
  "langfuse.observation.type": uiTypes[type][0],
  "openinference.span.kind": uiTypes[type][1]
})

/**
 * The attributes every span of an operation starts with: its operation name and its type for Langfuse and
 * Phoenix. Built once per operation, so a span only spreads them.
 */
export const operationAttributes: Readonly<Record<GenAiOperation, Readonly<Record<string, string>>>> = {
  invoke_workflow: { [GenAiAttr.operationName]: "invoke_workflow", ...typed("invoke_workflow") },
  invoke_agent: { [GenAiAttr.operationName]: "invoke_agent", ...typed("invoke_agent") },
  execute_tool: { [GenAiAttr.operationName]: "execute_tool", ...typed("execute_tool") },
  retrieval: { [GenAiAttr.operationName]: "retrieval", ...typed("retrieval") },
  chat: { [GenAiAttr.operationName]: "chat", ...typed("chat") },
  embeddings: { [GenAiAttr.operationName]: "embeddings", ...typed("embeddings") },
  generate_content: { [GenAiAttr.operationName]: "generate_content", ...typed("generate_content") }
}

/** The type attributes of a span that is no GenAI operation but a step of a workflow (span / CHAIN). */
export const stepAttributes: Readonly<Record<string, string>> = typed("step")

/**
 * A span's name as the conventions build it: `{operation} {subject}` (the model, agent, workflow, tool or
 * data source), or the operation alone without one.
 */
export const spanName = (operation: GenAiOperation, subject?: string): string =>
  subject === undefined || subject === "" ? operation : `${operation} ${subject}`

/** vtree's agent, as `invoke_agent` spans name it. */
export const agentName = "vtree"

/** The workflows vtree runs (`gen_ai.workflow.name`): a benchmark run and a tree build. */
export const workflowNames = { infer: "vtree infer", build: "vtree build" } as const

/** The figures of one inference call the usage attributes are read from. */
export interface CallUsage {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedPromptTokens?: number | undefined
  readonly reasoningTokens?: number | undefined
  readonly tokenBreakdown?: TokenBreakdown | undefined
}

const breakdownKeys: ReadonlyArray<readonly [keyof TokenBreakdown, string]> = [
  ["cacheWriteInput", GenAiAttr.cacheWriteInputTokens],
  ["textInput", "gen_ai.usage.text.input_tokens"],
  ["imageInput", "gen_ai.usage.image.input_tokens"],
  ["audioInput", "gen_ai.usage.audio.input_tokens"],
  ["videoInput", "gen_ai.usage.video.input_tokens"],
  ["textOutput", "gen_ai.usage.text.output_tokens"],
  ["audioOutput", "gen_ai.usage.audio.output_tokens"]
]

/**
 * A call's token attributes as its operation has them: an embeddings span counts its input only; an inference
 * span (chat, generate_content) also its output and, where the endpoint reported them, cache reads and writes,
 * reasoning and the per-modality counts. Nothing else carries cache or modality counts.
 */
export const usageAttributes = (operation: GenAiOperation, usage: CallUsage): Record<string, number> => {
  if (operation === "embeddings") return { [GenAiAttr.inputTokens]: usage.promptTokens }
  const attributes: Record<string, number> = {
    [GenAiAttr.inputTokens]: usage.promptTokens,
    [GenAiAttr.outputTokens]: usage.completionTokens
  }
  if (operation !== "chat" && operation !== "generate_content") return attributes
  if (usage.cachedPromptTokens !== undefined) attributes[GenAiAttr.cacheReadInputTokens] = usage.cachedPromptTokens
  if (usage.reasoningTokens !== undefined) attributes[GenAiAttr.reasoningOutputTokens] = usage.reasoningTokens
  const breakdown = usage.tokenBreakdown
  if (breakdown !== undefined) {
    for (const [field, key] of breakdownKeys) {
      const value = breakdown[field]
      if (value !== undefined) attributes[key] = value
    }
  }
  return attributes
}
