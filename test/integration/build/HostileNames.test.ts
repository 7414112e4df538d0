// File names that look like options or protocols, handed to the real ffprobe/ffmpeg (issue #21 point 2).
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { copyFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Ffmpeg from "../../../src/layers/ffmpeg/Ffmpeg.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const sample = fileURLToPath(new URL("../../../samples/video/vtDemo0001a.mp4", import.meta.url))

/** Runs `effect` with the working folder set to a fresh temporary one holding the sample under `names`. */
const inFolderWith = <A, E, R>(names: ReadonlyArray<string>, effect: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const dir = makeTempDir("hostile")
      for (const name of names) copyFileSync(sample, join(dir, name))
      const previous = process.cwd()
      process.chdir(dir)
      return { dir, previous }
    }),
    ({ dir }) => effect(dir),
    ({ dir, previous }) =>
      Effect.sync(() => {
        process.chdir(previous)
        removeTempDir(dir)
      })
  )

describe("paths handed to ffprobe and ffmpeg are never options", { timeout: 120_000 }, () => {
  it.layer(Layer.provideMerge(Ffmpeg.layerConfig, NodeContext.layer))((it) => {
    it.effect("a video named -report is probed, and ffprobe writes no report into the working folder", () =>
      inFolderWith(["-report"], (dir) =>
        Effect.gen(function*() {
          const info = yield* (yield* MediaProbe).probe("-report")
          assert.approximately(info.durationSeconds, 30, 0.1)
          assert.deepStrictEqual(readdirSync(dir).filter((name) => name.startsWith("ffprobe-")), [])
        })))

    it.effect("a video named -leading.mp4 is probed and its frames extracted, into a folder with % in its name", () =>
      inFolderWith(["-leading.mp4"], (dir) =>
        Effect.gen(function*() {
          const info = yield* (yield* MediaProbe).probe("-leading.mp4")
          assert.deepStrictEqual([info.width, info.height], [320, 180])
          const outDir = join(dir, "frames %d")
          const frames = yield* (yield* FrameSource).extract({
            path: "-leading.mp4",
            intervalSeconds: 2,
            width: 160,
            outDir
          })
          assert.strictEqual(frames.frames.length, 15)
          assert.strictEqual(readdirSync(outDir).filter((name) => name.endsWith(".jpg")).length, 15)
        })))
  })
})
