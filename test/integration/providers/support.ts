import { Chunk, Duration, Effect, Option, Redacted, TestClock } from "effect"
import type {
  EmbeddingConfig,
  EndpointConfig,
  LlmConfig,
  ThinkingDialect,
  VlmConfig
} from "../../../src/config/ProviderConfig.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"

export const endpoint = (url: string, provider: string, model: string, apiKey?: string): EndpointConfig => ({
  provider,
  baseUrl: url,
  apiKey: apiKey === undefined ? Option.none() : Option.some(Redacted.make(apiKey)),
  model,
  timeout: Duration.seconds(20)
})

export const llmConfig = (
  url: string,
  options: {
    thinking?: ThinkingDialect
    concurrency?: number
    retries?: number
    apiKey?: string
    maxReplyBytes?: number
  } = {}
): LlmConfig => ({
  agent: endpoint(url, "llm", "agent-model", options.apiKey),
  tool: endpoint(url, "tool-llm", "tool-model", options.apiKey),
  thinking: options.thinking ?? "none",
  reliability: {
    concurrency: options.concurrency ?? 16,
    retries: options.retries ?? 4,
    ...(options.maxReplyBytes === undefined ? {} : { maxReplyBytes: options.maxReplyBytes })
  }
})

export const vlmConfig = (url: string, maxImageBytes = 1024 * 1024): VlmConfig => ({
  endpoint: endpoint(url, "vlm", "vision-model"),
  thinking: "dashscope",
  maxImageBytes,
  reliability: { concurrency: 4, retries: 4 }
})

export const embeddingConfig = (url: string, dimensions?: number): EmbeddingConfig => ({
  endpoint: endpoint(url, "embed", "embed-model"),
  dimensions,
  batchSize: 64,
  reliability: { concurrency: 4, retries: 4 }
})

/** A sim that lives as long as the test's scope. */
export const withSim = (options: OpenAiSim.SimOptions) =>
  Effect.acquireRelease(Effect.promise(() => OpenAiSim.start(options)), (sim) => Effect.promise(() => sim.close()))

export const waitFor = (sim: OpenAiSim.OpenAiSim, predicate: () => boolean) =>
  Effect.promise(() => sim.waitFor(predicate))

/**
 * Waits (in real time, while HTTP happens) until at least `count` sleeps were registered on the
 * TestClock, and returns their wake-up times, newest first. Interrupted sleeps (a finished attempt's
 * timeout) stay in the list, so callers count them in.
 */
export const sleepsAtLeast = (count: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2000; i++) {
      const sleeps = Chunk.toReadonlyArray(yield* TestClock.sleeps())
      if (sleeps.length >= count) return sleeps
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
    return yield* Effect.dieMessage(`fewer than ${count} sleeps were registered on the TestClock`)
  })
