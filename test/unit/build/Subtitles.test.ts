import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Path from "@effect/platform/Path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Ref } from "effect"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { MediaError, type MediaInfo, type SubtitleCue } from "../../../src/domain/Media.js"
import { parseSubtitles, plainText } from "../../../src/domain/SubtitleFormat.js"
import { cueLines } from "../../../src/programs/builder/Cards.js"
import {
  resolveSubtitles,
  sidecarCandidates,
  subtitleCallChars,
  subtitleCharBudget,
  subtitleFor
} from "../../../src/programs/builder/Subtitles.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import { SpeechToText } from "../../../src/services/SpeechToText.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

// As Video-MME ships them: `subtitle/<videoID>.srt`, every line wrapped in a <font> tag.
const videoMmeSrt = [
  "1",
  "00:00:01,080 --> 00:00:03,500",
  "<font face=\"Serif\" size=\"18\">Welcome back to the kitchen</font>",
  "",
  "2",
  "00:00:03,500 --> 00:00:06,000",
  "<font face=\"Serif\" size=\"18\">today we&apos;re making</font>",
  "<font face=\"Serif\" size=\"18\">bread &amp; butter</font>",
  "",
  "3",
  "00:00:10,000 --> 00:00:12,250",
  "{\\an8}<i>(oven beeps)</i>",
  ""
].join("\n")

const parse = (text: string, path: string) => Effect.either(parseSubtitles(text, { path }))

describe("subtitle parsing", () => {
  it.effect("reads SRT with Video-MME's <font> tags as plain text", () =>
    Effect.gen(function*() {
      const cues = yield* parseSubtitles(videoMmeSrt, { path: "subtitle/abc.srt" })
      assert.deepStrictEqual(cues, [
        { start: 1.08, end: 3.5, text: "Welcome back to the kitchen" },
        { start: 3.5, end: 6, text: "today we're making bread & butter" },
        { start: 10, end: 12.25, text: "(oven beeps)" }
      ])
    }))

  it.effect("reads WebVTT, a voice span as its speaker's name, class spans removed", () =>
    Effect.gen(function*() {
      const vtt =
        "WEBVTT\n\n00:01.000 --> 00:02.500\n<v Ana>Hello</v> <c.loud>there</c>\n\n01:00:00.000 --> 01:00:01.000 align:start\nlate\n"
      const cues = yield* parseSubtitles(vtt, { path: "talk.vtt" })
      assert.deepStrictEqual(cues, [
        { start: 1, end: 2.5, text: "[Ana] Hello there" },
        { start: 3600, end: 3601, text: "late" }
      ])
    }))

  it.effect("a malformed file fails naming the file and the line", () =>
    Effect.gen(function*() {
      const bad = "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:0x,000 --> 00:00:05,000\nbroken\n"
      const result = yield* parse(bad, "subs/bad.srt")
      assert.isTrue(Either.isLeft(result))
      const error = Either.flip(result).pipe(Either.getOrThrow)
      assert.strictEqual(error.line, 6)
      assert.match(
        error.message,
        /^subs\/bad\.srt:6: cue start timestamp `00:00:0x\.000` is invalid — fix the line or remove the file$/
      )

      const prose = yield* parse("Dear diary,\ntoday I filmed a cat.\n", "notes.srt")
      assert.isTrue(Either.isLeft(prose))
      assert.match(Either.isLeft(prose) ? prose.left.message : "", /^notes\.srt:1: no SRT cue found/)
    }))

  it.effect("an empty file is no cues, not an error", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* parseSubtitles("", { path: "empty.srt" }), [])
      assert.deepStrictEqual(yield* parseSubtitles("WEBVTT\n", { path: "empty.vtt" }), [])
    }))

  it("plainText strips markup and decodes entities", () => {
    assert.strictEqual(plainText("<font color=\"#ffff00\">Tom &amp; Jerry</font>\n<b>run</b>"), "Tom & Jerry run")
    assert.strictEqual(plainText("<00:00:01.000>karaoke <00:00:01.500>words"), "karaoke words")
    assert.strictEqual(plainText("1 &lt; 2"), "1 < 2")
    assert.strictEqual(plainText("<i></i>"), "")
  })
})

