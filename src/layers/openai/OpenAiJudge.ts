// The judges over OpenAI-compatible chat completions: the LLM adapter's own request path (routes over the
// role's replicas, one reliability policy, the call reported), with every call under the role "judge".
import { Effect, Layer } from "effect"
import type { ConfigurationError } from "../../config/ConfigurationError.js"
import { type JudgeConfig, loadJudgeConfig } from "../../config/ProviderConfig.js"
import { JudgeProvider } from "../../services/JudgeProvider.js"
import type { ChatMessage } from "../../services/LLMProvider.js"
import { detectDialect, samplingBodyFields } from "./Dialect.js"
import { makeReplicaSet } from "./EndpointPool.js"
import { completeChat, makeRoute } from "./OpenAiClient.js"
import { thinkingFields } from "./Thinking.js"
import { wireMessage } from "./ToolCalls.js"

/** The chat-completions body of one judge's request: its model, the sampling configured, thinking off. */
export const judgeBody = (
  config: JudgeConfig,
  endpoint: JudgeConfig["judges"][number],
  messages: ReadonlyArray<ChatMessage>
): Record<string, unknown> => ({
  model: endpoint.model,
  messages: messages.map(wireMessage),
  ...samplingBodyFields(detectDialect(endpoint, config.thinking), config.sampling, {}),
  ...thinkingFields(config.thinking, false)
})

/** One judge per configured model; judges naming one URL share its replicas and their cap. */
export const make = Effect.fn("OpenAiJudge.make")(function*(config: JudgeConfig) {
  const replicas = yield* makeReplicaSet(config.reliability.concurrency)
  return JudgeProvider.of({
    judges: config.judges.map((endpoint) => {
      const route = makeRoute(endpoint, config.reliability, replicas)
      return {
        model: endpoint.model,
        ask: Effect.fn("OpenAiJudge.ask")(function*(messages: ReadonlyArray<ChatMessage>) {
          return yield* completeChat({ ...route, role: "judge", body: judgeBody(config, endpoint, messages) })
        })
      }
    })
  })
})

/** The judge port over the endpoints `config` names. */
export const layer = (config: JudgeConfig): Layer.Layer<JudgeProvider> => Layer.effect(JudgeProvider, make(config))

/** Reads VTREE_JUDGE_* (falling back to the agent's base URL and key); fails naming the variable to set. */
export const layerConfig: Layer.Layer<JudgeProvider, ConfigurationError> = Layer.effect(
  JudgeProvider,
  Effect.flatMap(loadJudgeConfig, make)
)
