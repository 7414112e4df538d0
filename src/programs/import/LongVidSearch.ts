/**
 * LongVidSearch's `video-caption.parquet`: one row per clip of every video, `{vid, slice_num, cap}` (the
 * columns the benchmark's baseline, main.py, reads; `slice_num` counts a video's clips from 1, the index
 * its questions' `evidence_slices` name). Each clip becomes an L3 node whose id ends `_L3_<slice_num>`, so
 * evidence recall can read the clip a node is. The release gives no clip times: a clip is placed at
 * [(n − 1) · 30, n · 30) s, the "approximately 30 seconds" a clip lasts in the baseline's prompt, unless
 * the file has `start`/`end` (or `start_time`/`end_time`) columns in seconds, which are used instead.
 * Read with hyparquet (and its compressors), bounded before anything is decoded: the rows the footer
 * declares and the column bytes once decompressed; a file it cannot read is refused in one line.
 */
import { Effect, Either } from "effect"
import { type FileMetaData, parquetMetadata, parquetReadObjects } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import * as Imported from "./ImportedVideo.js"
import { importLimits } from "./ImportLimits.js"

/** Seconds a clip is taken to last when the file gives no times (the baseline's prompt: "approximately 30 seconds"). */
export const clipSeconds = 30

export interface ParquetLimits {
  readonly rows: number
  readonly columnBytes: number
}

export const parquetLimits: ParquetLimits = {
  /** Rows (clips) one file may declare: 10,000 videos of 200 clips. */
  rows: 2_000_000,
  /** Bytes of the columns read, decompressed: the cap a tree.json is read with. */
  columnBytes: importLimits.treeJsonBytes
}

const required = ["vid", "slice_num", "cap"] as const
const timeColumns = [["start", "end"], ["start_time", "end_time"]] as const

/** The Parquet magic number, at both ends of every Parquet file. */
export const isParquet = (bytes: Uint8Array): boolean => {
  const magic = [0x50, 0x41, 0x52, 0x31]
  return bytes.length >= 12 && magic.every((b, i) => bytes[i] === b && bytes[bytes.length - 4 + i] === b)
}

const firstLine = (error: unknown): string => {
  const text = error instanceof Error ? error.message : String(error)
  const line = text.split("\n")[0]!.trim()
  return line.length > 160 ? `${line.slice(0, 160)}…` : line
}

const unreadable = (file: string, error: unknown) =>
  Imported.badInput(
    file,
    "",
    `not a Parquet file vtree can read (${firstLine(error)})`,
    "pass LongVidSearch's video-caption.parquet as released, or convert the captions to jsonl"
  )

/** The columns to read, after the footer's row count and their decompressed size are checked. */
const columnsToRead = (
  file: string,
  metadata: FileMetaData,
  limits: ParquetLimits
): Either.Either<ReadonlyArray<string>, Imported.TreeImportError> => {
  const names = new Set(metadata.schema.slice(1).map((element) => element.name))
  const missing = required.find((name) => !names.has(name))
  if (missing !== undefined) {
    return Either.left(Imported.badInput(
      file,
      missing,
      `no such column (the file has ${[...names].slice(0, 12).join(", ") || "none"})`,
      "pass LongVidSearch's video-caption.parquet: one row per clip {vid, slice_num, cap}"
    ))
  }
  const rows = Number(metadata.num_rows)
  if (rows > limits.rows) {
    return Either.left(Imported.badInput(
      file,
      "",
      `${rows} rows, more than the ${limits.rows} clips vtree imports from one file`,
      "split the file by video"
    ))
  }
  const times = timeColumns.find(([start, end]) => names.has(start) && names.has(end)) ?? []
  const columns: ReadonlyArray<string> = [...required, ...times]
  const bytes = metadata.row_groups.reduce(
    (total, group) =>
      group.columns.reduce(
        (sum, chunk) =>
          columns.includes(chunk.meta_data?.path_in_schema[0] ?? "")
            ? sum + Number(chunk.meta_data?.total_uncompressed_size ?? 0)
            : sum,
        total
      ),
    0
  )
  if (bytes > limits.columnBytes) {
    return Either.left(Imported.badInput(
      file,
      "",
      `${bytes} bytes of captions once decompressed, more than the ${limits.columnBytes} vtree reads`,
      "split the file by video"
    ))
  }
  return Either.right(columns)
}

