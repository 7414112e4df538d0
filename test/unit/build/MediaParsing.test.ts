import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import type { DamagedSpan } from "../../../src/domain/Media.js"
import {
  capSpans,
  damagedSpans,
  decoderMessage,
  decoderMessageLength,
  framePassArgs,
  gridGaps,
  maxDamagedSpans,
  parseFramePass
} from "../../../src/layers/ffmpeg/FrameGraph.js"
import { parseProbe } from "../../../src/layers/ffmpeg/ProbeJson.js"
import { missingMessage } from "../../../src/layers/ffmpeg/Tools.js"
import { audioChunks, pcmBytesPerSecond, shiftCues } from "../../../src/programs/builder/Transcription.js"

describe("the frame pass's report", () => {
  it("reads grid and scene times from the integer pts and the time base, not the 6-digit pts_time", () => {
    const stderr = [
      "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'x.mp4':",
      "[showinfo@scene @ 0x55e77e865740] config in time_base: 1/12800, frame_rate: 25/1",
      "[showinfo@grid @ 0x55e77e861dc0] config in time_base: 1/90000, frame_rate: 30000/1001",
      "[showinfo@grid @ 0x55e77e861dc0] n:   0 pts:      0 pts_time:0       pos:       48 fmt:yuv420p",
      "[showinfo@grid @ 0x55e77e861dc0]   side data - User Data Unregistered:",
      // 1234.5678 s: pts_time is printed as 1234.57
      "[showinfo@grid @ 0x55e77e861dc0] n:   1 pts:111111102 pts_time:1234.57 pos: 1 fmt:yuv420p",
      "[showinfo@scene @ 0x55e77e865740] n:   0 pts:  64000 pts_time:5       pos: 2 fmt:yuv420p",
      "frame=    2 fps=0.0 q=3.0 Lsize=N/A time=00:20:34.56"
    ].join("\n")
    assert.deepStrictEqual(parseFramePass(stderr), { gridTimes: [0, 1234.5678], sceneTimes: [5], damage: [] })
  })

  it("falls back to pts_time when no time base was reported", () => {
    assert.deepStrictEqual(
      parseFramePass("[showinfo@grid @ 0x1] n:   0 pts:   5 pts_time:2.5 pos: 1"),
      { gridTimes: [2.5], sceneTimes: [], damage: [] }
    )
  })

  it("tells a decoder's damage reports from ordinary output", () => {
    const damaged = (line: string) => parseFramePass(line).damage.length > 0
    assert.isTrue(damaged("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55] stream 0, offset 0x49d6c: partial file"))
    assert.isTrue(damaged("Error while decoding stream #0:0: Invalid data found when processing input"))
    assert.isTrue(damaged("[h264 @ 0x5648ff44e580] error while decoding MB 5 11, bytestream -7"))
    assert.isTrue(damaged("[h264 @ 0x5648ff40af00] concealing 189 DC, 189 AC, 189 MV errors in P frame"))
    assert.isTrue(damaged("[NULL @ 0x5648ff3e0f00] Invalid NAL unit size (-2147467264 > 529)."))
    assert.isTrue(damaged("/videos/d.mp4: corrupt decoded frame in stream 0"))
    assert.isFalse(
      damaged("[showinfo@grid @ 0x1] n:   0 pts:   5 pts_time:2.5 checksum:corrupt00\nframe=  9 fps=0.0 q=3.0")
    )
  })

  it("a file's name, its metadata and the output folder are not the decoder speaking", () => {
    const clean = [
      "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from '/videos/corrupt truncated end of file.mp4':",
      "  Metadata:",
      "    title           : Invalid data, partial file, error while decoding",
      "[showinfo@grid @ 0x5] n:   0 pts: 0 pts_time:0",
      "Output #0, image2, to '/trees/corrupt/.vtree/frames-1/frame_%06d.jpg':",
      "[image2 @ 0x7] corrupt/frame_000001.jpg written",
      "[swscaler @ 0x8] [swscaler @ 0x9] deprecated pixel format used, make sure you did set range correctly"
    ].join("\n")
    assert.deepStrictEqual(parseFramePass(clean).damage, [])
  })

  // stderr of ffmpeg 5.1 on an H.264 file with bytes overwritten in packets at 13.3–15 s (a frame in every slot).
  const smeared = [
    "[showinfo@grid @ 0x5] config in time_base: 1/12800, frame_rate: 25/1",
    "[showinfo@grid @ 0x5] n:   5 pts: 128000 pts_time:10",
    "[showinfo@grid @ 0x5] n:   6 pts: 153600 pts_time:12",
    "[h264 @ 0x5648ff44e580] error while decoding MB 5 11, bytestream -7",
    "[h264 @ 0x5648ff44e580] concealing 64 DC, 64 AC, 64 MV errors in P frame",
    "[NULL @ 0x5648ff3e0f00] Invalid NAL unit size (-2147467264 > 529).",
    "/in/d.mp4: corrupt decoded frame in stream 0",
    "[showinfo@grid @ 0x5] n:   7 pts: 179200 pts_time:14",
    "[h264 @ 0x5648ff415880] error while decoding MB 0 7, bytestream 312",
    "[showinfo@grid @ 0x5] n:   8 pts: 204800 pts_time:16",
    "[showinfo@grid @ 0x5] n:   9 pts: 230400 pts_time:18",
    "[showinfo@grid @ 0x5] n:  10 pts: 256000 pts_time:20"
  ].join("\n")

  it("counts the decoder's messages between grid frames, keeping the first of each group", () => {
    assert.deepStrictEqual(parseFramePass(smeared).damage, [
      { gridFramesBefore: 2, first: "[h264 @ 0x5648ff44e580] error while decoding MB 5 11, bytestream -7", count: 4 },
      { gridFramesBefore: 3, first: "[h264 @ 0x5648ff415880] error while decoding MB 0 7, bytestream 312", count: 1 }
    ])
  })

  it("places a message from the grid frame before it to the second after it, and joins what overlaps", () => {
    const spans = damagedSpans(parseFramePass(smeared), { intervalSeconds: 2, durationSeconds: 22, input: "/in/d.mp4" })
    assert.deepStrictEqual(spans, [
      {
        start: 12,
        end: 18,
        picture: "corrupt",
        decoder: "h264: error while decoding MB 5 11, bytestream -7",
        messages: 5
      }
    ])
  })

  it("reports nothing for a clean pass, even with holes a variable frame rate leaves", () => {
    const report = parseFramePass(
      ["[showinfo@grid @ 0x5] n:   0 pts: 0 pts_time:0", "[showinfo@grid @ 0x5] n:   1 pts: 9 pts_time:9"].join("\n")
    )
    assert.deepStrictEqual(damagedSpans(report, { intervalSeconds: 2, durationSeconds: 10, input: "x" }), [])
  })

  it("a hole in the grid with the decoder's complaint reads as no picture, with what it said", () => {
    const report = parseFramePass([
      "[showinfo@grid @ 0x5] n:   0 pts: 0 pts_time:0",
      "[showinfo@grid @ 0x5] n:   1 pts: 2 pts_time:2",
      "[NULL @ 0x5] Invalid NAL unit size (0 > 1184).",
      "[h264 @ 0x6] Invalid NAL unit size (0 > 1184).",
      "[showinfo@grid @ 0x5] n:   2 pts: 10 pts_time:10",
      "[showinfo@grid @ 0x5] n:   3 pts: 12 pts_time:12"
    ].join("\n"))
    assert.deepStrictEqual(damagedSpans(report, { intervalSeconds: 2, durationSeconds: 14, input: "x" }), [
      { start: 2, end: 12, picture: "missing", decoder: "Invalid NAL unit size (0 > 1184).", messages: 2 }
    ])
  })

  it("a message after the last grid frame reaches to the end of the video", () => {
    const report = parseFramePass(
      ["[showinfo@grid @ 0x5] n:   0 pts: 0 pts_time:0", "[mov,mp4 @ 0x5] stream 0, offset 0x9d6c: partial file"].join(
        "\n"
      )
    )
    assert.deepStrictEqual(damagedSpans(report, { intervalSeconds: 2, durationSeconds: 1.5, input: "x" }), [
      { start: 0, end: 1.5, picture: "corrupt", decoder: "mov,mp4: stream 0, offset 0x9d6c: partial file", messages: 1 }
    ])
  })

  it("a hostile message is one short plain line without the path, a memory address or a control character", () => {
    const input = "/home/u/\u001b]0;pwned\u0007 \"clip\".mp4"
    const message = decoderMessage(
      `[h264 @ 0x55e77e865740] error while decoding MB \u001b[2J ${input} ${"x".repeat(5000)}`,
      input
    )
    assert.notMatch(message, /[\u0000-\u001f\u007f-\u009f"]|0x55e77e865740|\/home\/u/)
    assert.match(message, /^h264: error while decoding MB \[2J ]0;pwned 'clip'\.mp4 x+…$/)
    assert.strictEqual(Array.from(message).length, decoderMessageLength)
    assert.strictEqual(
      decoderMessage(`${input}: corrupt decoded frame in stream 0`, input),
      "corrupt decoded frame in stream 0"
    )
  })

  it("a file damaged all through reports a bounded number of spans that still cover every message", () => {
    // A message in every other slot of a 10-hour video: 9,000 separate stretches, a few KB of stderr each.
    const lines: Array<string> = []
    for (let n = 0; n < 18_000; n++) {
      lines.push(`[showinfo@grid @ 0x5] n: ${n} pts: ${n * 2} pts_time:${n * 2}`)
      if (n % 4 === 0) lines.push(`[h264 @ 0x6] error while decoding MB ${n} 1, bytestream -7`)
    }
    const report = parseFramePass(lines.join("\n"))
    assert.strictEqual(report.damage.length, 4_500)
    const spans = damagedSpans(report, { intervalSeconds: 2, durationSeconds: 36_000, input: "x" })
    assert.strictEqual(spans.length, maxDamagedSpans)
    assert.strictEqual(spans.reduce((sum, span) => sum + span.messages, 0), 4_500)
    for (const group of report.damage) {
      const time = report.gridTimes[group.gridFramesBefore - 1] ?? 0
      assert.isTrue(spans.some((span) => span.start <= time && time <= span.end))
    }
    for (let i = 1; i < spans.length; i++) assert.isAbove(spans[i]!.start, spans[i - 1]!.end)
  })

  it("caps spans by joining across the shortest clean stretches", () => {
    const span = (start: number, end: number): DamagedSpan => ({
      start,
      end,
      picture: start === 20 ? "missing" : "corrupt",
      decoder: `at ${start}`,
      messages: 1
    })
    assert.deepStrictEqual(capSpans([span(0, 1), span(10, 11), span(12, 13), span(20, 21)], 3), [
      span(0, 1),
      { ...span(10, 13), messages: 2 },
      span(20, 21)
    ])
    assert.deepStrictEqual(capSpans([span(0, 1), span(10, 11), span(12, 13), span(20, 21)], 1), [
      { start: 0, end: 21, picture: "missing", decoder: "at 0", messages: 4 }
    ])
  })

  it("finds the stretches where whole grid slots had no frame", () => {
    assert.deepStrictEqual(gridGaps([0, 2, 4, 6, 8, 10, 17.88, 18, 20], 2), [{ start: 10, end: 17.88 }])
    // One slot late is not a hole: a frame at 3.9 s then 4.1 s lies in consecutive slots.
    assert.deepStrictEqual(gridGaps([0, 2, 3.9, 4.1, 6], 2), [])
    assert.deepStrictEqual(gridGaps([0, 1, 5, 6, 9], 1), [{ start: 1, end: 5 }, { start: 6, end: 9 }])
    assert.deepStrictEqual(gridGaps([], 2), [])
  })

  it("decodes once: one input, one filtergraph with both branches, the frames and their looks as outputs", () => {
    const args = framePassArgs({
      input: "in.mp4",
      streamIndex: 1,
      intervalSeconds: 2,
      width: 640,
      sceneThreshold: 0.3,
      sceneWidth: 160,
      jpegQuality: 3,
      outputPattern: "/out/frame_%06d.jpg",
      looksFile: "/out/looks.rgb"
    })
    assert.strictEqual(args.filter((arg) => arg === "-i").length, 1)
    const graph = args[args.indexOf("-filter_complex") + 1]!
    assert.match(graph, /^\[0:1\]setpts=PTS-STARTPTS,split=2\[grid\]\[scene\];/)
    assert.include(graph, "showinfo@grid,split=2[full][tiny];[full]scale=640:-2[frames]")
    assert.include(graph, "[tiny]scale=4:4:flags=area,format=rgb24[looks]")
    assert.include(graph, "select='gt(scene,0.3)',showinfo@scene,nullsink")
    const images = args.indexOf("/out/frame_%06d.jpg")
    assert.strictEqual(args[images - 1], "image2")
    assert.deepStrictEqual(args.slice(images + 1), [
      "-map",
      "[looks]",
      "-fps_mode",
      "passthrough",
      "-f",
      "rawvideo",
      "/out/looks.rgb"
    ])
  })
})

describe("ffprobe's JSON", () => {
  const json = JSON.stringify({
    streams: [
      { index: 0, codec_type: "video", codec_name: "mjpeg", width: 600, height: 600, disposition: { attached_pic: 1 } },
      {
        index: 1,
        codec_type: "video",
        codec_name: "h264",
        width: 1280,
        height: 720,
        duration: "61.500000",
        tags: { language: "und" }
      },
      { index: 2, codec_type: "audio", codec_name: "aac", duration: "63.000000", tags: { language: "eng" } },
      { index: 3, codec_type: "subtitle", codec_name: "subrip", tags: { language: "fre" } },
      { index: 4, codec_type: "data", codec_name: "bin_data" }
    ],
    format: { format_name: "matroska,webm", duration: "63.000000", size: "1000" }
  })

  it("takes the video stream's duration and size, and does not mistake a cover picture for the video", () => {
    const info = parseProbe(json, "a.mkv", 1000)
    assert.isTrue(Either.isRight(info))
    if (Either.isRight(info)) {
      assert.strictEqual(info.right.durationSeconds, 61.5)
      assert.deepStrictEqual([info.right.width, info.right.height], [1280, 720])
      assert.deepStrictEqual(info.right.streams, [
        { index: 0, kind: "other", codec: "mjpeg" },
        { index: 1, kind: "video", codec: "h264" },
        { index: 2, kind: "audio", codec: "aac", language: "eng" },
        { index: 3, kind: "subtitle", codec: "subrip", language: "fre" },
        { index: 4, kind: "other", codec: "bin_data" }
      ])
    }
  })

  it("falls back to the container's duration, and reports a reply it cannot read", () => {
    const noStreamDuration = parseProbe(
      JSON.stringify({ streams: [{ index: 0, codec_type: "video" }], format: { duration: "9.5" } }),
      "b",
      1
    )
    assert.isTrue(Either.isRight(noStreamDuration) && noStreamDuration.right.durationSeconds === 9.5)
    const matroska = parseProbe(
      JSON.stringify({
        streams: [{ index: 0, codec_type: "video", tags: { DURATION: "00:01:01.500000000" } }],
        format: { duration: "63" }
      }),
      "e.mkv",
      1
    )
    assert.isTrue(Either.isRight(matroska) && matroska.right.durationSeconds === 61.5)
    assert.isTrue(Either.isLeft(parseProbe("{\"streams\": [{\"index\": \"zero\"}]}", "c", 1)))
    assert.isTrue(Either.isLeft(parseProbe("not json", "d", 1)))
  })

  it("measures a clip whose timestamps start late by its length, not its end timestamp", () => {
    const duration = (probe: unknown) => {
      const info = parseProbe(JSON.stringify(probe), "late", 1)
      return Either.isRight(info) ? info.right.durationSeconds : Number.NaN
    }
    // An MP4 with an edit list that starts the picture at 600 s: the stream's own duration is its length,
    // the container's is the end of the timeline.
    assert.strictEqual(
      duration({
        streams: [{ index: 0, codec_type: "video", start_time: "600.000000", duration: "20.000000" }],
        format: { format_name: "mov,mp4,m4a,3gp,3g2,mj2", start_time: "599.976009", duration: "620.000000" }
      }),
      20
    )
    // Matroska's DURATION tag is where the track ends, on the file's timeline.
    assert.approximately(
      duration({
        streams: [{
          index: 0,
          codec_type: "video",
          start_time: "600.000000",
          tags: { DURATION: "00:10:20.000000000" }
        }],
        format: { format_name: "matroska,webm", start_time: "599.977000", duration: "620.000000" }
      }),
      20,
      1e-9
    )
    // Only the container knows: it too counts from 0 in MP4 and Matroska.
    assert.approximately(
      duration({
        streams: [{ index: 0, codec_type: "video", start_time: "600.000000" }],
        format: { format_name: "matroska,webm", start_time: "600.000000", duration: "620.000000" }
      }),
      20,
      1e-9
    )
    // MPEG-TS reports its container duration as a length already (its timestamps start at 1.4 s).
    assert.approximately(
      duration({
        streams: [{ index: 0, codec_type: "video", start_time: "1.400000" }],
        format: { format_name: "mpegts", start_time: "1.400000", duration: "20.000000" }
      }),
      20,
      1e-9
    )
  })
})

describe("audio chunks for speech-to-text", () => {
  it("every chunk's WAV fits the upload limit, and the chunks cover the audio without gaps", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 20_000, noNaN: true }),
        fc.integer({ min: 64_000, max: 50_000_000 }),
        (duration, limit) => {
          const spans = audioChunks(duration, limit)
          let at = 0
          for (const span of spans) {
            if (span.startSeconds !== at) return false
            if (span.durationSeconds * pcmBytesPerSecond + 44 > limit) return false
            at += span.durationSeconds
          }
          return Math.abs(at - duration) < 1e-6
        }
      )
    )
  })

  it("OpenAI's 25 MB limit gives chunks of 773 s", () => {
    assert.deepStrictEqual(audioChunks(2000, 25_000_000).map((span) => span.durationSeconds), [773, 773, 454])
  })

  it("segments move onto the video's clock, clipped to their chunk, blank ones dropped", () => {
    assert.deepStrictEqual(
      shiftCues(
        [{ start: 0, end: 4, text: " a " }, { start: 9, end: 12, text: "b" }, { start: 5, end: 6, text: " " }],
        { startSeconds: 100, durationSeconds: 10 }
      ),
      [{ start: 100, end: 104, text: "a" }, { start: 109, end: 110, text: "b" }]
    )
  })
})

describe("a missing ffmpeg", () => {
  it("says how to install it, or how to fix the variable that points nowhere", () => {
    assert.strictEqual(
      missingMessage({ name: "ffmpeg", command: "ffmpeg", variable: "VTREE_FFMPEG", fromVariable: false }),
      "ffmpeg not found on PATH — install ffmpeg (apt-get install ffmpeg, brew install ffmpeg) or set VTREE_FFMPEG to its path"
    )
  })
})
