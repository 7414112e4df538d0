// Every file a user hands vtree (questions, answers, prices, subtitles, prompt labels, trees) is read
// through here: only a regular file, only up to a size cap. Reading `/dev/zero` grew to 13.5 GB in a
// minute, and a FIFO blocked for good (the first Ctrl-C did nothing), because a plain read trusts
// the path to end.
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, Schema } from "effect"
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs"

const mib = 1024 * 1024

/** The largest file of each kind vtree reads; the error names the cap. */
export const userFileCaps = {
  /** Video-MME's whole question file is 3 MB, LongVideoBench's 30 MB. */
  questions: 256 * mib,
  subtitles: 64 * mib,
  /** prices, prompt-pack labels, build prompts: a few KB each. */
  small: 4 * mib,
  /** tree.json of a 10-hour video is tens of MB. */
  tree: 512 * mib
} as const

export const UserFileErrorReason = Schema.Literal("NotFound", "NotAFile", "TooLarge", "Unreadable", "InvalidUtf8")
export type UserFileErrorReason = typeof UserFileErrorReason.Type

/** A file that cannot be read; `detail` says why in words that fit after the file's name. */
export class UserFileError extends Schema.TaggedError<UserFileError>()("UserFileError", {
  reason: UserFileErrorReason,
  file: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.file}: ${this.detail}`
  }
}

/** What a read asks for past the size the file stated. */
const readChunk = 64 * 1024

const sizeText = (bytes: number): string =>
  bytes >= mib ? `${Math.round(bytes / mib)} MiB` : `${Math.round(bytes / 1024)} KiB`

const kindOf = (type: FileSystem.File.Type): string => {
  switch (type) {
    case "Directory":
      return "a folder"
    case "FIFO":
      return "a FIFO (named pipe)"
    case "CharacterDevice":
    case "BlockDevice":
      return "a device"
    case "Socket":
      return "a socket"
    default:
      return "not a regular file"
  }
}

// The reasons a read is refused, worded once for both readers below.
const notFound = (file: string) =>
  new UserFileError({ reason: "NotFound", file, detail: "does not exist — check the path" })
const unreadable = (file: string, message: string) =>
  new UserFileError({
    reason: "Unreadable",
    file,
    detail: `cannot be read (${message.split("\n")[0]}) — check the path and its permissions`
  })
const notAFile = (file: string, type: FileSystem.File.Type) =>
  new UserFileError({
    reason: "NotAFile",
    file,
    detail: `is ${kindOf(type)}, not a regular file — vtree reads only regular files; pass a file`
  })
const tooLarge = (file: string, maxBytes: number) =>
  new UserFileError({
    reason: "TooLarge",
    file,
    detail: `is larger than ${sizeText(maxBytes)}, the most vtree reads from such a file — pass a smaller file`
  })

/**
 * The bytes of `file`, which must be a regular file of at most `maxBytes`. The type is checked before
 * opening (opening a FIFO blocks), and the read stops one byte past the cap in case the file grows.
 */
export const readUserFile = Effect.fn("UserFile.read")(function*(file: string, maxBytes: number) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(file).pipe(
    Effect.mapError((error) =>
      error._tag === "SystemError" && error.reason === "NotFound" ? notFound(file) : unreadable(file, error.message)
    )
  )
  if (info.type !== "File") return yield* notAFile(file, info.type)
  if (Number(info.size) > maxBytes) return yield* tooLarge(file, maxBytes)
  return yield* Effect.scoped(Effect.gen(function*() {
    const handle = yield* fs.open(file, { flag: "r" })
    const chunks: Array<Uint8Array> = []
    let total = 0
    // Each read allocates what it asks for: the first asks for the stated size, later ones (the end, or
    // what a growing file added) for a chunk. Asking 4 MiB each time allocated 8 MiB per tree read, and a
    // run reads hundreds of trees.
    let want = Number(info.size) > 0 ? Number(info.size) : readChunk
    while (total <= maxBytes) {
      const chunk = yield* handle.readAlloc(Math.min(maxBytes + 1 - total, want))
      if (chunk._tag === "None" || chunk.value.length === 0) break
      chunks.push(chunk.value)
      total += chunk.value.length
      want = readChunk
    }
    if (total > maxBytes) return yield* tooLarge(file, maxBytes)
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)) as Uint8Array
  })).pipe(Effect.mapError((error) => error instanceof UserFileError ? error : unreadable(file, error.message)))
})

const typeOf = (stats: Stats): FileSystem.File.Type =>
  stats.isFile()
    ? "File"
    : stats.isDirectory()
    ? "Directory"
    : stats.isFIFO()
    ? "FIFO"
    : stats.isCharacterDevice()
    ? "CharacterDevice"
    : stats.isBlockDevice()
    ? "BlockDevice"
    : stats.isSocket()
    ? "Socket"
    : "Unknown"

/**
 * `readUserFile` in one synchronous step, for a file decoded synchronously as soon as it is read (tree.json):
 * the decode holds the thread far longer than the read, while each of the asynchronous read's five steps
 * (stat, open, read, read, close) waits its turn behind every other fiber of a busy run — about 45 ms per
 * tree with 24 questions in flight, on the path of each question's first model call. The same rules: a
 * regular file only (opened without blocking, so a FIFO is refused rather than waited on), at most
 * `maxBytes`, the same errors.
 */
export const readUserFileAtOnce = (file: string, maxBytes: number): Effect.Effect<Uint8Array, UserFileError> =>
  Effect.suspend(() => {
    let fd: number
    try {
      fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
    } catch (error) {
      return Effect.fail(nodeFailure(file, error))
    }
    try {
      const stats = fstatSync(fd)
      if (!stats.isFile()) return Effect.fail(notAFile(file, typeOf(stats)))
      if (stats.size > maxBytes) return Effect.fail(tooLarge(file, maxBytes))
      // One byte past the stated size (and the cap) tells a file that grew since from one that did not.
      const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, stats.size > 0 ? stats.size + 1 : readChunk))
      const chunks: Array<Uint8Array> = []
      let total = 0
      let into = buffer
      while (total <= maxBytes) {
        const read = readSync(fd, into, 0, Math.min(into.length, maxBytes + 1 - total), null)
        if (read === 0) break
        chunks.push(into.subarray(0, read))
        total += read
        into = Buffer.allocUnsafe(readChunk)
      }
      if (total > maxBytes) return Effect.fail(tooLarge(file, maxBytes))
      return Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total))
    } catch (error) {
      return Effect.fail(nodeFailure(file, error))
    } finally {
      closeSync(fd)
    }
  })

const nodeFailure = (file: string, error: unknown): UserFileError =>
  (error as NodeJS.ErrnoException).code === "ENOENT"
    ? notFound(file)
    : unreadable(file, error instanceof Error ? error.message : String(error))

/**
 * The text of `file` (see readUserFile). `strict` refuses bytes that are not UTF-8, naming the file (a
 * question file read with replacement characters would match no option); otherwise they become U+FFFD.
 */
export const readUserText = Effect.fn("UserFile.readText")(function*(
  file: string,
  maxBytes: number,
  options: { readonly strict?: boolean } = {}
) {
  const bytes = yield* readUserFile(file, maxBytes)
  return yield* decodeUserText(file, bytes, options)
})

/** The text of bytes already read from `file` (see readUserText): for a reader that first looks at the bytes. */
export const decodeUserText = (
  file: string,
  bytes: Uint8Array,
  options: { readonly strict?: boolean } = {}
): Either.Either<string, UserFileError> => {
  try {
    return Either.right(new TextDecoder("utf-8", { fatal: options.strict === true }).decode(bytes))
  } catch {
    return Either.left(
      new UserFileError({
        reason: "InvalidUtf8",
        file,
        detail: `is not valid UTF-8 (byte ${firstInvalidUtf8(bytes)}) — save the file as UTF-8`
      })
    )
  }
}

/** The offset of the first byte that does not decode as UTF-8 (for the error message). */
const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  let low = 0
  let high = bytes.length
  // The longest prefix that decodes, by bisection; in stream mode a character cut at the end of the
  // prefix is not an error, so "decodes" only turns false past the bad byte.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, middle), { stream: true })
      low = middle
    } catch {
      high = middle - 1
    }
  }
  // The prefix may end in the first bytes of the bad character (stream mode waits for the rest).
  for (let i = low - 1; i >= Math.max(0, low - 3); i--) {
    const byte = bytes[i]!
    if (byte < 0x80) break
    if (byte >= 0xc0) return i + (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2) > low ? i : low
  }
  return low
}
