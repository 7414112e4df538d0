import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { statSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as Ffmpeg from "../../../src/layers/ffmpeg/Ffmpeg.js"
import { resolveSubtitles } from "../../../src/programs/builder/Subtitles.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const video = fileURLToPath(new URL("../../../samples/video/vtDemo0001a.mp4", import.meta.url))

describe("the committed sample video", { timeout: 120_000 }, () => {
  it.layer(Layer.provideMerge(Ffmpeg.layerConfig, NodeContext.layer))((it) => {
    it.effect("is small, 30 s long, cut into four shots, with its .srt as a sidecar", () =>
      Effect.gen(function*() {
        assert.isBelow(statSync(video).size, 300_000)
        const info = yield* (yield* MediaProbe).probe(video)
        assert.approximately(info.durationSeconds, 30, 0.1)
        assert.deepStrictEqual([info.width, info.height], [320, 180])
        const outDir = makeTempDir("sample")
        const frames = yield* (yield* FrameSource).extract({ path: video, intervalSeconds: 2, width: 160, outDir })
          .pipe(
            Effect.ensuring(Effect.sync(() => removeTempDir(outDir)))
          )
        assert.strictEqual(frames.frames.length, 15)
        assert.deepStrictEqual(frames.shotChanges.map(Math.round), [6, 14, 22])
        const subtitles = yield* resolveSubtitles({ video, videoId: "vtDemo0001a" })
        assert.strictEqual(subtitles.source, "sidecar")
        assert.strictEqual(subtitles.cues.length, 7)
      }))
  })
})
