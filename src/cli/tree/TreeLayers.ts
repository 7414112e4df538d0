/** `tree search` and `tree import`: each reads only the one model role it may use. */
import { Effect, Layer, Option } from "effect"
import type { ConfigurationError } from "../../config/ConfigurationError.js"
import { loadRoleConfigs } from "../../config/ProviderConfig.js"
import * as OpenAiEmbedding from "../../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../../layers/openai/OpenAiLlm.js"
import { ffmpeg } from "../shared/MediaLayers.js"
import { quiet } from "../shared/OutputLayers.js"

/**
 * With VTREE_EMBED_* set, `tree search` uses the hybrid retrieval the agent gets; otherwise BM25. Only
 * the embedding settings are read: a broken setting of another role does not stop a tree search.
 */
export const embeddings: Layer.Layer<never, ConfigurationError> = Layer.unwrapEffect(
  Effect.map(
    loadRoleConfigs.embedding,
    Option.match({ onNone: () => Layer.empty, onSome: OpenAiEmbedding.layer })
  )
)

/**
 * The tool model `tree import` may ask for event and scene cards (none → deterministic cards), computed in the
 * command from the same settings `importProviders` reads.
 */
export const importModel = (useModel: boolean): Effect.Effect<Option.Option<string>, ConfigurationError> =>
  useModel ? Effect.map(loadRoleConfigs.llm, Option.map((config) => config.tool.model)) : Effect.succeedNone

/**
 * `tree import`: ffmpeg (frames and frame rates with --videos) and, when `useModel` and an LLM is
 * configured, its tool role for the cards. Only the LLM settings are read; nothing is required, so an
 * import runs offline.
 */
export const importProviders = (useModel: boolean) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const llm = useModel ? yield* loadRoleConfigs.llm : Option.none()
    return Layer.mergeAll(ffmpeg, quiet, ...Option.toArray(Option.map(llm, OpenAiLlm.layer)))
  }))
