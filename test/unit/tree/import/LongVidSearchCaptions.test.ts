// LongVidSearch's video-caption.parquet ({vid, slice_num, cap} a clip), written here with a Parquet writer:
// read into videos whose captions carry their clip index, bounded, and refused in one line when unreadable.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parquetWriteBuffer } from "hyparquet-writer"
import {
  clipSeconds,
  isParquet,
  parquetLimits,
  readLongVidSearch
} from "../../../../src/programs/import/LongVidSearch.js"
import { captionParquet } from "../../../support/benchmarks/LongVidSearchFiles.js"

const rows = [
  { vid: "-7wwfGJXEZg", slice_num: 2, cap: "Soldiers march past a gate." },
  { vid: "-7wwfGJXEZg", slice_num: 1, cap: "On-screen text reads 534 A.D." },
  { vid: "0PBgtlsO9c4", slice_num: 1, cap: "A chef chops onions." }
]

const message = (effect: Effect.Effect<unknown, { readonly message: string }>) =>
  Effect.map(Effect.either(effect), (result) => Either.isLeft(result) ? result.left.message : "read")

describe("LongVidSearch captions", () => {
  it.effect("reads each video's clips in order, each caption carrying its clip index, 30 s a clip", () =>
    Effect.gen(function*() {
      const videos = yield* readLongVidSearch("video-caption.parquet", captionParquet(rows))
      assert.deepStrictEqual(
        videos.map((v) => [v.videoId, v.captions.map((c) => [c.clip, c.start, c.end, c.text])]),
        [
          ["-7wwfGJXEZg", [[1, 0, clipSeconds, "On-screen text reads 534 A.D."], [
            2,
            clipSeconds,
            2 * clipSeconds,
            "Soldiers march past a gate."
          ]]],
          ["0PBgtlsO9c4", [[1, 0, clipSeconds, "A chef chops onions."]]]
        ]
      )
    }))

  it.effect("reads slice_num written as INT64 (bigint) alike", () =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(parquetWriteBuffer({
        columnData: [
          { name: "vid", data: ["v", "v"], type: "STRING" },
          { name: "slice_num", data: [2n, 1n], type: "INT64" },
          { name: "cap", data: ["second", "first"], type: "STRING" }
        ]
      }))
      const videos = yield* readLongVidSearch("c.parquet", bytes)
      assert.deepStrictEqual(videos[0]!.captions.map((c) => [c.clip, c.text]), [[1, "first"], [2, "second"]])
    }))

  it.effect("takes the clips' times from start/end columns when the file has them", () =>
    Effect.gen(function*() {
      const bytes = captionParquet(rows, [
        { name: "start", data: [12.5, 0, 0], type: "DOUBLE" },
        { name: "end", data: [40, 12.5, 8], type: "DOUBLE" }
      ])
      const videos = yield* readLongVidSearch("c.parquet", bytes)
      assert.deepStrictEqual(videos[0]!.captions.map((c) => [c.clip, c.start, c.end]), [[1, 0, 12.5], [2, 12.5, 40]])
    }))

  it.effect("refuses a corrupt or foreign file, a missing column, a repeated clip and too many rows, in one line each", () =>
    Effect.gen(function*() {
      const good = captionParquet(rows)
      const corrupt = good.slice()
      corrupt.fill(7, 4, good.length - 8)
      assert.isTrue(isParquet(corrupt))
      const corruptMessage = yield* message(readLongVidSearch("c.parquet", corrupt))
      assert.match(corruptMessage, /^c\.parquet: not a Parquet file vtree can read \(.*\) — pass LongVidSearch's/)
      assert.notInclude(corruptMessage, "\n")
      assert.match(
        yield* message(readLongVidSearch("c.parquet", new TextEncoder().encode("{\"a\": 1}"))),
        /^c\.parquet: not a Parquet file vtree can read \(no PAR1 magic number/
      )
      const noCap = new Uint8Array(parquetWriteBuffer({
        columnData: [{ name: "vid", data: ["v"], type: "STRING" }, { name: "slice_num", data: [1], type: "INT32" }]
      }))
      assert.match(
        yield* message(readLongVidSearch("c.parquet", noCap)),
        /^c\.parquet: cap: no such column \(the file has vid, slice_num\)/
      )
      assert.match(
        yield* message(readLongVidSearch("c.parquet", captionParquet([...rows, rows[0]!]))),
        /^c\.parquet: row 4: slice_num: clip 2 of "-7wwfGJXEZg" is given twice/
      )
      assert.match(
        yield* message(readLongVidSearch("c.parquet", captionParquet([{ ...rows[0]!, slice_num: 0 }]))),
        /^c\.parquet: row 1: slice_num: expected a clip index from 1, found 0/
      )
      assert.match(
        yield* message(readLongVidSearch("c.parquet", good, { ...parquetLimits, rows: 2 })),
        /^c\.parquet: 3 rows, more than the 2 clips vtree imports from one file/
      )
      assert.match(
        yield* message(readLongVidSearch("c.parquet", good, { ...parquetLimits, columnBytes: 10 })),
        /^c\.parquet: \d+ bytes of captions once decompressed, more than the 10 vtree reads/
      )
    }))
})
