// The tesseract.js OCRProvider on real frames: text drawn by ffmpeg into JPEGs, read by real worker threads.
import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Ref, Scope } from "effect"
import { execFile } from "node:child_process"
import { readFile } from "node:fs/promises"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import * as TesseractOcr from "../../../src/layers/tesseract/TesseractOcr.js"
import { OCRProvider } from "../../../src/services/OCRProvider.js"
import { renderTextFrame } from "../../support/ocr/RenderFrame.js"
import { scopedTempDir } from "../../support/TempDir.js"

const support = fileURLToPath(new URL("../../support/ocr/", import.meta.url))

/** A scoped directory holding one rendered frame per entry. */
const renderFrames = (frames: Record<string, ReadonlyArray<string>>) =>
  Effect.gen(function*() {
    const dir = yield* scopedTempDir("tesseract-ocr")
    yield* Effect.promise(() =>
      Promise.all(Object.entries(frames).map(([name, lines]) => renderTextFrame(Path.join(dir, name), { lines })))
    )
    return dir
  })

const transcribe = (langs: ReadonlyArray<string>, paths: ReadonlyArray<string>) =>
  Effect.flatMap(OCRProvider, (ocr) => ocr.transcribeFrames(paths)).pipe(Effect.provide(TesseractOcr.layer({ langs })))

