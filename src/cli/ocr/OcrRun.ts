// What `vtree ocr` does, loaded when it runs (cli/LazyCommand.ts); its arguments are in OcrCommand.ts.
import { Console, Effect } from "effect"
import { OCRProvider } from "../../services/OCRProvider.js"
import * as Ocr from "../shared/OcrLayers.js"

/** `vtree ocr FRAME…`: what observe_frame's OCR would read from these frames, for tuning the engine. */
export const ocr = (frames: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const ocr = yield* OCRProvider
    const transcript = yield* ocr.transcribeFrames(frames)
    yield* Console.log(transcript)
  }).pipe(Effect.provide(Ocr.configured))
