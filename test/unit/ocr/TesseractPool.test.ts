// The pool, timeout and degrade rules of the tesseract OCRProvider, over a fake engine whose "recognition"
// reads the frame file's bytes (after a JPEG signature) as text. The real engine is exercised in test/integration/ocr.
import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber, Layer, Ref, Scope, TestClock } from "effect"
import * as Path from "node:path"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import {
  joinCjk,
  looksLikeImage,
  makeWith,
  modelName,
  type OcrEngine
} from "../../../src/layers/tesseract/TesseractOcr.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import { scopedTempDir } from "../../support/TempDir.js"

interface FakeEngine {
  readonly engine: OcrEngine
  readonly started: Ref.Ref<number>
  readonly terminated: Ref.Ref<number>
  readonly busy: Ref.Ref<number>
  readonly mostBusy: Ref.Ref<number>
}

/** Text "HANG" never finishes, "CRASH" fails like a dead thread, "BAD" like an unreadable image. */
const fakeEngine = (
  options: {
    readonly gate?: Deferred.Deferred<void>
    readonly allBusy?: { readonly count: number; readonly reached: Deferred.Deferred<void> }
  } = {}
) =>
  Effect.gen(function*() {
    const started = yield* Ref.make(0)
    const terminated = yield* Ref.make(0)
    const busy = yield* Ref.make(0)
    const mostBusy = yield* Ref.make(0)
    const recognize = (image: Uint8Array) =>
      Effect.gen(function*() {
        const now = yield* Ref.updateAndGet(busy, (n) => n + 1)
        yield* Ref.update(mostBusy, (most) => Math.max(most, now))
        if (options.allBusy !== undefined && now === options.allBusy.count) {
          yield* Deferred.succeed(options.allBusy.reached, undefined)
        }
        if (options.gate !== undefined) {
          yield* Deferred.await(options.gate)
        }
        const text = new TextDecoder().decode(image.subarray(jpegMagic.length))
        if (text === "HANG") return yield* Effect.never
        if (text === "CRASH") {
          return yield* new ProviderError({ provider: "ocr", reason: "Server", message: "ocr: worker stopped" })
        }
        if (text === "BAD") {
          return yield* new ProviderError({
            provider: "ocr",
            reason: "BadRequest",
            message: "ocr: cannot read the image"
          })
        }
        return text
      }).pipe(Effect.ensuring(Ref.update(busy, (n) => n - 1)))
    const engine: OcrEngine = {
      start: Effect.as(
        Ref.update(started, (n) => n + 1),
        {
          recognize,
          terminate: Ref.update(terminated, (n) => n + 1)
        }
      )
    }
    return { engine, started, terminated, busy, mostBusy } satisfies FakeEngine
  })

const jpegMagic = Uint8Array.of(0xff, 0xd8, 0xff)

/** Writes each text, after a JPEG's first bytes, as a frame file and returns their paths. */
const frames = (texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* scopedTempDir("tesseract-pool")
    return yield* Effect.forEach(texts, (text, index) => {
      const path = Path.join(dir, `frame_${index}.jpg`)
      return Effect.as(fs.writeFile(path, Uint8Array.from([...jpegMagic, ...new TextEncoder().encode(text)])), path)
    })
  })

const provided = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Scope.Scope | MemoryCallLog>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.merge(NodeFileSystem.layer, MemoryCallLog.layer)))

