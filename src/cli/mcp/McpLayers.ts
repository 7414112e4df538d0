/** `mcp`: the models its tree tools may call, the Search Hub, and the hub's metrics. */
import { Effect, Layer, Option } from "effect"
import type { ConfigurationError } from "../../config/ConfigurationError.js"
import { configurationHelp, loadRoleConfigs } from "../../config/ProviderConfig.js"
import { ProviderError } from "../../domain/ProviderError.js"
import * as OpenAiLlm from "../../layers/openai/OpenAiLlm.js"
import * as OpenAiVlm from "../../layers/openai/OpenAiVlm.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { SearchMetrics } from "../../services/SearchMetrics.js"
import { VLMProvider } from "../../services/VLMProvider.js"
import { thumbnails } from "../shared/MediaLayers.js"
import * as Search from "../shared/SearchLayers.js"
import * as Tree from "../tree/TreeLayers.js"

/** Whether `mcp --trees` has a model: video_view_node then summarizes for a question, and video_ask runs. */
export const hasLlm: Effect.Effect<boolean, ConfigurationError> = Effect.map(loadRoleConfigs.llm, Option.isSome)

const unconfigured = (what: string) =>
  Effect.fail(
    new ProviderError({
      provider: what,
      reason: "BadRequest",
      message: `no ${what} configured — ${configurationHelp}`
    })
  )

/**
 * The models `mcp --trees` may call: the configured LLM and VLM when there are, else ports that refuse
 * every call naming what to set (the tree tools still serve cards, frames and subtitles), and
 * embeddings when configured (video_search is then hybrid). Only these roles are read.
 */
const models = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* Effect.all({ llm: loadRoleConfigs.llm, vlm: loadRoleConfigs.vlm })
  const llm = Option.match(config.llm, {
    onNone: () => Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => unconfigured("LLM") })),
    onSome: OpenAiLlm.layer
  })
  const vlm = Option.match(config.vlm, {
    onNone: () => Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => unconfigured("vision model") })),
    onSome: OpenAiVlm.layer
  })
  return Layer.mergeAll(
    llm,
    vlm,
    Tree.embeddings,
    // video_frames scales frames over 768 px down with it.
    thumbnails
  )
}))

/** The Search Hub alone calls no model: the ports are never reached, and no model setting is read. */
const noModels = Layer.mergeAll(
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => unconfigured("LLM") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => unconfigured("vision model") })),
  thumbnails
)

/**
 * What `vtree mcp` runs with: the models only when it serves trees (a broken VTREE_LLM_* must not stop
 * a search-only server), the Search Hub, and its metrics as one JSON line per request on stderr.
 */
export const providers = (serveTrees: boolean) =>
  Layer.mergeAll(serveTrees ? models : noModels, Search.hub, SearchMetrics.jsonLines)