describe("subtitle parsing at scale", () => {
  const clock = (seconds: number) => new Date(seconds * 1000).toISOString().slice(11, 23).replace(".", ",")

  // Linear, not quadratic: at 100,000 cues the old parser took 80 s (BENCHMARKS.md has the timing).
  it.effect("reads a 100,000-cue SRT file, every cue in order", () =>
    Effect.gen(function*() {
      const srt = Array.from(
        { length: 100_000 },
        (_, i) => `${i + 1}\n${clock(i / 2)} --> ${clock(i / 2 + 0.25)}\nline ${i}\n`
      ).join("\n")
      const cues = yield* parseSubtitles(srt, { path: "long.srt" })
      assert.strictEqual(cues.length, 100_000)
      assert.deepStrictEqual(cues.at(-1), { start: 49_999.5, end: 49_999.75, text: "line 99999" })
    }), { timeout: 60_000 })

  // The hostile shape of issue #33 in the other format: 100,000 WebVTT cues all running to the end of one
  // minute, written out of order. Every one is read, in start order; what a node keeps of them is capped
  // by subtitleFor. (Timing: BENCHMARKS.md, "Subtitle parsing".)
  it.effect(
    "reads 100,000 overlapping WebVTT cues written out of order, every one, sorted by start",
    () =>
      Effect.gen(function*() {
        const vtt = "WEBVTT\n\n" + Array.from({ length: 100_000 }, (_, i) => {
          const start = ((i * 7919) % 600) / 10
          return `${clock(start).replace(",", ".")} --> 00:01:00.000\ncue ${i}\n`
        }).join("\n")
        const cues = yield* parseSubtitles(vtt, { path: "piled.vtt" })
        assert.strictEqual(cues.length, 100_000)
        assert.strictEqual(new Set(cues.map((cue) => cue.text)).size, 100_000)
        for (let i = 1; i < cues.length; i++) assert.isAtMost(cues[i - 1]!.start, cues[i]!.start)
        assert.deepStrictEqual([cues[0]!.start, cues.at(-1)!.start, cues.at(-1)!.end], [0, 59.9, 60])
        assert.isAtMost(subtitleFor(cues, [0, 60]).length, subtitleCharBudget(60) + 1)
      }),
    { timeout: 60_000 }
  )
})

