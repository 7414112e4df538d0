import { Args, Command } from "@effect/cli"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { loadRoleConfigs } from "../config/ProviderConfig.js"
import { OCRProvider } from "../services/OCRProvider.js"
import { ocrLayer, ocrSummary } from "./OcrLayer.js"

/** `vtree ocr` with OCR switched off by VTREE_OCR=off (the only way to have no engine; the tag says it all). */
class OcrOff extends Schema.TaggedError<OcrOff>()("OcrOff", {
  reason: Schema.Literal("Disabled"),
  message: Schema.String
}) {}

const frames = Args.file({ name: "FRAME", exists: "yes" }).pipe(
  Args.withDescription("Image files (JPEG or PNG) to read, e.g. a tree's frames/*.jpg"),
  Args.atLeast(1)
)

/** The configured engine, or a one-line refusal when OCR is switched off. */
const configuredOcr = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* loadRoleConfigs.ocr
  if (Option.isNone(config)) {
    return yield* new OcrOff({ reason: "Disabled", message: "OCR is off (VTREE_OCR=off): unset VTREE_OCR or set it to tesseract or monkeyocr" })
  }
  yield* Effect.logDebug("ocr engine").pipe(Effect.annotateLogs(ocrSummary(config.value)))
  return ocrLayer(config.value)
}))

/** `vtree ocr FRAME…`: what observe_frame's OCR would read from these frames, for tuning the engine. */
export const ocrCommand = Command.make("ocr", { frames }, ({ frames }) =>
  Effect.gen(function*() {
    const ocr = yield* OCRProvider
    const transcript = yield* ocr.transcribeFrames(frames)
    yield* Console.log(transcript)
  })).pipe(
    Command.withDescription(
      "Print the text the configured OCR engine (VTREE_OCR: tesseract by default, monkeyocr, off) reads in the given frames"
    ),
    Command.provide(configuredOcr)
  )
