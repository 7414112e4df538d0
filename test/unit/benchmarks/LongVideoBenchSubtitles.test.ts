import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { clockSeconds, parseLongVideoBenchSubtitles } from "../../../src/programs/benchmarks/LongVideoBenchSubtitles.js"

const parse = (value: unknown, offset = 0, videoDuration = 100) =>
  parseLongVideoBenchSubtitles("x_en.json", value, { offset, videoDuration })

describe("LongVideoBench subtitles", () => {
  it("reads {timestamp, text} entries; an end that is not a number is the end of the video", () => {
    assert.deepStrictEqual(
      parse([{ timestamp: [5, 7.5], text: " Hello\nthere " }, { timestamp: [1, 2], text: "first" }, {
        timestamp: [90, null],
        text: "last"
      }]),
      Either.right([{ start: 1, end: 2, text: "first" }, { start: 5, end: 7.5, text: "Hello there" }, {
        start: 90,
        end: 100,
        text: "last"
      }])
    )
  })

  it("reads {start, end, line} entries in HH:MM:SS.mmm", () => {
    assert.deepStrictEqual(
      parse([{ start: "00:01:02.500", end: "00:01:04.250", line: "<i>hi</i>" }]),
      Either.right([{ start: 62.5, end: 64.25, text: "hi" }])
    )
    assert.deepStrictEqual([clockSeconds("01:00:00,5"), clockSeconds("02:03"), clockSeconds("later")], [
      3600.5,
      123,
      null
    ])
  })

  it("shifts times back by starting_timestamp_for_subtitles, dropping cues before the clip and clamping one across its start", () => {
    assert.deepStrictEqual(
      parse([{ timestamp: [2, 8], text: "before" }, { timestamp: [9, 12], text: "across" }, {
        start: "00:00:20.000",
        end: "00:00:22.000",
        line: "in"
      }], 10),
      Either.right([{ start: 0, end: 2, text: "across" }, { start: 10, end: 12, text: "in" }])
    )
  })

  it("refuses an entry of neither shape in one line naming the file, the entry and the shapes", () => {
    const error = Either.getOrThrowWith(
      Either.flip(parse([{ timestamp: [1, 2], text: "ok" }, { start: "soon", line: "x" }])),
      () => ""
    )
    assert.strictEqual(
      error.message,
      `x_en.json: index 1: start: expected "HH:MM:SS.mmm", got "soon" — write {"timestamp": [start, end], "text"} or {"start": "HH:MM:SS.mmm", "end", "line"}`
    )
    assert.isTrue(Either.isLeft(parse({ timestamp: [1, 2] })))
  })
})