describe("TesseractOcr", () => {
  it.scopedLive("reads the text drawn into a JPEG, exactly", () =>
    Effect.gen(function*() {
      const dir = yield* renderFrames({
        "frame_L3_004.jpg": ["Add 3 tomatoes", "Salt to taste"],
        "frame_L3_005.jpg": ["STEP 2: STIR WELL", "Oven 180 C"]
      })
      const transcript = yield* transcribe(["eng"], [
        Path.join(dir, "frame_L3_004.jpg"),
        Path.join(dir, "frame_L3_005.jpg")
      ])
      assert.strictEqual(
        transcript,
        "[Frame 1/2] frame_L3_004.jpg\nAdd 3 tomatoes\nSalt to taste\n\n[Frame 2/2] frame_L3_005.jpg\nSTEP 2: STIR WELL\nOven 180 C"
      )
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("eng+chi_sim loads both packages' data and still reads Latin text", () =>
    Effect.gen(function*() {
      const dir = yield* renderFrames({ "f.jpg": ["Chop the onions", "Total time 25 min"] })
      const transcript = yield* transcribe(["eng", "chi_sim"], [Path.join(dir, "f.jpg")])
      assert.strictEqual(transcript, "[Frame 1/1] f.jpg\nChop the onions\nTotal time 25 min")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("unreadable, truncated and missing frames are left out; all unreadable fails the call", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* renderFrames({ "good.jpg": ["Add 3 tomatoes"] })
      const garbage = Path.join(dir, "garbage.jpg")
      yield* fs.writeFileString(garbage, "this is not an image")
      // A JPEG header and nothing after it reaches the worker, which cannot decode it.
      const truncated = Path.join(dir, "truncated.jpg")
      yield* fs.writeFile(truncated, (yield* fs.readFile(Path.join(dir, "good.jpg"))).subarray(0, 64))
      const paths = [garbage, Path.join(dir, "missing.jpg"), truncated, Path.join(dir, "good.jpg")]
      const transcript = yield* transcribe(["eng"], paths)
      assert.strictEqual(transcript, "[Frame 4/4] good.jpg\nAdd 3 tomatoes")
      const failure = yield* Effect.flip(transcribe(["eng"], [garbage]))
      assert.strictEqual(failure.reason, "BadRequest")
      assert.strictEqual(
        failure.message,
        "ocr: none of 1 frame could be read (ocr: garbage.jpg is not an image tesseract reads (JPEG, PNG, GIF, BMP, TIFF, WebP, PNM))"
      )
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("a language without its data package fails at build with what to install", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.flip(transcribe(["fra"], ["/any.jpg"]))
      assert.strictEqual(failure.message, "ocr: no trained data for \"fra\" — run npm install @tesseract.js-data/fra")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("the doctor check starts a worker and stops it", () =>
    Effect.gen(function*() {
      const check = yield* TesseractOcr.checkEngine(["eng", "chi_sim"])
      assert.strictEqual(check.model, "tesseract:eng+chi_sim")
      assert.isAbove(check.startMs, 0)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("a terminated worker fails its frame as a Server error, not a bad image", () =>
    Effect.gen(function*() {
      const engine = yield* TesseractOcr.tesseractEngine(["eng"])
      const worker = yield* engine.start
      yield* worker.terminate
      const failure = yield* Effect.flip(worker.recognize(Uint8Array.of(0xff, 0xd8, 0xff)))
      assert.strictEqual(failure.reason, "Server")
      assert.strictEqual(failure.message, "ocr: the tesseract worker stopped; it is restarted for the next frame")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.live("threads start on the first frame and have exited once the scope closes", () =>
    Effect.gen(function*() {
      const started = yield* Ref.make(0)
      const exited = yield* Ref.make(0)
      const scope = yield* Scope.make()
      const ocr = yield* Effect.gen(function*() {
        const real = yield* TesseractOcr.tesseractEngine(["eng"])
        // The real engine, counted: its terminate completes only on the thread's exit event.
        const counted: TesseractOcr.OcrEngine = {
          start: Effect.map(Effect.zipRight(Ref.update(started, (n) => n + 1), real.start), (worker) => ({
            recognize: worker.recognize,
            terminate: Effect.zipRight(worker.terminate, Ref.update(exited, (n) => n + 1))
          }))
        }
        return yield* TesseractOcr.makeWith({ langs: ["eng"], workers: 2 }, counted)
      }).pipe(Scope.extend(scope))
      assert.strictEqual(yield* Ref.get(started), 0)
      const dir = yield* renderFrames({ "a.jpg": ["Add 3 tomatoes"], "b.jpg": ["Salt to taste"] }).pipe(
        Scope.extend(scope)
      )
      const transcript = yield* ocr.transcribeFrames([Path.join(dir, "a.jpg"), Path.join(dir, "b.jpg")])
      assert.strictEqual(transcript, "[Frame 1/2] a.jpg\nAdd 3 tomatoes\n\n[Frame 2/2] b.jpg\nSalt to taste")
      assert.strictEqual(yield* Ref.get(started), 2)
      assert.strictEqual(yield* Ref.get(exited), 0)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* Ref.get(exited), 2)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  // A child process that loads tsx and tesseract.js cold: seconds when idle, over 30 on a loaded machine.
  it.scopedLive(
    "reads with every connection, DNS lookup and fetch refused, in the process and its worker threads",
    () =>
      Effect.gen(function*() {
        const dir = yield* renderFrames({ "f.jpg": ["Add 3 tomatoes"] })
        const log = Path.join(dir, "network.log")
        const { stdout } = yield* Effect.promise(() =>
          promisify(execFile)(process.execPath, [
            "--require",
            Path.join(support, "noNetwork.cjs"),
            "--import",
            "tsx",
            Path.join(support, "OcrOnce.ts"),
            "eng",
            Path.join(dir, "f.jpg")
          ], {
            env: { ...process.env, VTREE_NET_LOG: log }
          })
        )
        assert.strictEqual(stdout, "[Frame 1/1] f.jpg\nAdd 3 tomatoes\n")
        const lines = (yield* Effect.promise(() => readFile(log, "utf8"))).trim().split("\n")
        // The guard ran in the main thread and in tesseract's worker thread…
        assert.include(lines, "guarded thread=0")
        assert.isTrue(lines.some((line) => /^guarded thread=[1-9]/.test(line)), lines.join("\n"))
        // …and saw nothing but the child's own control requests after the transcript.
        assert.deepStrictEqual(lines.filter((line) => line.startsWith("attempt")), [
          "attempt thread=0 fetch http://127.0.0.1:9/control",
          "attempt thread=0 connect 127.0.0.1:9"
        ])
      }).pipe(Effect.provide(NodeFileSystem.layer)),
    120_000
  )
})
