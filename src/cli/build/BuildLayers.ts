/** `build`: the models its checkpoints are keyed by and the ones it calls, or none for a dry run. */
import { Effect, Layer, Option } from "effect"
import { loadAsrConfig } from "../../config/AsrConfig.js"
import { configurationHelp, loadRoleConfigs, type ReliabilityConfig } from "../../config/ProviderConfig.js"
import * as OpenAiEmbedding from "../../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../../layers/openai/OpenAiLlm.js"
import * as OpenAiSpeech from "../../layers/openai/OpenAiSpeech.js"
import * as OpenAiVlm from "../../layers/openai/OpenAiVlm.js"
import { BuildError } from "../../programs/builder/BuildError.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { SpeechToText } from "../../services/SpeechToText.js"
import { VLMProvider } from "../../services/VLMProvider.js"

const badBuildOption = (error: { readonly message: string }) =>
  new BuildError({ reason: "BadOption", message: error.message })

/**
 * The models a build's checkpoints are keyed by: the vision model and the text (tool) model, `-` for one
 * not configured (only a dry run gets that far without both).
 */
export const models: Effect.Effect<{ readonly vlm: string; readonly llm: string }, BuildError> = Effect.all({
  llm: loadRoleConfigs.llm,
  vlm: loadRoleConfigs.vlm
}).pipe(
  Effect.mapError(badBuildOption),
  Effect.map((config) => ({
    vlm: Option.getOrElse(Option.map(config.vlm, (vlm) => vlm.endpoint.model), () => "-"),
    llm: Option.getOrElse(Option.map(config.llm, (llm) => llm.tool.model), () => "-")
  }))
)

/**
 * The models `build` calls, their per-provider cap set to --concurrency: the LLM and VLM (required),
 * embeddings when configured, speech to text (VTREE_ASR_*) for videos without subtitles. Only the roles
 * a build uses are read: a broken OCR setting must not stop it.
 */
export const providers = (concurrency: number) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* Effect.all({
      llm: loadRoleConfigs.llm,
      vlm: loadRoleConfigs.vlm,
      embedding: loadRoleConfigs.embedding
    }).pipe(
      Effect.mapError(badBuildOption)
    )
    if (Option.isNone(config.llm) || Option.isNone(config.vlm)) {
      return yield* new BuildError({
        reason: "BadOption",
        message:
          `no model configured — ${configurationHelp} (VTREE_VLM_MODEL names the vision model that writes the cards)`
      })
    }
    const capped = (reliability: ReliabilityConfig) => ({ ...reliability, concurrency })
    const llm = { ...config.llm.value, reliability: capped(config.llm.value.reliability) }
    const vlm = { ...config.vlm.value, reliability: capped(config.vlm.value.reliability) }
    const embedding = Option.map(config.embedding, (e) =>
      OpenAiEmbedding.layer({ ...e, reliability: capped(e.reliability) }))
    const asr = yield* Effect.mapError(loadAsrConfig, badBuildOption)
    return Layer.mergeAll(
      OpenAiLlm.layer(llm),
      OpenAiVlm.layer(vlm),
      ...Option.toArray(embedding),
      ...Option.toArray(Option.map(asr, OpenAiSpeech.layer))
    )
  }))

const noCall = Effect.dieMessage("a dry run makes no model call")

/**
 * `build --dry-run` plans and calls nothing, so it needs no model configured: model ports that are
 * never called (reaching one is a bug). The model names, when set, key the checkpoints it counts as
 * reused (`models`); speech to text, when set, is named as a video's subtitle source without being asked.
 */
export const dryRunProviders = Layer.unwrapEffect(Effect.gen(function*() {
  const asr = yield* Effect.mapError(loadAsrConfig, badBuildOption)
  return Layer.mergeAll(
    Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => noCall })),
    Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => noCall })),
    ...Option.toArray(Option.map(asr, (asr) =>
      Layer.succeed(
        SpeechToText,
        SpeechToText.of({ model: asr.model, maxUploadBytes: asr.maxUploadBytes, transcribe: () => noCall })
      )))
  )
}))
