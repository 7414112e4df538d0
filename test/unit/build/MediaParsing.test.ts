import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { framePassArgs, gridGaps, parseFramePass, reportsDamage } from "../../../src/layers/ffmpeg/FrameGraph.js"
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
    assert.deepStrictEqual(parseFramePass(stderr), { gridTimes: [0, 1234.5678], sceneTimes: [5] })
  })

  it("falls back to pts_time when no time base was reported", () => {
    assert.deepStrictEqual(
      parseFramePass("[showinfo@grid @ 0x1] n:   0 pts:   5 pts_time:2.5 pos: 1"),
      { gridTimes: [2.5], sceneTimes: [] }
    )
  })

  it("tells a decoder's damage reports from ordinary output", () => {
    assert.isTrue(reportsDamage("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55] stream 0, offset 0x49d6c: partial file"))
    assert.isTrue(reportsDamage("Error while decoding stream #0:0: Invalid data found when processing input"))
    assert.isFalse(
      reportsDamage("[showinfo@grid @ 0x1] n:   0 pts:   5 pts_time:2.5 checksum:corrupt00\nframe=  9 fps=0.0 q=3.0")
    )
  })

  it("finds the stretches where whole grid slots had no frame", () => {
    assert.deepStrictEqual(gridGaps([0, 2, 4, 6, 8, 10, 17.88, 18, 20], 2), [{ start: 10, end: 17.88 }])
    // One slot late is not a hole: a frame at 3.9 s then 4.1 s lies in consecutive slots.
    assert.deepStrictEqual(gridGaps([0, 2, 3.9, 4.1, 6], 2), [])
    assert.deepStrictEqual(gridGaps([0, 1, 5, 6, 9], 1), [{ start: 1, end: 5 }, { start: 6, end: 9 }])
    assert.deepStrictEqual(gridGaps([], 2), [])
  })

  it("decodes once: one input, one filtergraph with both branches, one output", () => {
    const args = framePassArgs({
      input: "in.mp4",
      streamIndex: 1,
      intervalSeconds: 2,
      width: 640,
      sceneThreshold: 0.3,
      sceneWidth: 160,
      jpegQuality: 3,
      outputPattern: "/out/frame_%06d.jpg"
    })
    assert.strictEqual(args.filter((arg) => arg === "-i").length, 1)
    const graph = args[args.indexOf("-filter_complex") + 1]!
    assert.match(graph, /^\[0:1\]setpts=PTS-STARTPTS,split=2\[grid\]\[scene\];/)
    assert.include(graph, "showinfo@grid,scale=640:-2[frames]")
    assert.include(graph, "select='gt(scene,0.3)',showinfo@scene,nullsink")
    assert.strictEqual(args.at(-1), "/out/frame_%06d.jpg")
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
