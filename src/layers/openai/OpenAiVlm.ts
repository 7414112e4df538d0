import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Layer } from "effect"
import { type ConfigurationError } from "../../config/ConfigurationError.js"
import { loadVlmConfig, type VlmConfig } from "../../config/ProviderConfig.js"
import { type VisionRequest, VLMProvider } from "../../services/VLMProvider.js"
import { detectDialect, samplingBodyFields } from "./Dialect.js"
import { makeReplicaSet } from "./EndpointPool.js"
import { readImageAsDataUrl } from "./ImageData.js"
import { completeChat, makeRoute } from "./OpenAiClient.js"
import { thinkingFields } from "./Thinking.js"

/** The chat-completions body for a vision request whose images are already data URLs. */
export const visionBody = (config: VlmConfig, request: VisionRequest, imageUrls: ReadonlyArray<string>) => ({
  model: config.endpoint.model,
  messages: [
    { role: "system", content: request.system },
    {
      role: "user",
      content: [
        { type: "text", text: request.text },
        ...imageUrls.map((url) => ({ type: "image_url", image_url: { url } }))
      ]
    }
  ],
  ...samplingBodyFields(detectDialect(config.endpoint, config.thinking), config.sampling ?? {}, request),
  // Vision calls describe what is on screen, a summarizer's job: thinking off, like the tool role.
  ...thinkingFields(config.thinking, false)
})

/** A VLMProvider over OpenAI-compatible chat completions with image parts. */
export const make = Effect.fn("OpenAiVlm.make")(function*(config: VlmConfig) {
  const fs = yield* FileSystem.FileSystem
  const route = makeRoute(config.endpoint, config.reliability, yield* makeReplicaSet(config.reliability.concurrency))
  const chatWithImages = Effect.fn("OpenAiVlm.chatWithImages")(function*(request: VisionRequest) {
    const urls = yield* Effect.forEach(
      request.images,
      (path) => readImageAsDataUrl(path, { provider: config.endpoint.provider, maxBytes: config.maxImageBytes }),
      { concurrency: 4 }
    ).pipe(Effect.provideService(FileSystem.FileSystem, fs))
    return yield* completeChat({
      ...route,
      role: "vlm",
      body: visionBody(config, request, urls)
    })
  })
  return VLMProvider.of({ chatWithImages })
})

/** The vision port over the endpoint `config` names; frames are read from the FileSystem. */
export const layer = (config: VlmConfig): Layer.Layer<VLMProvider, never, FileSystem.FileSystem> =>
  Layer.effect(VLMProvider, make(config))

/** Reads VTREE_VLM_* (falling back to VTREE_LLM_*); fails naming the variable to set. */
export const layerConfig: Layer.Layer<VLMProvider, ConfigurationError, FileSystem.FileSystem> = Layer.effect(
  VLMProvider,
  Effect.flatMap(loadVlmConfig, make)
)
