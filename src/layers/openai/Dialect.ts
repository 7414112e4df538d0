import { type EndpointConfig, isOpenAiReasoningModel, type ThinkingDialect } from "../../config/ProviderConfig.js"
import type { Sampling } from "../../domain/Sampling.js"

/**
 * What an endpoint's chat-completions requests must look like beyond the common core, as far as vtree
 * varies them: the thinking switch (Thinking.ts, named by VTREE_LLM_THINKING) and the token-cap field.
 * - OpenAI itself deprecated `max_tokens` for `max_completion_tokens`, and its reasoning models (o1,
 *   o3, o4-mini, gpt-5…) refuse `max_tokens` outright ("Unsupported parameter: 'max_tokens' … use
 *   'max_completion_tokens' instead"), on api.openai.com, Azure OpenAI and routers that pass them through.
 * - vLLM, DashScope, DeepSeek and Ollama read `max_tokens` (vLLM reads both), so every other endpoint
 *   keeps it: it is the field all OpenAI-compatible servers understand.
 */
export type TokenCapField = "max_completion_tokens" | "max_tokens"

export interface EndpointDialect {
  /** Shown by `vtree doctor`: "openai", "openai-reasoning", "deepseek", "dashscope", "vllm" or "openai-compatible". */
  readonly name: string
  readonly tokenCap: TokenCapField
}

const openAiHosts = /(^|\.)api\.openai\.com$|\.openai\.azure\.com$/i

const hostOf = (baseUrl: string): string => {
  try {
    return new URL(baseUrl).hostname
  } catch {
    return ""
  }
}

/** The dialect of one endpoint, from its host and model and the configured thinking dialect. */
export const detectDialect = (
  endpoint: Pick<EndpointConfig, "baseUrl" | "model">,
  thinking: ThinkingDialect
): EndpointDialect => {
  if (openAiHosts.test(hostOf(endpoint.baseUrl))) return { name: "openai", tokenCap: "max_completion_tokens" }
  if (isOpenAiReasoningModel(endpoint.model)) return { name: "openai-reasoning", tokenCap: "max_completion_tokens" }
  return { name: thinking === "none" ? "openai-compatible" : thinking, tokenCap: "max_tokens" }
}

/** The body field that caps a reply's tokens, or nothing when there is no cap. */
export const tokenCapFields = (dialect: EndpointDialect, maxTokens: number | undefined): Record<string, number> =>
  maxTokens === undefined ? {} : { [dialect.tokenCap]: maxTokens }

/**
 * The sampling fields of a request body: the request's own temperature and token cap (a program's cap
 * for one kind of call, such as the builder's caption caps) over the role's settings; only what is set,
 * the cap in the endpoint's dialect.
 */
export const samplingBodyFields = (
  dialect: EndpointDialect,
  role: Sampling,
  request: { readonly temperature?: number | undefined; readonly maxTokens?: number | undefined }
): Record<string, number> => {
  const temperature = request.temperature ?? role.temperature
  return {
    ...(temperature === undefined ? {} : { temperature }),
    ...(role.topP === undefined ? {} : { top_p: role.topP }),
    ...(role.seed === undefined ? {} : { seed: role.seed }),
    ...tokenCapFields(dialect, request.maxTokens ?? role.maxTokens)
  }
}

/** One cell for `vtree doctor`: the dialect and how a token cap would be sent. */
export const describeDialect = (dialect: EndpointDialect): string => `${dialect.name} (${dialect.tokenCap})`
