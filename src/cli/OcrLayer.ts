import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Layer } from "effect"
import type { OcrEngineConfig } from "../config/ProviderConfig.js"
import type { ProviderError } from "../domain/ProviderError.js"
import * as MonkeyOcr from "../layers/monkeyocr/MonkeyOcr.js"
import * as TesseractOcr from "../layers/tesseract/TesseractOcr.js"
import type { OCRProvider } from "../services/OCRProvider.js"

/** The OCRProvider Layer of the configured engine (`VTREE_OCR`). */
export const ocrLayer = (config: OcrEngineConfig): Layer.Layer<OCRProvider, ProviderError, FileSystem.FileSystem> =>
  config.engine === "tesseract"
    ? TesseractOcr.layer(config.tesseract)
    // The platform's fetch sends the global FormData MonkeyOCR's upload is built from (the undici package's
    // client cannot on Node 20), and brings no HTTP stack of its own into the CLI's start-up.
    : MonkeyOcr.layerConfig(config.monkeyocr).pipe(Layer.provide(FetchHttpClient.layer))

/** What config_json and doctor say about the engine: never a URL's path or a secret. */
export const ocrSummary = (config: OcrEngineConfig) =>
  config.engine === "tesseract"
    ? { engine: "tesseract", langs: config.tesseract.langs, workers: config.tesseract.workers }
    : { engine: "monkeyocr", endpoints: config.monkeyocr.urls.length }
