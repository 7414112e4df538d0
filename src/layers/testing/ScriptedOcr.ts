import { Effect, Layer } from "effect"
import type { ProviderError } from "../../domain/ProviderError.js"
import { OCRProvider } from "../../services/OCRProvider.js"
import { makeScripted, type Script, type ScriptedFake, type ScriptOptions } from "./Scripted.js"

/** A transcript to return, or a ProviderError to fail with. */
export type OcrReply = string | ProviderError

/** The fake, its Layer, and the frame paths of each call, in order. */
export type ScriptedOcr = ScriptedFake<OCRProvider, OCRProvider["Type"], ReadonlyArray<string>>

export const make = (script: Script<ReadonlyArray<string>, OcrReply>, options: ScriptOptions = {}) =>
  Effect.gen(function*() {
    const engine = yield* makeScripted<ReadonlyArray<string>, string, string>({
      name: "ScriptedOcr",
      role: () => "ocr",
      model: "scripted-ocr",
      script,
      latency: options.latency,
      toOutput: (reply) => reply,
      tokens: () => ({ promptTokens: 0, completionTokens: 0 })
    })
    const service = OCRProvider.of({ transcribeFrames: engine.call })
    return { service, layer: Layer.succeed(OCRProvider, service), requests: engine.requests } satisfies ScriptedOcr
  })

export const layer = (
  script: Script<ReadonlyArray<string>, OcrReply>,
  options: ScriptOptions = {}
): Layer.Layer<OCRProvider> => Layer.effect(OCRProvider, Effect.map(make(script, options), (fake) => fake.service))