describe("TesseractOcr pool", () => {
  it.effect("no worker starts until a frame needs one", () =>
    provided(Effect.gen(function*() {
      const fake = yield* fakeEngine()
      const ocr = yield* makeWith({ langs: ["eng"], workers: 2 }, fake.engine)
      assert.strictEqual(yield* Ref.get(fake.started), 0)
      const [path] = yield* frames(["SALT 12 G"])
      const transcript = yield* ocr.transcribeFrames([path!])
      assert.strictEqual(transcript, "[Frame 1/1] frame_0.jpg\nSALT 12 G")
      assert.strictEqual(yield* Ref.get(fake.started), 1)
    })))

  it.effect("at most `workers` frames are recognised at once, by at most `workers` threads", () =>
    provided(Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const reached = yield* Deferred.make<void>()
      const fake = yield* fakeEngine({ gate, allBusy: { count: 2, reached } })
      const ocr = yield* makeWith({ langs: ["eng"], workers: 2 }, fake.engine)
      const paths = yield* frames(["a", "b", "c", "d", "e"])
      const fiber = yield* Effect.fork(ocr.transcribeFrames(paths))
      // Two frames held in recognition: the other three wait for a worker instead of starting a third.
      yield* Deferred.await(reached)
      yield* Effect.yieldNow()
      assert.strictEqual(yield* Ref.get(fake.started), 2)
      yield* Deferred.succeed(gate, undefined)
      const transcript = yield* Fiber.join(fiber)
      assert.strictEqual(transcript.split("\n\n").length, 5)
      assert.include(transcript, "[Frame 5/5] frame_4.jpg\ne")
      assert.strictEqual(yield* Ref.get(fake.mostBusy), 2)
      assert.strictEqual(yield* Ref.get(fake.started), 2)
    })))

  it.effect("every started worker is terminated when the scope closes", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const reached = yield* Deferred.make<void>()
      const fake = yield* fakeEngine({ gate, allBusy: { count: 3, reached } })
      const scope = yield* Scope.make()
      yield* Effect.gen(function*() {
        const ocr = yield* makeWith({ langs: ["eng"], workers: 3 }, fake.engine)
        const fiber = yield* Effect.fork(ocr.transcribeFrames(yield* frames(["a", "b", "c"])))
        yield* Deferred.await(reached)
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(fiber)
      }).pipe(Scope.extend(scope), Effect.provide(Layer.merge(NodeFileSystem.layer, MemoryCallLog.layer)))
      assert.strictEqual(yield* Ref.get(fake.started), 3)
      assert.strictEqual(yield* Ref.get(fake.terminated), 0)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* Ref.get(fake.terminated), 3)
    }))

  it.effect("a frame past its timeout is left out and its worker replaced", () =>
    provided(Effect.gen(function*() {
      const reached = yield* Deferred.make<void>()
      const fake = yield* fakeEngine({ allBusy: { count: 1, reached } })
      const ocr = yield* makeWith({ langs: ["eng"], timeout: "30 seconds" }, fake.engine)
      const [hang, after] = yield* frames(["HANG", "after the hang"])
      // Two calls rather than one with both frames: the stuck frame must hold the only worker first, and
      // within one call the order in which the files are read is up to the file system.
      const stuck = yield* Effect.fork(ocr.transcribeFrames([hang!]))
      // Reading the file is real I/O: the clock moves only once the frame is in recognition.
      yield* Deferred.await(reached)
      const next = yield* Effect.fork(ocr.transcribeFrames([after!]))
      yield* Effect.yieldNow()
      yield* TestClock.adjust("29 seconds")
      assert.isNull(stuck.unsafePoll())
      yield* TestClock.adjust("1 second")
      const failed = yield* Fiber.join(stuck).pipe(Effect.flip)
      assert.strictEqual(failed.reason, "Timeout")
      assert.strictEqual(yield* Fiber.join(next), "[Frame 1/1] frame_1.jpg\nafter the hang")
      // The thread stuck on the first frame was terminated.
      assert.strictEqual(yield* Ref.get(fake.terminated), 1)
      // Which thread read the second frame depends on when the pool retires the invalidated one (under
      // load it has been handed out once more before, a weak spot to fix in the layer).
      assert.include([1, 2], yield* Ref.get(fake.started))
    })))

  it.effect("a worker whose frame was abandoned (the question interrupted) is replaced", () =>
    provided(Effect.gen(function*() {
      const reached = yield* Deferred.make<void>()
      const fake = yield* fakeEngine({ allBusy: { count: 1, reached } })
      const ocr = yield* makeWith({ langs: ["eng"] }, fake.engine)
      const fiber = yield* Effect.fork(ocr.transcribeFrames(yield* frames(["HANG"])))
      yield* Deferred.await(reached)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* Ref.get(fake.terminated), 1)
      assert.strictEqual(yield* ocr.transcribeFrames(yield* frames(["next"])), "[Frame 1/1] frame_0.jpg\nnext")
      assert.strictEqual(yield* Ref.get(fake.started), 2)
    })))

  it.effect("a dead worker is replaced, an unreadable image keeps its worker", () =>
    provided(Effect.gen(function*() {
      const fake = yield* fakeEngine()
      const ocr = yield* makeWith({ langs: ["eng"] }, fake.engine)
      const [bad, crash, alive] = yield* frames(["BAD", "CRASH", "still here"])
      // One frame per call: within one call the order in which the files are read is up to the file system.
      // A call whose every frame fails, fails (see the next test).
      yield* Effect.flip(ocr.transcribeFrames([bad!]))
      assert.strictEqual(yield* Ref.get(fake.started), 1)
      yield* Effect.flip(ocr.transcribeFrames([crash!]))
      assert.strictEqual(yield* ocr.transcribeFrames([alive!]), "[Frame 1/1] frame_2.jpg\nstill here")
      assert.strictEqual(yield* Ref.get(fake.started), 2)
      assert.strictEqual(yield* Ref.get(fake.terminated), 1)
    })))

  it.effect("when every frame fails the call fails, so observe_frame counts ocr_failed", () =>
    provided(Effect.gen(function*() {
      const fake = yield* fakeEngine()
      const ocr = yield* makeWith({ langs: ["eng"] }, fake.engine)
      const [bad] = yield* frames(["BAD"])
      const result = yield* Effect.either(ocr.transcribeFrames([bad!, "/nonexistent/frame.jpg"]))
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.strictEqual(result.left.reason, "BadRequest")
        assert.strictEqual(result.left.message, "ocr: none of 2 frames could be read (ocr: cannot read the image)")
      }
    })))

  it.effect("every frame is one call of role ocr in the CallLog", () =>
    provided(Effect.gen(function*() {
      const fake = yield* fakeEngine()
      const ocr = yield* makeWith({ langs: ["eng", "chi_sim"] }, fake.engine)
      yield* ocr.transcribeFrames([...(yield* frames(["one"])), "/nonexistent/frame.jpg"])
      const entries = yield* (yield* MemoryCallLog).entries
      assert.deepStrictEqual(
        entries.map((entry) => [entry.role, entry.model, entry.status, entry.errorReason]).sort(),
        [["ocr", "tesseract:eng+chi_sim", "error", "BadRequest"], ["ocr", "tesseract:eng+chi_sim", "ok", null]]
      )
    })))

  it.effect("an empty frame list asks nothing and starts nothing", () =>
    provided(Effect.gen(function*() {
      const fake = yield* fakeEngine()
      const ocr = yield* makeWith({ langs: ["eng"] }, fake.engine)
      assert.strictEqual(yield* ocr.transcribeFrames([]), "")
      assert.strictEqual(yield* Ref.get(fake.started), 0)
    })))
})

