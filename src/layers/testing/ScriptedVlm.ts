import { Effect, Layer } from "effect"
import { type VisionRequest, VLMProvider } from "../../services/VLMProvider.js"
import {
  approximateTokens,
  type ChatReply,
  makeScriptedChat,
  type Script,
  type ScriptedChatOptions,
  type ScriptedFake
} from "./Scripted.js"

export type VlmReply = ChatReply

/** `model`: the reported model name for string replies (default "scripted-vlm"). */
export type ScriptedVlmOptions = ScriptedChatOptions

export type ScriptedVlm = ScriptedFake<VLMProvider, VLMProvider["Type"], VisionRequest>

/** A scripted VLMProvider; it does not open the image files, only records their paths. */
export const make = (script: Script<VisionRequest, VlmReply>, options: ScriptedVlmOptions = {}) =>
  Effect.gen(function*() {
    const model = options.model ?? "scripted-vlm"
    const engine = yield* makeScriptedChat<VisionRequest>({
      name: "ScriptedVlm",
      role: () => "vlm",
      model,
      script,
      latency: options.latency,
      promptTokens: (request) => approximateTokens(`${request.system} ${request.text}`)
    })
    const service = VLMProvider.of({ chatWithImages: engine.call })
    return { service, layer: Layer.succeed(VLMProvider, service), requests: engine.requests } satisfies ScriptedVlm
  })

export const layer = (
  script: Script<VisionRequest, VlmReply>,
  options: ScriptedVlmOptions = {}
): Layer.Layer<VLMProvider> => Layer.effect(VLMProvider, Effect.map(make(script, options), (fake) => fake.service))
