// One measurement in a fresh process (so RSS is this run's alone), started by bench/ocr.ts:
// `node --import tsx bench/ocr-probe.ts LANGS WORKERS FRAME…` prints one JSON line.
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Exit, Scope } from "effect"
import * as TesseractOcr from "../src/layers/tesseract/TesseractOcr.js"

const [langArg = "eng", workerArg = "1", ...frames] = process.argv.slice(2)
const langs = langArg.split("+")
const workers = Number(workerArg)

const rssMb = () => process.memoryUsage().rss / 1024 / 1024
const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const result = yield* effect
    return [performance.now() - start, result] as const
  })

const main = Effect.gen(function*() {
  const scope = yield* Scope.make()
  const engine = yield* TesseractOcr.tesseractEngine(langs).pipe(Scope.extend(scope))
  const ocr = yield* TesseractOcr.makeWith({ langs, workers }, engine).pipe(Scope.extend(scope))

  // The layer is built and no worker has started: what a run without OCR questions holds.
  const rssBefore = rssMb()
  // One frame per worker at once, so every worker of the pool starts now.
  const [coldMs, coldText] = yield* timed(ocr.transcribeFrames(frames.slice(0, workers)))
  const rssAfterFirst = rssMb()
  const warm: Array<number> = []
  for (const frame of frames) warm.push((yield* timed(ocr.transcribeFrames([frame])))[0])
  const [batchMs] = yield* timed(ocr.transcribeFrames(frames))
  const rssAfter = rssMb()

  // A bare worker start apart from the pool: thread, WASM core, trained data.
  const [startMs, worker] = yield* timed(engine.start)
  yield* worker.terminate
  yield* Scope.close(scope, Exit.void)
  const read = coldText.split("\n\n").length
  return {
    langs: langArg,
    workers,
    rssBefore,
    coldMs,
    read,
    rssAfterFirst,
    warm,
    batchMs,
    frames: frames.length,
    rssAfter,
    startMs
  }
})

Effect.runPromise(main.pipe(Effect.provide(NodeFileSystem.layer))).then((result) =>
  process.stdout.write(`${JSON.stringify(result)}\n`)
)
