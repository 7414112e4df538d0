// LongVidSearch's released files in small: a caption parquet written with a Parquet writer.
import { parquetWriteBuffer } from "hyparquet-writer"

/** A caption parquet as released: one row per clip, videos' clips in any order. */
export const captionParquet = (
  rows: ReadonlyArray<{ vid: string; slice_num: number; cap: string }>,
  extra: ReadonlyArray<{ name: string; data: ReadonlyArray<number>; type: "DOUBLE" }> = []
): Uint8Array =>
  new Uint8Array(parquetWriteBuffer({
    columnData: [
      { name: "vid", data: rows.map((r) => r.vid), type: "STRING" },
      { name: "slice_num", data: rows.map((r) => r.slice_num), type: "INT32" },
      { name: "cap", data: rows.map((r) => r.cap), type: "STRING" },
      ...extra.map((c) => ({ ...c, data: [...c.data] }))
    ]
  }))