describe("joinCjk", () => {
  it("removes the spaces tesseract puts between CJK characters", () => {
    assert.strictEqual(joinCjk("加 入 三 个 番 茄"), "加入三个番茄")
    assert.strictEqual(joinCjk("第 2 步 : 搅 拌 。 好 的"), "第 2 步 : 搅拌。好的")
    assert.strictEqual(joinCjk("ひ ら が な と カ タ カ ナ"), "ひらがなとカタカナ")
  })

  it("keeps spaces between Latin words, between Latin and CJK, Korean words and line breaks", () => {
    assert.strictEqual(joinCjk("Add 3 tomatoes"), "Add 3 tomatoes")
    assert.strictEqual(joinCjk("盐 Salt 12 g 克"), "盐 Salt 12 g 克")
    assert.strictEqual(joinCjk("토마토 세 개"), "토마토 세 개")
    assert.strictEqual(joinCjk("番 茄\n加 盐"), "番茄\n加盐")
  })
})

describe("looksLikeImage", () => {
  it("knows the formats leptonica reads by their first bytes", () => {
    const bytes = (...values: ReadonlyArray<number | string>) =>
      Uint8Array.from(
        values.flatMap((value) => (typeof value === "number" ? [value] : [...value].map((char) => char.charCodeAt(0))))
      )
    for (
      const image of [
        bytes(0xff, 0xd8, 0xff, 0xe0),
        bytes(0x89, "PNG"),
        bytes("GIF89a"),
        bytes("BM"),
        bytes("II*", 0),
        bytes("RIFF", 0, 0, 0, 0, "WEBP"),
        bytes("P6")
      ]
    ) {
      assert.isTrue(looksLikeImage(image), String(image))
    }
    for (const other of [bytes("this is not an image"), bytes(), bytes("RIFF", 0, 0, 0, 0, "WAVE"), bytes("P9")]) {
      assert.isFalse(looksLikeImage(other), String(other))
    }
  })
})

describe("modelName", () => {
  it("names the languages", () => {
    assert.strictEqual(modelName(["eng", "chi_sim"]), "tesseract:eng+chi_sim")
  })
})
