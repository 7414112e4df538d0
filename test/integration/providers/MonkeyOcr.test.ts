import { FetchHttpClient, FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import type { OcrConfig } from "../../../src/config/ProviderConfig.js"
import * as MonkeyOcr from "../../../src/layers/monkeyocr/MonkeyOcr.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import { OCRProvider } from "../../../src/services/OCRProvider.js"
import * as OcrSim from "../../support/ocr-sim/index.js"
import { scopedTempDir } from "../../support/TempDir.js"

// The platform fetch, as the CLI provides it (NodeHttpClient.layerUndici cannot send the global FormData on Node 20).
const platform = Layer.mergeAll(NodeFileSystem.layer, FetchHttpClient.layer)

const config = (urls: ReadonlyArray<string>): OcrConfig => ({
  urls,
  timeout: Duration.seconds(20),
  reliability: { concurrency: 4, retries: 0 }
})

const sim = (options: OcrSim.OcrSimOptions = {}) =>
  Effect.acquireRelease(Effect.promise(() => OcrSim.start(options)), (server) => Effect.promise(() => server.close()))

const frames = (count: number) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* scopedTempDir("monkey-ocr")
    const paths = Array.from({ length: count }, (_, i) => `${dir}/L3_00${i}.jpg`)
    yield* Effect.forEach(paths, (path) => fs.writeFile(path, new Uint8Array([0xff, 0xd8, 0xff, 0xe0])))
    return paths
  })

const transcribe = (paths: ReadonlyArray<string>) => Effect.flatMap(OCRProvider, (ocr) => ocr.transcribeFrames(paths))

describe("MonkeyOcr against local OCR servers", () => {
  it.scoped("spreads frames round-robin over the endpoints and labels each frame in the transcript", () =>
    Effect.gen(function*() {
      const a = yield* sim()
      const b = yield* sim()
      const paths = yield* frames(4)
      const transcript = yield* transcribe(paths).pipe(Effect.provide(MonkeyOcr.layer(config([a.url, b.url]))))
      assert.strictEqual(a.requests.length, 2)
      assert.strictEqual(b.requests.length, 2)
      assert.strictEqual(
        transcript,
        [0, 1, 2, 3].map((i) => `[Frame ${i + 1}/4] L3_00${i}.jpg\ntext of L3_00${i}.jpg`).join("\n\n")
      )
    }).pipe(Effect.provide(platform)))

  it.scoped("an endless reply is cut at the reply cap: BadResponse naming it", () =>
    Effect.gen(function*() {
      const endless = yield* sim({ reply: () => ({ endless: true }) })
      const paths = yield* frames(1)
      const capped = {
        ...config([endless.url]),
        reliability: { concurrency: 4, retries: 0, maxReplyBytes: 1024 * 1024 }
      }
      const error = yield* Effect.flip(transcribe(paths).pipe(Effect.provide(MonkeyOcr.layer(capped))))
      assert.strictEqual(error.reason, "BadResponse")
      assert.include(error.message, "the reply was over the 1 MiB cap (VTREE_PROVIDER_MAX_REPLY_BYTES)")
    }).pipe(Effect.provide(platform)))

  it.scoped("skips an unhealthy endpoint found at start", () =>
    Effect.gen(function*() {
      const sick = yield* sim({ healthy: false })
      const well = yield* sim()
      const dead = yield* Effect.promise(OcrSim.deadUrl)
      const paths = yield* frames(3)
      yield* transcribe(paths).pipe(Effect.provide(MonkeyOcr.layer(config([sick.url, dead, well.url]))))
      assert.strictEqual(sick.healthChecks, 1)
      assert.strictEqual(sick.requests.length, 0)
      assert.strictEqual(well.requests.length, 3)
    }).pipe(Effect.provide(platform)))

  it.scoped("a failed frame is retried once on the next endpoint, then left out", () =>
    Effect.gen(function*() {
      // a fails frame 0 (succeeds elsewhere); frame 2 fails everywhere.
      const a = yield* sim({
        reply: (file) => (file.name.endsWith("0.jpg") || file.name.endsWith("2.jpg")
          ? { status: 500 }
          : { success: true, content: `a:${file.name}` })
      })
      const b = yield* sim({
        reply: (file) => (file.name.endsWith("2.jpg")
          ? { success: false, message: "model crashed" }
          : { success: true, content: `b:${file.name}` })
      })
      const paths = yield* frames(3)
      const { transcript, entries } = yield* Effect.gen(function*() {
        const transcript = yield* transcribe(paths)
        return { transcript, entries: yield* (yield* MemoryCallLog).entries }
      }).pipe(Effect.provide(Layer.provideMerge(MonkeyOcr.layer(config([a.url, b.url])), MemoryCallLog.layer)))
      assert.include(transcript, "[Frame 1/3] L3_000.jpg\nb:L3_000.jpg")
      assert.include(transcript, "[Frame 2/3] L3_001.jpg\n")
      assert.notInclude(transcript, "L3_002")
      assert.strictEqual([...a.requests, ...b.requests].filter((file) => file.name === "L3_002.jpg").length, 2)
      assert.deepStrictEqual(entries.map((entry) => entry.status).sort(), ["error", "ok", "ok"])
      assert.isTrue(entries.every((entry) => entry.role === "ocr"))
    }).pipe(Effect.provide(platform)))

  it.scoped("every frame failing is an error, not an empty transcript", () =>
    Effect.gen(function*() {
      const a = yield* sim({ reply: () => ({ drop: true }) })
      const paths = yield* frames(2)
      const error = yield* Effect.flip(transcribe(paths).pipe(Effect.provide(MonkeyOcr.layer(config([a.url])))))
      assert.strictEqual(error.reason, "Transport")
      assert.include(error.message, "none of 2 frames")
    }).pipe(Effect.provide(platform)))

  it.scoped("all endpoints down → a clear error at start naming them and the variable", () =>
    Effect.gen(function*() {
      const sick = yield* sim({ healthy: false })
      const dead = yield* Effect.promise(OcrSim.deadUrl)
      const error = yield* Effect.flip(Layer.build(MonkeyOcr.layer(config([sick.url, dead]))))
      assert.strictEqual(error.reason, "Transport")
      assert.include(error.message, sick.url)
      assert.include(error.message, "HTTP 503")
      assert.include(error.message, dead)
      assert.include(error.message, "VTREE_OCR_URLS")
    }).pipe(Effect.provide(platform)))
})