describe("subtitleFor", () => {
  const cues: ReadonlyArray<SubtitleCue> = [
    { start: 0, end: 2, text: "one" },
    { start: 2, end: 4, text: "two" },
    { start: 3, end: 5, text: "two" },
    { start: 9, end: 11, text: "three" }
  ]

  it("joins every cue overlapping the range, touching ends excluded", () => {
    assert.strictEqual(subtitleFor(cues, [0, 2]), "one")
    assert.strictEqual(subtitleFor(cues, [1, 3.5]), "one two")
    assert.strictEqual(subtitleFor(cues, [0, 20]), "one two three")
    assert.strictEqual(subtitleFor(cues, [5, 9]), "")
    assert.strictEqual(subtitleFor(cues, [10.5, 30]), "three")
  })

  it("a frame's instant takes the cue on screen then", () => {
    assert.strictEqual(subtitleFor(cues, [2, 2]), "two")
    assert.strictEqual(subtitleFor(cues, [10, 10]), "three")
    assert.strictEqual(subtitleFor(cues, [6, 6]), "")
  })

  it("20,000 overlapping cues give a node a reading's worth of text, not all of them", () => {
    const piled: Array<SubtitleCue> = Array.from({ length: 20_000 }, (_, i) => ({
      start: (i % 600) / 10,
      end: 60,
      text: `overlapping caption number ${i}`
    }))
    const minute = subtitleFor(piled, [0, 60])
    assert.isTrue(minute.startsWith("overlapping caption number 0 overlapping caption number 1 "))
    assert.isAtMost(minute.length, subtitleCharBudget(60) + 1)
    assert.isTrue(minute.endsWith("…"))
    assert.isAtMost(subtitleFor(piled, [30, 30]).length, subtitleCharBudget(0) + 1)
    // An event call over the minute shows the cue lines up to its budget and counts the rest.
    const lines = cueLines(piled, subtitleCallChars(60)).split("\n")
    assert.isAtMost(lines.slice(0, -1).join("\n").length, subtitleCallChars(60) + 1)
    const shown = lines.length - 1
    assert.strictEqual(lines.at(-1), `(${20_000 - shown} more cues in this span not shown)`)
    assert.strictEqual(lines[0], "[0.0–60.0 s] overlapping caption number 0")
    // One cue longer than the whole budget is cut, not dropped.
    const huge = cueLines([{ start: 0, end: 2, text: "x".repeat(100_000) }], subtitleCallChars(2))
    assert.strictEqual(huge.length, subtitleCallChars(2) + 1)
    assert.isTrue(huge.startsWith("[0.0–2.0 s] xxx") && huge.endsWith("x…"))
    // Within the budget — any real track — the lines are exactly what they were without one.
    assert.strictEqual(cueLines(cues, subtitleCallChars(11)), cueLines(cues))
    // A line repeated anywhere in the range is kept once, not only when it follows itself.
    const alternating = Array.from({ length: 1000 }, (_, i) => ({ start: i, end: i + 1, text: i % 2 ? "a" : "b" }))
    assert.strictEqual(subtitleFor(alternating, [0, 1000]), "b a")
  })
})

