// `node --import tsx OcrOnce.ts LANGS FRAME…`: prints what the tesseract OCRProvider reads, then makes two
// deliberate requests (a fetch and a TCP connection) so a test can see that its network guard is live.
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as Net from "node:net"
import * as TesseractOcr from "../../../src/layers/tesseract/TesseractOcr.js"
import { OCRProvider } from "../../../src/services/OCRProvider.js"

const [langs = "eng", ...paths] = process.argv.slice(2)
const transcript = await Effect.runPromise(
  Effect.flatMap(OCRProvider, (ocr) => ocr.transcribeFrames(paths)).pipe(
    Effect.provide(Layer.provideMerge(TesseractOcr.layer({ langs: langs.split("+") }), NodeFileSystem.layer))
  )
)
process.stdout.write(`${transcript}\n`)
await fetch("http://127.0.0.1:9/control").catch(() => undefined)
await new Promise<void>((resolve) => {
  try {
    Net.connect(9, "127.0.0.1").once("error", () => resolve())
  } catch {
    resolve()
  }
})
