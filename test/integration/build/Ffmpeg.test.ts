import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Schedule } from "effect"
import jpeg from "jpeg-js"
import { execFileSync } from "node:child_process"
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { MediaError } from "../../../src/domain/Media.js"
import * as Ffmpeg from "../../../src/layers/ffmpeg/Ffmpeg.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import {
  defaultCues,
  makeAudioOnly,
  makeSyntheticVideo,
  type SyntheticVideo,
  truncateCopy
} from "../../support/media/SyntheticVideo.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const live = Ffmpeg.layer({
  ffmpeg: { name: "ffmpeg", command: "ffmpeg", variable: "VTREE_FFMPEG", fromVariable: false },
  ffprobe: { name: "ffprobe", command: "ffprobe", variable: "VTREE_FFPROBE", fromVariable: false }
}).pipe(Layer.provide(NodeContext.layer))

let dir = ""
let video: SyntheticVideo

beforeAll(async () => {
  dir = makeTempDir("media")
  // Segments: red [0, 5), a moving test pattern [5, 12), colour bars [12, 18).
  video = await makeSyntheticVideo({ dir, segmentSeconds: [5, 7, 6] })
})

afterAll(() => {
  if (dir !== "") removeTempDir(dir)
})

const meanColour = (path: string) => {
  const image = jpeg.decode(readFileSync(path), { useTArray: true })
  const sums = [0, 0, 0]
  // Below the burned-in clock, which sits in the top-left corner.
  for (let y = Math.floor(image.height / 2); y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const at = (y * image.width + x) * 4
      sums[0]! += image.data[at]!
      sums[1]! += image.data[at + 1]!
      sums[2]! += image.data[at + 2]!
    }
  }
  const count = image.width * (image.height - Math.floor(image.height / 2))
  return { width: image.width, height: image.height, rgb: sums.map((sum) => sum / count) }
}

const failure = <A>(effect: Effect.Effect<A, MediaError, MediaProbe | FrameSource>) =>
  Effect.map(Effect.either(effect), (result) => {
    assert.isTrue(Either.isLeft(result), "expected a MediaError")
    return (result as Either.Left<MediaError, A>).left
  })

