import * as FileSystem from "@effect/platform/FileSystem"
import { Duration, Effect, Either, Layer, Pool, Scope } from "effect"
import { createRequire } from "node:module"
import * as Path from "node:path"
import type { Worker as Thread } from "node:worker_threads"
import { ProviderError } from "../../domain/ProviderError.js"
import { OCRProvider } from "../../services/OCRProvider.js"
import { readFrame, transcribeEach } from "../shared/OcrTranscript.js"
import { reported } from "../shared/Reliability.js"

const provider = "ocr"

export interface TesseractOptions {
  /** Trained-data languages, each installed as `@tesseract.js-data/<code>`. */
  readonly langs: ReadonlyArray<"eng" | "chi_sim" | (string & {})>
  /** Most worker threads alive at once, each ~70 MB with `eng`; started only when frames wait. Default 1. */
  readonly workers?: number
  /** Per frame, from the moment a worker takes it. Default 60 s. */
  readonly timeout?: Duration.DurationInput
}

export const defaultWorkers = 1
export const defaultTimeout = Duration.seconds(60)

/** One started recognizer thread. */
export interface OcrWorker {
  readonly recognize: (image: Uint8Array) => Effect.Effect<string, ProviderError>
  /** Completes once the thread is gone. */
  readonly terminate: Effect.Effect<void>
}

/** Starts recognizer threads; the tesseract.js one below, or a fake in tests of the pool. */
export interface OcrEngine {
  readonly start: Effect.Effect<OcrWorker, ProviderError>
}

const fail = (reason: ProviderError["reason"], message: string) =>
  new ProviderError({ provider, reason, message: `${provider}: ${message}` })

/** The label calls are logged under: `tesseract:eng+chi_sim`. */
export const modelName = (langs: ReadonlyArray<string>): string => `tesseract:${langs.join("+")}`

// Scripts written without spaces between words. Hangul is left out: Korean puts spaces between words.
const cjk = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303f\\uff00-\\uffef"
const spaceBetweenCjk = new RegExp(`(?<=[${cjk}])[ \\t]+(?=[${cjk}])`, "gu")

/** Tesseract separates every CJK character with a space; only spaces between two CJK characters go. */
export const joinCjk = (text: string): string => text.replace(spaceBetweenCjk, "")

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0) =>
  prefix.every((byte, index) => bytes[at + index] === byte)
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0))

/**
 * Whether the bytes open like an image format leptonica reads. Anything else is turned away before it
 * reaches the worker, where leptonica would print its own complaint to the terminal.
 */
export const looksLikeImage = (bytes: Uint8Array): boolean =>
  startsWith(bytes, [0xff, 0xd8, 0xff]) || // JPEG
  startsWith(bytes, [0x89, 0x50, 0x4e, 0x47]) || // PNG
  startsWith(bytes, ascii("GIF8")) ||
  startsWith(bytes, ascii("BM")) ||
  startsWith(bytes, ascii("II*\0")) || startsWith(bytes, ascii("MM\0*")) || // TIFF
  (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) ||
  (bytes[0] === 0x50 && bytes[1] !== undefined && bytes[1] >= 0x31 && bytes[1] <= 0x36) // PNM: P1–P6

// The LSTM-only integer models are what tesseract.js itself fetches for its default engine mode; a third
// of the memory and start time of the `4.0.0` models that also carry the legacy engine.
const dataVariant = "4.0.0_best_int"

const packages = createRequire(import.meta.url)

/** Where `@tesseract.js-data/<lang>`'s trained data lies, or a message saying what to install. */
const trainedDataFile = (lang: string): Either.Either<string, string> => {
  if (!/^[a-z][a-z0-9_]*$/.test(lang)) {
    return Either.left(`"${lang}" is not a tesseract language code (like eng or chi_sim)`)
  }
  try {
    const manifest = packages.resolve(`@tesseract.js-data/${lang}/package.json`)
    return Either.right(Path.join(Path.dirname(manifest), dataVariant, `${lang}.traineddata.gz`))
  } catch {
    return Either.left(`no trained data for "${lang}" — run npm install @tesseract.js-data/${lang}`)
  }
}

