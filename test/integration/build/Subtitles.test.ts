import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Ffmpeg from "../../../src/layers/ffmpeg/Ffmpeg.js"
import * as OpenAiSpeech from "../../../src/layers/openai/OpenAiSpeech.js"
import { resolveSubtitles, subtitleFor } from "../../../src/programs/builder/Subtitles.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { defaultCues, formatSrt, makeSyntheticVideo, type SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import * as Sim from "../../support/openai-sim/index.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const media = Ffmpeg.layer({
  ffmpeg: { name: "ffmpeg", command: "ffmpeg", variable: "VTREE_FFMPEG", fromVariable: false },
  ffprobe: { name: "ffprobe", command: "ffprobe", variable: "VTREE_FFPROBE", fromVariable: false }
})
const live = Layer.provideMerge(media, NodeContext.layer)

let dir = ""
let video: SyntheticVideo
let silent: SyntheticVideo
let sim: Sim.OpenAiSim

beforeAll(async () => {
  dir = makeTempDir("subtitles")
  mkdirSync(join(dir, "muxed"))
  mkdirSync(join(dir, "plain"))
  video = await makeSyntheticVideo({ dir: join(dir, "muxed"), name: "clip01", segmentSeconds: [5, 7, 6] })
  silent = await makeSyntheticVideo({
    dir: join(dir, "plain"),
    name: "talk01",
    segmentSeconds: [6, 6],
    subtitleStream: false
  })
  // A video with a tone and no subtitles anywhere: only speech-to-text applies.
  rmSync(silent.srt)
  sim = await Sim.start()
})

afterAll(async () => {
  await sim?.close()
  if (dir !== "") removeTempDir(dir)
})

const texts = (cues: ReadonlyArray<{ readonly text: string }>) => cues.map((cue) => cue.text)

describe("subtitles from each source, over real ffmpeg", { timeout: 120_000 }, () => {
  it.layer(live)((it) => {
    it.effect("--subtitles FILE, a sidecar, the subtitles dir, then the embedded stream", () =>
      Effect.gen(function*() {
        const elsewhere = join(dir, "chosen.srt")
        writeFileSync(elsewhere, formatSrt([{ start: 1, end: 2, text: "chosen by flag" }]))
        const byFlag = yield* resolveSubtitles({ video: video.video, videoId: "clip01", subtitlesFile: elsewhere })
        assert.deepStrictEqual([byFlag.source, texts(byFlag.cues)], ["file", ["chosen by flag"]])

        // makeSyntheticVideo leaves clip01.srt beside the video.
        const sidecar = yield* resolveSubtitles({ video: video.video, videoId: "clip01" })
        assert.deepStrictEqual([sidecar.source, texts(sidecar.cues)], ["sidecar", texts(defaultCues)])

        renameSync(video.srt, join(dir, "moved.srt"))
        const subtitleDir = join(dir, "subtitle")
        mkdirSync(subtitleDir)
        writeFileSync(
          join(subtitleDir, "clip01.srt"),
          formatSrt(defaultCues.map((cue) => ({ ...cue, text: `<font face="Serif" size="18">${cue.text}</font>` })))
        )
        const videoMme = yield* resolveSubtitles({ video: video.video, videoId: "clip01", subtitlesDir: subtitleDir })
        assert.deepStrictEqual([videoMme.source, texts(videoMme.cues)], ["dir", texts(defaultCues)])

        const embedded = yield* resolveSubtitles({
          video: video.video,
          videoId: "clip01",
          subtitlesDir: join(dir, "nowhere")
        })
        assert.strictEqual(embedded.source, "embedded")
        assert.deepStrictEqual(texts(embedded.cues), texts(defaultCues))

        const none = yield* resolveSubtitles({ video: silent.video, videoId: "talk01" })
        assert.deepStrictEqual(none, { source: "none", cues: [] })
      }))

    it.effect("cues attach to frames and ranges by overlap", () =>
      Effect.gen(function*() {
        const frames = yield* FrameSource
        const extraction = yield* frames.extract({
          path: video.video,
          intervalSeconds: 2,
          width: 160,
          outDir: join(dir, "frames")
        })
        const { cues } = yield* resolveSubtitles({
          video: video.video,
          videoId: "clip01",
          subtitlesDir: join(dir, "nowhere")
        })
        const byFrame = extraction.frames.map((frame) => subtitleFor(cues, [frame.timeSeconds, frame.timeSeconds]))
        // Cues: 0.5–2.5 red room, 5.5–8 test pattern, 12.5–15 colour bars; frames every 2 s.
        assert.deepStrictEqual(byFrame, [
          "",
          "The red room is empty.",
          "",
          "A test pattern appears.",
          "",
          "",
          "",
          "Colour bars fill the screen.",
          ""
        ])
        assert.strictEqual(subtitleFor(cues, [0, 6]), "The red room is empty. A test pattern appears.")
        assert.strictEqual(subtitleFor(cues, [8, 12.5]), "")
      }))
  })

  it.effect("speech-to-text when nothing else applies: chunked under the upload limit, times on the video's clock", () =>
    Effect.gen(function*() {
      sim.reset()
      const result = yield* resolveSubtitles({ video: silent.video, videoId: "talk01" })
      assert.strictEqual(result.source, "asr")
      // 5 s of PCM fit in 170 000 bytes: 12 s of audio in chunks of 5, 5 and 2 s, each answered with
      // one 5 s segment per chunk (the sim's default), shifted by the chunk start.
      const uploads = sim.requests.filter((request) => request.path === "/v1/audio/transcriptions")
      assert.strictEqual(uploads.length, 3)
      assert.deepStrictEqual(
        result.cues.map((cue) => [Math.round(cue.start * 100) / 100, Math.round(cue.end * 100) / 100, cue.text]),
        [
          [0, 5, "segment 0 of chunk-0000.wav"],
          [5, 10, "segment 0 of chunk-0001.wav"],
          [10, 12, "segment 0 of chunk-0002.wav"]
        ]
      )
    }).pipe((test) =>
      // The sim starts in beforeAll, after this test is declared: its URL is read when the test runs.
      Effect.suspend(() =>
        Effect.provide(
          test,
          Layer.mergeAll(
            media,
            OpenAiSpeech.layer({
              baseUrl: sim.url,
              apiKey: Option.none(),
              model: "whisper-sim",
              timeout: Duration.seconds(60),
              maxUploadBytes: 170_000,
              language: Option.none(),
              reliability: { concurrency: 2, retries: 0 }
            })
          ).pipe(Layer.provideMerge(NodeContext.layer))
        )
      )
    ))
})
