// A Parquet file's rows as plain JSON-like records (hyparquet with its compressors), bounded: the file by
// bytes, the table by rows, checked in the footer before any page is decoded. Video-MME-v2's test.parquet
// is 3,200 rows; the caps only stop a wrong or hostile file from filling memory.
import { Effect, Either, Schema } from "effect"
import { parquetMetadata, parquetReadObjects } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import { readUserFile, userFileCaps } from "../../domain/UserFile.js"

export const parquetCaps = {
  bytes: userFileCaps.questions,
  rows: 1_000_000
} as const

export const ParquetErrorReason = Schema.Literal("NotParquet", "TooManyRows", "Corrupt")

/** A file that is not a Parquet table vtree can read; the message is one line naming the file and the fix. */
export class ParquetError extends Schema.TaggedError<ParquetError>()("ParquetError", {
  reason: ParquetErrorReason,
  file: Schema.String,
  message: Schema.String
}) {}

const magic = [0x50, 0x41, 0x52, 0x31] // "PAR1"

/** Whether the bytes open with Parquet's magic: the content decides, never the file's name. */
export const isParquet = (bytes: Uint8Array): boolean => magic.every((b, i) => bytes[i] === b)

/** A decoded cell as JSON holds it: rows are stored with the run (benchmark_json), where a BigInt cannot go. */
const plain = (value: unknown): unknown => {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString()
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64")
  if (Array.isArray(value)) return value.map(plain)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  }
  return value
}

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim()

const corrupt = (file: string, error: unknown) =>
  new ParquetError({
    reason: "Corrupt",
    file,
    message: `${file}: is not a readable Parquet file (${firstLine(error)}) — download the file again, or write it anew`
  })

/** The rows of a Parquet file's bytes, in file order; `maxRows` is checked from the footer, before decoding. */
export const parquetRowsOf = Effect.fn("ParquetRows.rowsOf")(function*(
  file: string,
  bytes: Uint8Array,
  maxRows: number = parquetCaps.rows
) {
  if (!isParquet(bytes)) {
    return yield* new ParquetError({
      reason: "NotParquet",
      file,
      message: `${file}: is not a Parquet file (it does not open with PAR1) — pass the .parquet file as released`
    })
  }
  // A copy that owns its memory: Node's file buffers may be views into a shared pool.
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const metadata = yield* Either.try({ try: () => parquetMetadata(buffer), catch: (e) => corrupt(file, e) })
  const rows = Number(metadata.num_rows)
  if (rows > maxRows) {
    return yield* new ParquetError({
      reason: "TooManyRows",
      file,
      message: `${file}: holds ${rows} rows, more than the ${maxRows} vtree reads from one Parquet file` +
        " — split the file, or pass the part you mean to run"
    })
  }
  const read = yield* Effect.tryPromise({
    try: () => parquetReadObjects({ file: buffer, metadata, compressors }),
    catch: (e) => corrupt(file, e)
  })
  return read.map((row) => plain(row) as Record<string, unknown>)
})

/**
 * The rows of the Parquet file at `path` (at most `parquetCaps.bytes`, `parquetCaps.rows` unless given):
 * plain records, BigInt read as a number (or its digits past 2^53), bytes as base64, dates as ISO text.
 */
export const readParquetRows = Effect.fn("ParquetRows.read")(function*(
  path: string,
  caps: { readonly bytes?: number; readonly rows?: number } = {}
) {
  const bytes = yield* readUserFile(path, caps.bytes ?? parquetCaps.bytes)
  return yield* parquetRowsOf(path, bytes, caps.rows ?? parquetCaps.rows)
})
