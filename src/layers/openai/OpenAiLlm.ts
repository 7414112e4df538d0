import { Effect, Layer } from "effect"
import { type ConfigurationError } from "../../config/ConfigurationError.js"
import { type LlmConfig, loadLlmConfig } from "../../config/ProviderConfig.js"
import { type ChatRequest, LLMProvider } from "../../services/LLMProvider.js"
import { detectDialect, samplingBodyFields } from "./Dialect.js"
import { makeReplicaSet } from "./EndpointPool.js"
import { completeChat, makeRoute } from "./OpenAiClient.js"
import { thinkingFields } from "./Thinking.js"
import { toolsField, wireMessage } from "./ToolCalls.js"

/**
 * The chat-completions body for a request. The role picks the endpoint and model; thinking defaults
 * to on for the agent and off for the tool role, and the dialect decides how that is said.
 */
export const chatBody = (config: LlmConfig, request: ChatRequest): Record<string, unknown> => {
  const endpoint = request.role === "agent" ? config.agent : config.tool
  const thinking = request.thinking ?? request.role === "agent"
  return {
    model: endpoint.model,
    messages: request.messages.map(wireMessage),
    ...toolsField(request.tools),
    // Sent only when set; the cap as max_completion_tokens where OpenAI wants it, else max_tokens (Dialect.ts).
    ...samplingBodyFields(
      detectDialect(endpoint, config.thinking),
      config.sampling?.[request.role] ?? {},
      request
    ),
    ...thinkingFields(config.thinking, thinking)
  }
}

/**
 * DashScope refuses `enable_thinking: true` on non-streamed calls ("parameter.enable_thinking must be
 * set to false for non-streaming calls"), so thinking requests in that dialect are streamed.
 */
export const needsStreaming = (config: LlmConfig, request: ChatRequest): boolean =>
  config.thinking === "dashscope" && (request.thinking ?? request.role === "agent")

/** An LLMProvider over OpenAI-compatible chat completions, configured explicitly (tests, embedding apps). */
export const make = Effect.fn("OpenAiLlm.make")(function*(config: LlmConfig) {
  // Agent and tool roles naming the same URL share that server's capacity, so they share its cap.
  const replicas = yield* makeReplicaSet(config.reliability.concurrency)
  const routes = {
    agent: makeRoute(config.agent, config.reliability, replicas),
    tool: makeRoute(config.tool, config.reliability, replicas)
  }
  // Untraced: the call's GenAI span (Reliability.ts) is its span; a second one around it would only add cost.
  const chat = Effect.fnUntraced(function*(request: ChatRequest) {
    const route = routes[request.role]
    return yield* completeChat({
      ...route,
      role: request.role,
      body: chatBody(config, request),
      stream: needsStreaming(config, request)
    })
  })
  return LLMProvider.of({ chat })
})

/** The LLM port over the endpoints `config` names. */
export const layer = (config: LlmConfig): Layer.Layer<LLMProvider> => Layer.effect(LLMProvider, make(config))

/** Reads VTREE_LLM_* / VTREE_TOOL_LLM_*; fails naming the variable to set. */
export const layerConfig: Layer.Layer<LLMProvider, ConfigurationError> = Layer.effect(
  LLMProvider,
  Effect.flatMap(loadLlmConfig, make)
)
