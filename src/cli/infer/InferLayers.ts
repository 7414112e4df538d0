/** `infer`: the providers a run calls, and what its config_json records about them. */
import type * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Layer, Option } from "effect"
import type { ConfigurationError } from "../../config/ConfigurationError.js"
import {
  configurationHelp,
  type EndpointConfig,
  loadProvidersConfig,
  type ProvidersConfig
} from "../../config/ProviderConfig.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { overSampling, type RunSampling, type Sampling } from "../../domain/Sampling.js"
import * as MemoryCallBuffer from "../../layers/memory/MemoryCallBuffer.js"
import * as OpenAiEmbedding from "../../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../../layers/openai/OpenAiLlm.js"
import * as OpenAiVlm from "../../layers/openai/OpenAiVlm.js"
import { InferError } from "../../programs/harness/InferError.js"
import { SearchHub } from "../../programs/search/SearchHub.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { VLMProvider } from "../../services/VLMProvider.js"
import * as Ocr from "../shared/OcrLayers.js"
import * as Search from "../shared/SearchLayers.js"

/** A base URL as stored in config_json: no credentials, query or fragment, whatever the user put there. */
const safeUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return "(unparseable)"
  }
}

const endpointSummary = (endpoint: EndpointConfig) => ({
  baseUrl: safeUrl(endpoint.baseUrl),
  ...(endpoint.baseUrls === undefined ? {} : { baseUrls: endpoint.baseUrls.map(safeUrl) }),
  model: endpoint.model
})

/** What each role's requests carry, as the run stores it (config_json `sampling`): only what is sent. */
const runSampling = (config: ProvidersConfig): RunSampling => ({
  agent: Option.match(config.llm, { onNone: () => ({}), onSome: (llm) => llm.sampling?.agent ?? {} }),
  tool: Option.match(config.llm, { onNone: () => ({}), onSome: (llm) => llm.sampling?.tool ?? {} }),
  vlm: Option.match(config.vlm, { onNone: () => ({}), onSome: (vlm) => vlm.sampling ?? {} })
})

/** What config_json records about the providers: endpoints and models, never keys; sampling per role. */
const summaryOf = (config: ProvidersConfig) => ({
  llm: Option.match(config.llm, {
    onNone: () => null,
    onSome: (llm) => ({ agent: endpointSummary(llm.agent), tool: endpointSummary(llm.tool), thinking: llm.thinking })
  }),
  vlm: Option.match(config.vlm, { onNone: () => null, onSome: (vlm) => endpointSummary(vlm.endpoint) }),
  embedding: Option.match(config.embedding, { onNone: () => null, onSome: (e) => endpointSummary(e.endpoint) }),
  ocr: Option.match(config.ocr, { onNone: () => null, onSome: Ocr.summary }),
  sampling: runSampling(config)
})

/** --web-search with every search capability off is a mistake to report, not an agent without tools. */
const requireEnabledHub = Effect.flatMap(SearchHub, (hub) =>
  hub.enabled
    ? Effect.void
    : Effect.fail(
      new InferError({
        reason: "BadOption",
        message: "--web-search: no search capability is enabled — set VTREE_SEARCH_ENABLED=true and " +
          "VTREE_SEARCH_SEARXNG_ENABLED / VTREE_SEARCH_GITHUB_ENABLED / VTREE_SEARCH_READER_ENABLED, or drop --web-search"
      })
    ))

/** The agent's sampling flags over its VTREE_LLM_* settings, field by field. */
const withAgentSampling = (config: ProvidersConfig, agent: Sampling): ProvidersConfig => ({
  ...config,
  llm: Option.map(config.llm, (llm) => ({
    ...llm,
    sampling: { agent: overSampling(llm.sampling?.agent ?? {}, agent), tool: llm.sampling?.tool ?? {} }
  }))
})

/** config_json's view of the providers `providers` builds with the same sampling flags. */
export const providersSummary = (agentSampling: Sampling = {}) =>
  Effect.map(loadProvidersConfig, (config) => summaryOf(withAgentSampling(config, agentSampling)))

/**
 * The providers `infer` runs with: an LLM is required (the VLM falls back to it); embeddings and OCR
 * when configured; the Search Hub with --web-search; a call buffer for the run's call log. `agentSampling`
 * (the infer flags) wins over the agent's sampling variables.
 */
export const providers = (webSearch: boolean, agentSampling: Sampling = {}) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = withAgentSampling(yield* loadProvidersConfig, agentSampling)
    if (Option.isNone(config.llm) || Option.isNone(config.vlm)) {
      return yield* new InferError({ reason: "BadOption", message: `no LLM configured — ${configurationHelp}` })
    }
    // Layer's output is contravariant, so an optional service widens to Layer<never> when absent.
    const optional: ReadonlyArray<
      Layer.Layer<never, ProviderError | ConfigurationError | InferError, FileSystem.FileSystem>
    > = [
      ...Option.toArray(Option.map(config.embedding, OpenAiEmbedding.layer)),
      ...Option.toArray(Option.map(config.ocr, Ocr.layer)),
      // The agent's web tools: the Search Hub, present only with --web-search.
      ...(webSearch ? [Layer.effectDiscard(requireEnabledHub).pipe(Layer.provideMerge(Search.hub))] : [])
    ]
    return Layer.mergeAll(
      OpenAiLlm.layer(config.llm.value),
      OpenAiVlm.layer(config.vlm.value),
      MemoryCallBuffer.layer,
      ...optional
    )
  }))

/**
 * `--control chance` asks no model: the run needs no provider configured, and a call would be a bug (a defect,
 * never a quiet answer).
 */
export const noModels = Layer.mergeAll(
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("a chance control asks no model") })),
  Layer.succeed(
    VLMProvider,
    VLMProvider.of({ chatWithImages: () => Effect.dieMessage("a chance control asks no model") })
  ),
  MemoryCallBuffer.layer
)