/**
 * The tesseract.js engine, reading trained data from the installed `@tesseract.js-data/*` packages only
 * (never the CDN it falls back to), caching nothing in the working directory.
 */
export const tesseractEngine = Effect.fn("TesseractOcr.tesseractEngine")(function*(langs: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  if (langs.length === 0) return yield* fail("BadRequest", "no OCR language given — set one, e.g. eng")
  const files: Array<string> = []
  for (const lang of langs) {
    const file = trainedDataFile(lang)
    if (Either.isLeft(file)) return yield* fail("BadRequest", file.left)
    // Checked now: tesseract.js leaves a worker thread behind when its data fails to load.
    if (!(yield* fs.exists(file.right).pipe(Effect.orElseSucceed(() => false)))) {
      return yield* fail("BadRequest", `${file.right} is missing — reinstall @tesseract.js-data/${lang}`)
    }
    files.push(file.right)
  }

  // tesseract.js reads every language from one `langPath`, and each package has its own directory (its
  // per-language `{ code, data }` form names the language after its bytes in 7.0.0), so several languages
  // are copied side by side once, on the first start, for as long as the layer lives.
  const scope = yield* Effect.scope
  const single = files.length === 1 ? Path.dirname(files[0]!) : undefined
  const langPath = yield* Effect.cached(
    single !== undefined ? Effect.succeed(single) : Effect.gen(function*() {
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "vtree-tessdata-" })
      yield* Effect.forEach(files, (file) => fs.copyFile(file, Path.join(dir, Path.basename(file))), { discard: true })
      return dir
    }).pipe(
      Scope.extend(scope),
      Effect.mapError((error) => fail("Server", `cannot stage the trained data: ${error.message}`))
    )
  )

  const start = Effect.gen(function*() {
    const path = yield* langPath
    return yield* Effect.tryPromise({
      try: () => startThread(langs, path),
      catch: (error) =>
        fail("Server", `tesseract could not start (${messageOf(error)}) — reinstall tesseract.js and its data packages`)
    })
  })
  return { start } satisfies OcrEngine
})

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const startThread = async (langs: ReadonlyArray<string>, langPath: string): Promise<OcrWorker> => {
  // Imported here, with the first worker: every CLI command loads this module, few read a frame.
  const { default: Tesseract } = await import("tesseract.js")
  // tesseract.js leaves createWorker pending when the data fails to load; its errorHandler hears of it.
  let startFailed: (reason: unknown) => void = () => {}
  const failure = new Promise<never>((_, reject) => (startFailed = reject))
  let started = false
  const worker = await Promise.race([
    Tesseract.createWorker(langs.join("+"), Tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: "none",
      // Without a handler a failed job is rethrown on the thread's message event: an uncaught exception.
      errorHandler: (error: unknown) => (started ? undefined : startFailed(error))
    }),
    failure
  ])
  started = true
  // tesseract.js's terminate does not wait for the thread, nor does it notice a thread that died while a
  // job was pending; the thread itself tells both.
  const thread = (worker as unknown as { readonly worker: Thread }).worker
  const exited = new Promise<number>((resolve) => thread.once("exit", resolve))
  const died = exited.then((code) => Promise.reject(new ThreadExited(code)))
  died.catch(() => {})
  // Once terminated, tesseract.js would fail a new job with a rejection nobody can catch (its `send`).
  let stopped = false
  const stoppedError = (code?: number) =>
    fail(
      "Server",
      `the tesseract worker stopped${
        code === undefined ? "" : ` (exit code ${code})`
      }; it is restarted for the next frame`
    )
  return {
    recognize: (image) =>
      Effect.suspend(() =>
        stopped ? Effect.fail(stoppedError()) : Effect.tryPromise({
          try: () => {
            const job = worker.recognize(Buffer.from(image))
            // Whichever loses the race must not end as an unhandled rejection (fatal in Node).
            job.catch(() => {})
            return Promise.race([job, died]).then((result) => result.data.text)
          },
          catch: (error) =>
            error instanceof ThreadExited
              ? stoppedError(error.code)
              : fail("BadRequest", `tesseract cannot read the image (${messageOf(error).replace(/^Error: /, "")})`)
        })
      ),
    terminate: Effect.promise(() => {
      stopped = true
      return worker.terminate().then(() => exited)
    }).pipe(Effect.asVoid)
  }
}

