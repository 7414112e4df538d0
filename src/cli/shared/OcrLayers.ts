/** The OCR engine `VTREE_OCR` names, for `vtree ocr` and the runs of `infer`. */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Layer, Option } from "effect"
import { ConfigurationError } from "../../config/ConfigurationError.js"
import { loadRoleConfigs, type OcrEngineConfig } from "../../config/ProviderConfig.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import * as MonkeyOcr from "../../layers/monkeyocr/MonkeyOcr.js"
import * as TesseractOcr from "../../layers/tesseract/TesseractOcr.js"
import type { OCRProvider } from "../../services/OCRProvider.js"

/** The OCRProvider Layer of the configured engine (`VTREE_OCR`). */
export const layer = (config: OcrEngineConfig): Layer.Layer<OCRProvider, ProviderError, FileSystem.FileSystem> =>
  config.engine === "tesseract"
    ? TesseractOcr.layer(config.tesseract)
    // The platform's fetch sends the global FormData MonkeyOCR's upload is built from (the undici package's
    // client cannot on Node 20), and brings no HTTP stack of its own into the CLI's start-up.
    : MonkeyOcr.layer(config.monkeyocr).pipe(Layer.provide(FetchHttpClient.layer))

/** What config_json and the debug log say about the engine: never a URL's path or a secret. */
export const summary = (config: OcrEngineConfig) =>
  config.engine === "tesseract"
    ? { engine: "tesseract", langs: config.tesseract.langs, workers: config.tesseract.workers }
    : { engine: "monkeyocr", endpoints: config.monkeyocr.urls.length }

/** `vtree ocr`: the configured engine alone, or a one-line refusal when OCR is switched off. */
export const configured = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* loadRoleConfigs.ocr
  if (Option.isNone(config)) {
    return yield* new ConfigurationError({
      reason: "Invalid",
      variable: "VTREE_OCR",
      message: "OCR is off (VTREE_OCR=off): unset VTREE_OCR or set it to tesseract or monkeyocr"
    })
  }
  yield* Effect.logDebug("ocr engine").pipe(Effect.annotateLogs(summary(config.value)))
  return layer(config.value)
}))