describe("resolveSubtitles", () => {
  const info = (streams: MediaInfo["streams"]): MediaInfo => ({
    path: "/v/clip.mp4",
    sizeBytes: 1,
    durationSeconds: 100,
    width: 320,
    height: 180,
    streams
  })
  const withAll = info([
    { index: 0, kind: "video", codec: "h264" },
    { index: 1, kind: "audio", codec: "aac" },
    { index: 2, kind: "subtitle", codec: "hdmv_pgs_subtitle" },
    { index: 3, kind: "subtitle", codec: "mov_text" }
  ])
  const embeddedCues = [{ start: 1, end: 2, text: "embedded" }]

  // The MediaProbe fake: stream 2 is pictures (unreadable as text), stream 3 is text; audio spans are
  // recorded and written as files so the chunk loop can clean them up.
  const probeFake = (spans: Ref.Ref<ReadonlyArray<readonly [number, number]>>) =>
    Layer.succeed(
      MediaProbe,
      MediaProbe.of({
        probe: () => Effect.succeed(withAll),
        subtitleStream: (path, index) =>
          index === 3
            ? Effect.succeed(embeddedCues)
            : Effect.fail(
              new MediaError({ reason: "Failed", path, message: `${path}: subtitle stream ${index} is pictures` })
            ),
        extractAudio: ({ durationSeconds, outFile, startSeconds }) =>
          Effect.andThen(
            Ref.update(spans, (all) => [...all, [startSeconds, durationSeconds] as const]),
            Effect.sync(() => writeFileSync(outFile, "RIFF"))
          )
      })
    )
  const speechFake = Layer.succeed(
    SpeechToText,
    SpeechToText.of({
      model: "whisper-sim",
      maxUploadBytes: 32_000 * 41,
      transcribe: () => Effect.succeed([{ start: 1, end: 3, text: "spoken" }])
    })
  )

  const setup = () => {
    const dir = makeTempDir("subs")
    const video = join(dir, "clip.mp4")
    writeFileSync(video, "not read by the fakes")
    return { dir, video, cleanup: () => removeTempDir(dir) }
  }
  const srt = (text: string) => `1\n00:00:01,000 --> 00:00:02,000\n${text}\n`

  it.effect("takes the first source that applies: file, sidecar, subtitles dir, embedded, asr, none", () =>
    Effect.gen(function*() {
      const spans = yield* Ref.make<ReadonlyArray<readonly [number, number]>>([])
      const { cleanup, dir, video } = setup()
      try {
        const resolve = (request: Omit<Parameters<typeof resolveSubtitles>[0], "video" | "videoId">, asr = false) =>
          resolveSubtitles({ video, videoId: "vid01", ...request }).pipe(
            Effect.provide(asr ? Layer.merge(probeFake(spans), speechFake) : probeFake(spans))
          )
        mkdirSync(join(dir, "subtitle"))
        writeFileSync(join(dir, "chosen.srt"), srt("from the flag"))
        writeFileSync(join(dir, "subtitle", "vid01.srt"), srt("<font size=\"18\">from the dir</font>"))

        const viaDir = yield* resolve({ subtitlesDir: join(dir, "subtitle") })
        assert.strictEqual(viaDir.source, "dir")
        assert.deepStrictEqual(viaDir.cues.map((cue) => cue.text), ["from the dir"])

        writeFileSync(join(dir, "clip.vtt"), `WEBVTT\n\n00:01.000 --> 00:02.000\nbeside the video\n`)
        const beside = yield* resolve({ subtitlesDir: join(dir, "subtitle") })
        assert.strictEqual(beside.source, "sidecar")
        assert.strictEqual(beside.from, join(dir, "clip.vtt"))

        const flag = yield* resolve({ subtitlesFile: join(dir, "chosen.srt"), subtitlesDir: join(dir, "subtitle") })
        assert.deepStrictEqual([flag.source, flag.cues[0]?.text], ["file", "from the flag"])

        rmSync(join(dir, "clip.vtt"))
        const embedded = yield* resolve({}, true)
        assert.deepStrictEqual([embedded.source, embedded.from], ["embedded", `${video}#3`])
        assert.deepStrictEqual(embedded.cues, embeddedCues)
      } finally {
        cleanup()
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("falls back to speech-to-text in chunks under the upload limit, times shifted, then to none", () =>
    Effect.gen(function*() {
      const spans = yield* Ref.make<ReadonlyArray<readonly [number, number]>>([])
      const { cleanup, video } = setup()
      const noText = info([{ index: 0, kind: "video", codec: "h264" }, { index: 1, kind: "audio", codec: "aac" }])
      try {
        const asr = yield* resolveSubtitles({ video, videoId: "vid01", info: noText }).pipe(
          Effect.provide(Layer.merge(probeFake(spans), speechFake))
        )
        assert.strictEqual(asr.source, "asr")
        // 41 s of PCM allowed, less the header and margin: 40 s chunks over 100 s.
        assert.deepStrictEqual(yield* Ref.get(spans), [[0, 40], [40, 40], [80, 20]])
        assert.deepStrictEqual(asr.cues.map((cue) => [cue.start, cue.end]), [[1, 3], [41, 43], [81, 83]])

        const none = yield* resolveSubtitles({ video, videoId: "vid01", info: noText }).pipe(
          Effect.provide(probeFake(spans))
        )
        assert.deepStrictEqual(none, { source: "none", cues: [] })
      } finally {
        cleanup()
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a malformed sidecar fails with file and line instead of falling through", () =>
    Effect.gen(function*() {
      const spans = yield* Ref.make<ReadonlyArray<readonly [number, number]>>([])
      const { cleanup, dir, video } = setup()
      try {
        writeFileSync(
          join(dir, "clip.srt"),
          "1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\nnot a time --> 00:00:05,000\nx\n"
        )
        const result = yield* Effect.either(
          resolveSubtitles({ video, videoId: "clip" }).pipe(Effect.provide(probeFake(spans)))
        )
        assert.isTrue(Either.isLeft(result))
        if (Either.isLeft(result)) {
          assert.strictEqual(result.left._tag, "SubtitleError")
          assert.strictEqual(result.left._tag === "SubtitleError" ? result.left.reason : undefined, "Syntax")
          assert.match(result.left.message, new RegExp(`^${join(dir, "clip.srt")}:6: `))
        }
      } finally {
        cleanup()
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("sidecar candidates: beside the video, then the subtitles dir by videoID, then by the file's name", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      assert.deepStrictEqual(
        sidecarCandidates(path, { video: "/videos/My Clip.mkv", videoId: "myclip", subtitlesDir: "/subs" }),
        [
          "/videos/My Clip.srt",
          "/videos/My Clip.vtt",
          "/subs/myclip.srt",
          "/subs/myclip.vtt",
          "/subs/myclip.json",
          "/subs/myclip_en.json",
          "/subs/myclip.jsonl",
          "/subs/My Clip.srt",
          "/subs/My Clip.vtt",
          "/subs/My Clip.json",
          "/subs/My Clip_en.json",
          "/subs/My Clip.jsonl"
        ]
      )
      // The files a question file names (LongVideoBench's subtitle_path) come first.
      assert.deepStrictEqual(
        sidecarCandidates(path, { video: "/v/a.mp4", videoId: "a", named: ["/q/a_en.json", "/q/subtitles/a_en.json"] }),
        ["/q/a_en.json", "/q/subtitles/a_en.json", "/v/a.srt", "/v/a.vtt"]
      )
    }).pipe(Effect.provide(Path.layer)))

  it.effect("LongVideoBench JSON subtitles, both entry shapes, shifted back by the question file's offset", () =>
    Effect.gen(function*() {
      const spans = yield* Ref.make<ReadonlyArray<readonly [number, number]>>([])
      const { cleanup, dir, video } = setup()
      try {
        mkdirSync(join(dir, "subs"))
        writeFileSync(
          join(dir, "subs", "vid01_en.json"),
          JSON.stringify([
            { timestamp: [10, 12.5], text: "before the clip" },
            { timestamp: [21, 24], text: "first" },
            { timestamp: [118, null], text: "to the end" }
          ])
        )
        const timestamps = yield* resolveSubtitles({
          video,
          videoId: "vid01",
          subtitlesDir: join(dir, "subs"),
          subtitleOffset: 20
        }).pipe(
          Effect.provide(probeFake(spans))
        )
        assert.deepStrictEqual([timestamps.source, timestamps.from], ["dir", join(dir, "subs", "vid01_en.json")])
        assert.deepStrictEqual(timestamps.cues, [{ start: 1, end: 4, text: "first" }, {
          start: 98,
          end: 100,
          text: "to the end"
        }])

        writeFileSync(
          join(dir, "named.json"),
          JSON.stringify([{ start: "00:01:05.500", end: "00:01:07.000", line: "a line" }])
        )
        const lines = yield* resolveSubtitles({
          video,
          videoId: "vid01",
          named: [join(dir, "absent.json"), join(dir, "named.json")],
          subtitleOffset: 60
        }).pipe(
          Effect.provide(probeFake(spans))
        )
        assert.deepStrictEqual(lines.cues, [{ start: 5.5, end: 7, text: "a line" }])

        writeFileSync(
          join(dir, "bad.json"),
          JSON.stringify([{ start: "00:00:01.000", line: "ok" }, { start: "soon", line: "x" }])
        )
        const bad = yield* Effect.either(
          resolveSubtitles({ video, videoId: "vid01", named: [join(dir, "bad.json")] }).pipe(
            Effect.provide(probeFake(spans))
          )
        )
        assert.isTrue(
          Either.isLeft(bad) && bad.left._tag === "SubtitleError" &&
            bad.left.message.startsWith(`${join(dir, "bad.json")}: index 1: start: `)
        )
        writeFileSync(join(dir, "broken.json"), "[{")
        const broken = yield* Effect.either(
          resolveSubtitles({ video, videoId: "vid01", named: [join(dir, "broken.json")] }).pipe(
            Effect.provide(probeFake(spans))
          )
        )
        assert.isTrue(
          Either.isLeft(broken) && broken.left._tag === "SubtitleError" &&
            broken.left.message.startsWith(`${join(dir, "broken.json")}: not valid JSON`)
        )
      } finally {
        cleanup()
      }
    }).pipe(Effect.provide(NodeContext.layer)))
})