class ThreadExited {
  constructor(readonly code: number) {}
}

/**
 * An OCRProvider over a pool of OCR worker threads. No thread exists until a frame needs one; at most
 * `workers` run, each frame under its own timeout; a thread that timed out or died is replaced, and all
 * are terminated when the scope closes. A frame that fails is left out of the transcript.
 */
export const makeWith = Effect.fn("TesseractOcr.makeWith")(function*(
  options: TesseractOptions,
  engine: OcrEngine
) {
  const fs = yield* FileSystem.FileSystem
  const timeout = Duration.decode(options.timeout ?? defaultTimeout)
  const pool = yield* Pool.makeWithTTL({
    acquire: Effect.acquireRelease(engine.start, (worker) => worker.terminate),
    min: 0,
    max: Math.max(1, options.workers ?? defaultWorkers),
    // Idle threads are kept for the run: a restart costs more than the memory saved between questions.
    timeToLive: Duration.infinity
  })
  const model = modelName(options.langs)

  const frame = (path: string) =>
    Effect.gen(function*() {
      const image = yield* readFrame(fs, provider, path)
      if (!looksLikeImage(image)) {
        return yield* fail(
          "BadRequest",
          `${Path.basename(path)} is not an image tesseract reads (JPEG, PNG, GIF, BMP, TIFF, WebP, PNM)`
        )
      }
      const text = yield* Effect.scoped(Effect.gen(function*() {
        const worker = yield* pool.get
        return yield* worker.recognize(image).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () =>
              fail(
                "Timeout",
                `no text from ${Path.basename(path)} within ${
                  Duration.format(timeout)
                } — raise the OCR timeout or use smaller frames`
              )
          }),
          // A thread still busy on a timed-out or abandoned frame, or dead, is no use to the next frame.
          Effect.tapError((error) => (error.reason === "BadRequest" ? Effect.void : pool.invalidate(worker))),
          Effect.onInterrupt(() => pool.invalidate(worker))
        )
      }))
      return joinCjk(text)
    }).pipe(
      reported({ role: "ocr", model }, () => ({ promptTokens: 0, completionTokens: 0 }), { provider: "tesseract" })
    )

  const transcribeFrames = Effect.fn("TesseractOcr.transcribeFrames")((paths: ReadonlyArray<string>) =>
    transcribeEach(provider, paths, frame)
  )

  return OCRProvider.of({ transcribeFrames })
})

/** The tesseract.js OCRProvider: trained data from node_modules, threads started on the first frame. */
export const make = (options: TesseractOptions) =>
  Effect.flatMap(tesseractEngine(options.langs), (engine) => makeWith(options, engine))

export const layer = (options: TesseractOptions): Layer.Layer<OCRProvider, ProviderError, FileSystem.FileSystem> =>
  Layer.scoped(OCRProvider, make(options))

/**
 * For `vtree doctor`: starts one worker with the trained data and stops it, returning how long the
 * start took. Fails with the same one-line ProviderError a run would meet.
 */
export const checkEngine = Effect.fn("TesseractOcr.checkEngine")(function*(langs: ReadonlyArray<string>) {
  return yield* Effect.scoped(Effect.gen(function*() {
    const engine = yield* tesseractEngine(langs)
    const [took, worker] = yield* Effect.timed(engine.start)
    yield* worker.terminate
    return { model: modelName(langs), startMs: Duration.toMillis(took) }
  }))
})
