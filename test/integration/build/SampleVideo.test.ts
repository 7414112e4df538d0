import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Ffmpeg from "../../../src/layers/ffmpeg/Ffmpeg.js"
import { resolveSubtitles } from "../../../src/programs/builder/Subtitles.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"

const video = fileURLToPath(new URL("../../../samples/video/vtDemo0001a.mp4", import.meta.url))

describe("the committed sample video", { timeout: 120_000 }, () => {
  it.layer(Layer.provideMerge(Ffmpeg.layerConfig, NodeContext.layer))((it) => {
    it.effect("is small, 30 s long, cut into four shots, with its .srt as a sidecar", () =>
      Effect.gen(function*() {
        assert.isBelow(statSync(video).size, 300_000)
        const info = yield* (yield* MediaProbe).probe(video)
        assert.approximately(info.durationSeconds, 30, 0.1)
        assert.deepStrictEqual([info.width, info.height], [320, 180])
        const outDir = mkdtempSync(join(tmpdir(), "vtree-sample-"))
        const frames = yield* (yield* FrameSource).extract({ path: video, intervalSeconds: 2, width: 160, outDir })
          .pipe(
            Effect.ensuring(Effect.sync(() => rmSync(outDir, { recursive: true, force: true })))
          )
        assert.strictEqual(frames.frames.length, 15)
        assert.deepStrictEqual(frames.shotChanges.map(Math.round), [6, 14, 22])
        const subtitles = yield* resolveSubtitles({ video, videoId: "vtDemo0001a" })
        assert.strictEqual(subtitles.source, "sidecar")
        assert.strictEqual(subtitles.cues.length, 7)
      }))
  })
})
