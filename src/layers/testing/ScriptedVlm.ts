import { Effect, Layer } from "effect"
import type { ProviderError } from "../../domain/ProviderError.js"
import type { ChatResponse } from "../../services/LLMProvider.js"
import { type VisionRequest, VLMProvider } from "../../services/VLMProvider.js"
import { approximateTokens, makeScripted, type Script, type ScriptOptions } from "./Scripted.js"

export type VlmReply = ChatResponse | string | ProviderError

export interface ScriptedVlmOptions extends ScriptOptions {
  readonly model?: string
}

export interface ScriptedVlm {
  readonly service: VLMProvider["Type"]
  readonly layer: Layer.Layer<VLMProvider>
  readonly requests: Effect.Effect<ReadonlyArray<VisionRequest>>
}

/** A scripted VLMProvider; it does not open the image files, only records their paths. */
export const make = (script: Script<VisionRequest, VlmReply>, options: ScriptedVlmOptions = {}) =>
  Effect.gen(function*() {
    const model = options.model ?? "scripted-vlm"
    const engine = yield* makeScripted<VisionRequest, ChatResponse | string, ChatResponse>({
      name: "ScriptedVlm",
      role: () => "vlm",
      model,
      script,
      latency: options.latency,
      toOutput: (reply, request) =>
        typeof reply === "string"
          ? {
            content: reply,
            usage: {
              promptTokens: approximateTokens(`${request.system} ${request.text}`),
              completionTokens: approximateTokens(reply)
            },
            model
          }
          : reply,
      tokens: (response) => response.usage
    })
    const service = VLMProvider.of({ chatWithImages: engine.call })
    return { service, layer: Layer.succeed(VLMProvider, service), requests: engine.requests } satisfies ScriptedVlm
  })

export const layer = (
  script: Script<VisionRequest, VlmReply>,
  options: ScriptedVlmOptions = {}
): Layer.Layer<VLMProvider> => Layer.effect(VLMProvider, Effect.map(make(script, options), (fake) => fake.service))
