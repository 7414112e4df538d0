import { assert, describe, it } from "@effect/vitest"
import { countOf, formatCompactDuration, formatDuration, videoSpan, videoTime } from "../../../src/text/Format.js"

describe("TimeFormat", () => {
  it("counts in the singular for one and the plural otherwise, with thousands separators", () => {
    assert.deepStrictEqual([countOf(1, "L1 scene"), countOf(0, "event"), countOf(1200, "frame")], [
      "1 L1 scene",
      "0 events",
      "1,200 frames"
    ])
  })

  it("reads a moment of a video as m:ss under an hour and h:mm:ss from an hour on", () => {
    assert.deepStrictEqual(
      [0, 5, 59.9, 60, 754, 3599.5, 3600, 3722, 36_000 + 61].map(videoTime),
      ["0:00", "0:05", "0:59", "1:00", "12:34", "59:59", "1:00:00", "1:02:02", "10:01:01"]
    )
  })

  it("reads a span of a video as start–end, and a bad number as a dash rather than NaN:NaN", () => {
    assert.strictEqual(videoSpan([3722, 3790]), "1:02:02–1:03:10")
    assert.strictEqual(videoSpan([0, 20]), "0:00–0:20")
    assert.deepStrictEqual([videoTime(Number.NaN), videoTime(-3), videoTime(Infinity)], ["—", "0:00", "—"])
  })

  it("formats elapsed milliseconds for reports and compactly for progress lines", () => {
    assert.deepStrictEqual([formatDuration(1_234), formatDuration(125_000), formatDuration(3_723_000)], [
      "1.2s",
      "2m 05s",
      "1h 02m 03s"
    ])
    assert.strictEqual(formatDuration(null), "—")
    assert.deepStrictEqual([
      formatCompactDuration(4_400),
      formatCompactDuration(75_000),
      formatCompactDuration(3_725_000)
    ], [
      "4s",
      "1m15s",
      "1h02m"
    ])
  })
})