// Several real ffmpeg runs per test: generous on a busy shared machine.
describe("Ffmpeg (live, over the system ffmpeg)", { timeout: 120_000 }, () => {
  it.layer(live)((it) => {
    it.effect("samples frames on the exact time grid, once per slot, with their real times", () =>
      Effect.gen(function*() {
        const frames = yield* FrameSource
        const outDir = join(dir, "grid-2")
        const result = yield* frames.extract({ path: video.video, intervalSeconds: 2, width: 160, outDir })
        assert.deepStrictEqual(result.frames.map((frame) => frame.timeSeconds), [0, 2, 4, 6, 8, 10, 12, 14, 16])
        assert.deepStrictEqual(result.damaged, [])
        assert.deepStrictEqual(
          readdirSync(outDir).sort(),
          result.frames.map((frame) => frame.path.slice(outDir.length + 1))
        )
        const first = meanColour(result.frames[0]!.path)
        assert.strictEqual(first.width, 160)
        assert.strictEqual(first.height, 90)
        // 4 s is still the red segment; 12 s is the first frame of the colour bars, not the pattern before.
        const red = meanColour(result.frames[2]!.path).rgb
        assert.isTrue(red[0]! > 200 && red[1]! < 60 && red[2]! < 60, `red frame at 4 s: ${red}`)
        const bars = meanColour(result.frames[6]!.path).rgb
        assert.isTrue(Math.abs(bars[0]! - red[0]!) > 40 || bars[1]! > 60, `bars frame at 12 s: ${bars}`)

        const three = yield* frames.extract({
          path: video.video,
          intervalSeconds: 3,
          width: 160,
          outDir: join(dir, "grid-3")
        })
        assert.deepStrictEqual(three.frames.map((frame) => frame.timeSeconds), [0, 3, 6, 9, 12, 15])
      }))

    it.effect("finds the shot changes at the known cuts and nowhere else", () =>
      Effect.gen(function*() {
        const frames = yield* FrameSource
        const result = yield* frames.extract({
          path: video.video,
          intervalSeconds: 2,
          width: 160,
          outDir: join(dir, "shots")
        })
        assert.strictEqual(result.shotChanges.length, video.cutTimes.length, `shots: ${result.shotChanges}`)
        // Every other frame is scored: a cut is placed at most one frame (40 ms) late.
        result.shotChanges.forEach((time, i) => assert.approximately(time, video.cutTimes[i]! + 0.02, 0.021))
      }))

    it.effect("probes duration, size and streams, subtitles included", () =>
      Effect.gen(function*() {
        const probe = yield* MediaProbe
        const info = yield* probe.probe(video.video)
        assert.approximately(info.durationSeconds, 18, 0.05)
        assert.strictEqual(info.width, 320)
        assert.strictEqual(info.height, 180)
        assert.deepStrictEqual(info.streams.map((stream) => stream.kind), ["video", "audio", "subtitle"])
        assert.strictEqual(info.streams[2]!.language, "eng")
        assert.isTrue(info.sizeBytes > 0)
      }))

    it.effect("reads the embedded subtitle stream as cues", () =>
      Effect.gen(function*() {
        const probe = yield* MediaProbe
        const cues = yield* probe.subtitleStream(video.video, 2)
        assert.strictEqual(cues.length, defaultCues.length)
        cues.forEach((cue, i) => {
          assert.approximately(cue.start, defaultCues[i]!.start, 0.002)
          assert.approximately(cue.end, defaultCues[i]!.end, 0.002)
          assert.strictEqual(cue.text, defaultCues[i]!.text)
        })
      }))

    it.effect("reads a Matroska copy the same way: duration from its tags, the SRT stream, the same grid", () =>
      Effect.gen(function*() {
        const mkv = join(dir, "copy.mkv")
        execFileSync("ffmpeg", [
          "-hide_banner",
          "-loglevel",
          "error",
          "-y",
          "-i",
          video.video,
          "-map",
          "0",
          "-c:v",
          "copy",
          "-c:a",
          "copy",
          "-c:s",
          "srt",
          mkv
        ])
        const probe = yield* MediaProbe
        const info = yield* probe.probe(mkv)
        assert.approximately(info.durationSeconds, 18, 0.05)
        assert.strictEqual(info.streams[2]!.codec, "subrip")
        const cues = yield* probe.subtitleStream(mkv, 2)
        assert.deepStrictEqual(cues.map((cue) => cue.text), defaultCues.map((cue) => cue.text))
        const frames = yield* (yield* FrameSource).extract({
          path: mkv,
          intervalSeconds: 2,
          width: 160,
          outDir: join(dir, "mkv")
        })
        assert.deepStrictEqual(frames.frames.map((frame) => frame.timeSeconds), [0, 2, 4, 6, 8, 10, 12, 14, 16])
      }))

    it.effect("measures a clip whose timestamps start late by its length, and samples it from 0", () =>
      Effect.gen(function*() {
        const probe = yield* MediaProbe
        const frameSource = yield* FrameSource
        // -itsoffset writes an MP4 edit list whose empty first edit starts the picture at 600 s;
        // -output_ts_offset writes Matroska timestamps from 600 s.
        const late = [
          { file: join(dir, "late.mp4"), args: ["-itsoffset", "600", "-i", video.video] },
          { file: join(dir, "late.mkv"), args: ["-i", video.video, "-output_ts_offset", "600"] }
        ]
        for (const { args, file } of late) {
          execFileSync("ffmpeg", [
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            ...args,
            "-map",
            "0:v",
            "-map",
            "0:a",
            "-c",
            "copy",
            file
          ])
          const info = yield* probe.probe(file)
          assert.approximately(info.durationSeconds, 18, 0.1, file)
          const frames = yield* frameSource.extract({
            path: file,
            intervalSeconds: 2,
            width: 160,
            outDir: join(dir, `late-${file.slice(-3)}`)
          })
          assert.deepStrictEqual(frames.frames.map((frame) => frame.timeSeconds), [0, 2, 4, 6, 8, 10, 12, 14, 16])
          assert.strictEqual(frames.shotChanges.length, video.cutTimes.length)
        }
      }))

    it.effect("extracts a span of audio as mono 16 kHz", () =>
      Effect.gen(function*() {
        const probe = yield* MediaProbe
        const outFile = join(dir, "span.wav")
        yield* probe.extractAudio({ path: video.video, outFile, startSeconds: 3, durationSeconds: 4 })
        const audio = yield* probe.probe(outFile)
        assert.approximately(audio.durationSeconds, 4, 0.05)
        const facts = execFileSync("ffprobe", [
          "-v",
          "error",
          "-show_entries",
          "stream=sample_rate,channels,codec_name",
          "-of",
          "csv=p=0",
          outFile
        ], { encoding: "utf8" }).trim()
        assert.strictEqual(facts, "pcm_s16le,16000,1")
        // 16-bit mono at 16 kHz: 32 000 bytes a second plus the header.
        assert.approximately(readFileSync(outFile).length, 4 * 32_000 + 44, 200)
      }))

    it.effect("refuses what is not a usable video, each with its reason and one line", () =>
      Effect.gen(function*() {
        const frames = yield* FrameSource
        const probe = yield* MediaProbe
        const extract = (path: string) =>
          frames.extract({ path, intervalSeconds: 2, width: 160, outDir: join(dir, "bad") })

        const text = join(dir, "notes.mp4")
        writeFileSync(text, "these are my notes, not a video\n")
        const notMedia = yield* failure(extract(text))
        assert.strictEqual(notMedia.reason, "NotMedia")

        const audio = yield* Effect.promise(() => makeAudioOnly(dir))
        const noVideo = yield* failure(extract(audio))
        assert.strictEqual(noVideo.reason, "NoVideo")
        assert.match(noVideo.message, /audio-only/)

        const empty = join(dir, "empty.mp4")
        writeFileSync(empty, "")
        const zero = yield* failure(extract(empty))
        assert.strictEqual(zero.reason, "Truncated")
        assert.match(zero.message, /empty/)

        // The index is at the front: the file opens, and decoding stops where the bytes end.
        const cut = yield* Effect.promise(() => truncateCopy(video.video, join(dir, "cut.mp4"), 0.5))
        const truncated = yield* failure(extract(cut))
        assert.strictEqual(truncated.reason, "Truncated")
        assert.match(truncated.message, /decode only up to \d+\.\d s of 18\.0 s/)
        assert.isFalse(readdirSync(join(dir, "bad")).some((name) => name.endsWith(".jpg")), "no frames left behind")

        // The index was to be written last and is gone.
        const tailless = yield* Effect.promise(async () => {
          const whole = await makeSyntheticVideo({
            dir,
            name: "tail",
            segmentSeconds: [2, 2],
            faststart: false,
            subtitleStream: false
          })
          return truncateCopy(whole.video, join(dir, "tailless.mp4"), 0.6)
        })
        const noIndex = yield* failure(probe.probe(tailless))
        assert.strictEqual(noIndex.reason, "Truncated")

        const missing = yield* failure(probe.probe(join(dir, "nowhere.mp4")))
        assert.strictEqual(missing.reason, "Unreadable")

        for (const error of [notMedia, noVideo, zero, truncated, noIndex, missing]) {
          assert.notInclude(error.message, "\n")
          assert.isTrue(error.message.startsWith(error.path), error.message)
        }
      }))
  })

  it.effect("a missing ffmpeg is one line saying how to install it or set the variable", () =>
    Effect.gen(function*() {
      const probe = yield* MediaProbe
      const copy = join(dir, "copy.mp4")
      copyFileSync(video.video, copy)
      const error = yield* failure(probe.probe(copy))
      assert.strictEqual(error.reason, "ToolMissing")
      assert.strictEqual(
        error.message,
        "VTREE_FFPROBE=/nonexistent/ffprobe: no such program — fix the path or unset VTREE_FFPROBE to use ffprobe from PATH"
      )
      assert.isTrue(existsSync(copy))
    }).pipe(
      Effect.provide(
        Ffmpeg.layer({
          ffmpeg: { name: "ffmpeg", command: "ffmpeg", variable: "VTREE_FFMPEG", fromVariable: false },
          ffprobe: { name: "ffprobe", command: "/nonexistent/ffprobe", variable: "VTREE_FFPROBE", fromVariable: true }
        }).pipe(Layer.provide(NodeContext.layer))
      )
    ))

  it.live("interrupting an extraction kills the ffmpeg it started", () =>
    Effect.gen(function*() {
      // An "ffmpeg" that records its pid and then hangs, as a long decode would.
      const pidFile = join(dir, "hung.pid")
      const fake = join(dir, "hung-ffmpeg.sh")
      writeFileSync(fake, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 120\n`)
      chmodSync(fake, 0o755)
      const frames = yield* FrameSource
      const fiber = yield* Effect.fork(
        frames.extract({ path: video.video, intervalSeconds: 2, width: 160, outDir: join(dir, "interrupted") })
      )
      yield* Effect.sync(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "").pipe(
        Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (started) => started })
      )
      const pid = Number(readFileSync(pidFile, "utf8").trim())
      yield* Fiber.interrupt(fiber)
      const alive = (() => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      })()
      assert.isFalse(alive, `process ${pid} is still running`)
    }).pipe(
      Effect.provide(
        Layer.suspend(() =>
          Ffmpeg.layer({
            ffmpeg: {
              name: "ffmpeg",
              command: join(dir, "hung-ffmpeg.sh"),
              variable: "VTREE_FFMPEG",
              fromVariable: true
            },
            ffprobe: { name: "ffprobe", command: "ffprobe", variable: "VTREE_FFPROBE", fromVariable: false }
          })
        ).pipe(Layer.provide(NodeContext.layer))
      )
    ))
})
