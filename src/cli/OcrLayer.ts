import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
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
    // node:http rather than undici: the undici client cannot send MonkeyOCR's multipart uploads on Node 20.
    : MonkeyOcr.layerConfig(config.monkeyocr).pipe(Layer.provide(NodeHttpClient.layer))

/** What config_json and doctor say about the engine: never a URL's path or a secret. */
export const ocrSummary = (config: OcrEngineConfig) =>
  config.engine === "tesseract"
    ? { engine: "tesseract", langs: config.tesseract.langs, workers: config.tesseract.workers }
    : { engine: "monkeyocr", endpoints: config.monkeyocr.urls.length }