const whole = (value: unknown): number | undefined =>
  typeof value === "bigint"
    ? value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= 1n ? Number(value) : undefined
    : typeof value === "number" && Number.isInteger(value) && value >= 1
    ? value
    : undefined

const shown = (value: unknown): string => {
  const text = typeof value === "bigint" ? String(value) : JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** The rows as read, in file order, into videos: each clip a caption carrying its clip index. */
export const videosOfRows = (
  file: string,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
  columns: ReadonlyArray<string>
): Imported.VideosRead => {
  const byVideo = new Map<string, Array<Imported.ImportedCaption>>()
  const seen = new Set<string>()
  const [startColumn, endColumn] = columns.length > 3 ? [columns[3]!, columns[4]!] : [undefined, undefined]
  for (const [i, row] of rows.entries()) {
    const at = (column: string) => `row ${i + 1}: ${column}`
    const vid = row["vid"]
    if (typeof vid !== "string" || vid.trim() === "") {
      return Either.left(Imported.badInput(file, at("vid"), `expected the video's id, found ${shown(vid)}`))
    }
    const clip = whole(row["slice_num"])
    if (clip === undefined) {
      return Either.left(
        Imported.badInput(file, at("slice_num"), `expected a clip index from 1, found ${shown(row["slice_num"])}`)
      )
    }
    const key = `${vid}\u0000${clip}`
    if (seen.has(key)) {
      return Either.left(
        Imported.badInput(file, at("slice_num"), `clip ${clip} of "${vid}" is given twice`, "keep one row per clip")
      )
    }
    seen.add(key)
    const text = Imported.captionText(file, at("cap"), row["cap"])
    if (Either.isLeft(text)) return Either.left(text.left)
    let start = (clip - 1) * clipSeconds
    let end = clip * clipSeconds
    if (startColumn !== undefined && endColumn !== undefined) {
      const s = Imported.seconds(file, at(startColumn), row[startColumn])
      if (Either.isLeft(s)) return Either.left(s.left)
      const e = Imported.seconds(file, at(endColumn), row[endColumn])
      if (Either.isLeft(e)) return Either.left(e.left)
      start = s.right
      end = e.right
    }
    const made = Imported.caption(file, at("slice_num"), start, end, text.right)
    if (Either.isLeft(made)) return Either.left(made.left)
    const captions = byVideo.get(vid) ?? []
    captions.push({ ...made.right, clip })
    byVideo.set(vid, captions)
  }
  const videos: Array<Imported.ImportedVideo> = []
  for (const [vid, captions] of byVideo) {
    const video = Imported.importedVideo(file, vid, vid, captions)
    if (Either.isLeft(video)) return Either.left(video.left)
    videos.push(video.right)
  }
  if (videos.length === 0) {
    return Either.left(Imported.badInput(file, "", "holds no clips", "pass a caption file with rows"))
  }
  return Either.right(videos)
}

/** Every video of a `video-caption.parquet` (its bytes, already read under the file cap). */
export const readLongVidSearch = Effect.fn("LongVidSearch.read")(function*(
  file: string,
  bytes: Uint8Array,
  limits: ParquetLimits = parquetLimits
) {
  if (!isParquet(bytes)) return yield* unreadable(file, "no PAR1 magic number at its start and end")
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const metadata = yield* Effect.try({ try: () => parquetMetadata(buffer), catch: (e) => unreadable(file, e) })
  const columns = yield* columnsToRead(file, metadata, limits)
  const rows = yield* Effect.tryPromise({
    try: () => parquetReadObjects({ file: buffer, metadata, columns: [...columns], compressors }),
    catch: (e) => unreadable(file, e)
  })
  return yield* videosOfRows(file, rows, columns)
})
