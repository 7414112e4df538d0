/**
 * Reads a tree pack as a stream, checking as it goes: gunzip, then tar entries one at a time,
 * so a pack of many frames never sits in memory. The first entry must be manifest.json; it bounds
 * everything after it. Every later entry must be a regular file the manifest lists, under a safe name, of
 * the size listed, and is handed to a sink while its sha256 is taken; the hash is compared when the entry
 * ends. Decompressed bytes are counted ahead of the tar parser, so a gzip bomb stops at the bound the
 * manifest implies, not at the end of the disk. The node streams live in a scope: a failure or an
 * interruption (Ctrl-C) destroys them, so nothing reads on after the program has stopped.
 */
import { Effect, Either, type Scope } from "effect"
import { createHash } from "node:crypto"
import { stat as statOf } from "node:fs/promises"
import { Transform } from "node:stream"
import { createGunzip } from "node:zlib"
import { extract, type Header } from "tar-stream"
import { PackError } from "./PackError.js"
import { errnoText, PackFiles } from "./PackIo.js"
import {
  decodeManifest,
  decompressedBound,
  entryNameProblem,
  type Manifest,
  type ManifestFile,
  manifestName,
  manifestProblem,
  maxManifestBytes,
  shownName
} from "./PackManifest.js"
import { packTreeProblem, treeJsonFolder } from "./PackTrees.js"

/** Where a listed file's bytes go: nowhere (verify) or a new file (unpack). Plain: it runs once per chunk. */
export interface FileSink {
  readonly write: (chunk: Uint8Array) => void | Promise<void>
}

export interface PackReadHandlers<R> {
  /** The decoded manifest and its bytes, before any other entry is read. */
  readonly onManifest: (manifest: Manifest, bytes: Buffer) => Effect.Effect<void, PackError, R>
  /** The sink of one listed file; what it holds open is released with the scope, when the entry ends. */
  readonly openFile: (listed: ManifestFile) => Effect.Effect<FileSink, Error, R | Scope.Scope>
}

const toError = (error: unknown) => error instanceof Error ? error : new Error(String(error))

type Fail = (reason: PackError["reason"], text: string, fix: string) => PackError

const notAPack = "pass a .tar.gz file written by vtree tree pack, or ask its sender for a new copy"

/** Follows a tree.json problem, which names its own fix: the pack as a whole is refused. */
export const treeRefused = "do not use this pack"

const kindOf = (header: Header): string | undefined => {
  switch (header.type) {
    case "file":
    case "contiguous-file":
      return undefined
    case "symlink":
      return `a symbolic link (to ${shownName(header.linkname ?? "")})`
    case "link":
      return `a hard link (to ${shownName(header.linkname ?? "")})`
    case "character-device":
    case "block-device":
      return "a device"
    case "fifo":
      return "a FIFO (named pipe)"
    case "directory":
      return "a folder entry (a pack holds files only)"
    default:
      return `an entry of type ${shownName(String(header.type))}`
  }
}

interface Entry extends AsyncIterable<unknown> {
  readonly header: Header
}

const unreadable = (fail: Fail) => (error: unknown) =>
  error instanceof PackError
    ? error
    : fail("Malformed", `is not a readable tar archive (${errnoText(error)})`, notAPack)

/** Each value of `iterator` in turn; a failure that is not already a PackError means the tar is not readable. */
const nextOf = <A>(iterator: AsyncIterator<A>, fail: Fail) =>
  Effect.tryPromise({ try: () => iterator.next(), catch: unreadable(fail) })

/**
 * Runs `f` on every chunk of an entry's body, in order, as one step (not one per chunk: frames are many);
 * interrupted, it stops before the next chunk. A PackError `f` rejects with is the failure.
 */
const forEachChunk = (entry: Entry, fail: Fail, f: (chunk: Uint8Array) => void | Promise<void>) =>
  Effect.tryPromise({
    try: async (signal) => {
      for await (const chunk of entry) {
        if (signal.aborted) return
        await f(chunk as Uint8Array)
      }
    },
    catch: unreadable(fail)
  })

/** The pack's decompressed tar entries; raising `bound` lets more bytes through once the manifest is read. */
interface Source {
  readonly entries: AsyncIterator<Entry>
  readonly bound: (extra: number) => void
}

/** The stat, gunzip, byte counter and tar parser over `file`, torn down when the scope closes. */
const openSource = (file: string, fail: Fail) =>
  Effect.gen(function*() {
    // The path given is followed (a link to a download is fine); what it names must be a regular file.
    const stat = yield* Effect.tryPromise({
      try: () => statOf(file),
      catch: (error) =>
        fail(
          "Io",
          (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : `cannot be read (${errnoText(error)})`,
          "check the path"
        )
    })
    if (!stat.isFile()) {
      return yield* fail("Malformed", "not a regular file", "pass a .tar.gz file written by vtree tree pack")
    }
    let limit = maxManifestBytes + 64 * 1024
    let seenBytes = 0
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        seenBytes += chunk.length
        if (seenBytes <= limit) return callback(null, chunk)
        callback(fail(
          "TooLarge",
          `decompresses to more than the ${limit} bytes its manifest accounts for (a gzip bomb, or data appended to the pack)`,
          "do not use this file; ask its sender for a new pack"
        ))
      }
    })
    const gunzip = createGunzip()
    const reader = extract()
    const stop = (error: Error) => reader.destroy(error)
    gunzip.on("error", (error) => stop(fail("Malformed", `is not gzip data (${error.message})`, notAPack)))
    counter.on("error", stop)
    const source = (yield* PackFiles).read(file)
    source.on("error", (error) => stop(fail("Io", `cannot be read (${error.message})`, "check the file")))
    source.pipe(gunzip).pipe(counter).pipe(reader as unknown as NodeJS.WritableStream)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        source.destroy()
        gunzip.destroy()
        counter.destroy()
        reader.destroy()
      })
    )
    return {
      entries: (reader as unknown as AsyncIterable<Entry>)[Symbol.asyncIterator](),
      bound: (extra) => {
        limit = seenBytes + extra
      }
    } satisfies Source
  })

/** The first entry, which must be a manifest that decodes and passes `manifestProblem`. */
const readManifest = (entry: Entry, maxBytes: number, fail: Fail) =>
  Effect.gen(function*() {
    const { header } = entry
    if (header.name !== manifestName || kindOf(header) !== undefined) {
      return yield* fail("Malformed", `its first entry is ${shownName(header.name)}, not ${manifestName}`, notAPack)
    }
    if (header.size !== undefined && header.size > maxManifestBytes) {
      return yield* fail(
        "TooLarge",
        `${manifestName} declares ${header.size} bytes, more than ${maxManifestBytes}`,
        notAPack
      )
    }
    const chunks: Array<Buffer> = []
    yield* forEachChunk(entry, fail, (chunk) => void chunks.push(Buffer.from(chunk)))
    const bytes = Buffer.concat(chunks)
    const decoded = decodeManifest(bytes)
    if (Either.isLeft(decoded)) {
      return yield* fail(decoded.left.reason, `${manifestName}: ${decoded.left.text}`, notAPack)
    }
    const wrong = manifestProblem(decoded.right, maxBytes)
    if (wrong !== undefined) {
      const fix = wrong.reason === "TooLarge" ? "raise --max-size-gib if you trust the sender" : notAPack
      return yield* fail(wrong.reason, `${manifestName}: ${wrong.text}`, fix)
    }
    return { manifest: decoded.right, bytes }
  })

/** A later entry: checked against the manifest, streamed into its sink, its hash compared at the end. */
const readListed = <R>(
  entry: Entry,
  listed: ReadonlyMap<string, ManifestFile>,
  seen: Set<string>,
  handlers: PackReadHandlers<R>,
  fail: Fail,
  treeProblems: Array<string>
) =>
  Effect.gen(function*() {
    const { header } = entry
    const at = `entry ${shownName(header.name)}`
    const refuse = "do not use this file; a pack vtree writes has none"
    const unsafe = entryNameProblem(header.name)
    if (unsafe !== undefined) return yield* fail("Unsafe", `${at} has ${unsafe}`, refuse)
    const kind = kindOf(header)
    if (kind !== undefined) return yield* fail("Unsafe", `${at} is ${kind}`, refuse)
    const want = listed.get(header.name)
    if (want === undefined) return yield* fail("Unsafe", `${at} is not in the manifest`, refuse)
    if (seen.has(header.name)) return yield* fail("Unsafe", `${at} appears twice`, refuse)
    seen.add(header.name)
    const size = header.size ?? 0
    if (size > want.size) {
      return yield* fail("TooLarge", `${at} declares ${size} bytes, the manifest ${want.size}`, refuse)
    }
    if (size !== want.size) {
      return yield* fail(
        "Mismatch",
        `${at}: size ${size} bytes, the manifest says ${want.size}`,
        "ask its sender for a new pack"
      )
    }
    const written = (error: Error) =>
      fail("Io", `${at} cannot be written (${error.message})`, "check the output folder's permissions and free space")
    const hash = createHash("sha256")
    // A tree.json is kept until it is checked (its size is bounded by the manifest's check).
    const treeFolder = treeJsonFolder(header.name)
    const treeChunks: Array<Buffer> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const sink = yield* Effect.mapError(handlers.openFile(want), written)
      yield* forEachChunk(entry, fail, async (chunk) => {
        hash.update(chunk)
        if (treeFolder !== undefined) treeChunks.push(Buffer.from(chunk))
        await Promise.resolve(sink.write(chunk)).catch((error: unknown) => Promise.reject(written(toError(error))))
      })
    }))
    const sha256 = hash.digest("hex")
    if (sha256 !== want.sha256) {
      return yield* fail(
        "Mismatch",
        `${at}: sha256 ${sha256} differs from the manifest's ${want.sha256}`,
        "the file was changed or damaged; ask its sender for a new pack"
      )
    }
    if (treeFolder !== undefined) {
      const problem = packTreeProblem(treeFolder, Buffer.concat(treeChunks))
      if (problem !== undefined) treeProblems.push(problem)
    }
  })

/**
 * Reads the pack `file` through `handlers`; succeeds with its manifest once every entry checked out, and
 * fails with a PackError naming the file, the entry and the fix at the first that does not.
 */
export const readPack = Effect.fn("PackReader.readPack")(function*<R>(
  file: string,
  maxBytes: number,
  handlers: PackReadHandlers<R>
) {
  const fail: Fail = (reason, text, fix) => new PackError({ reason, message: `${file}: ${text} — ${fix}` })
  return yield* Effect.scoped(Effect.gen(function*() {
    const source = yield* openSource(file, fail)
    const first = yield* nextOf(source.entries, fail)
    if (first.done === true) return yield* fail("Malformed", `holds no ${manifestName}`, notAPack)
    const { bytes, manifest } = yield* readManifest(first.value, maxBytes, fail)
    source.bound(decompressedBound(manifest, bytes.length))
    yield* handlers.onManifest(manifest, bytes)
    const listed = new Map(manifest.files.map((entry) => [entry.path, entry]))
    const seen = new Set<string>()
    // Reported once every entry checked out, so a pack that is damaged as well is named for that first.
    const treeProblems: Array<string> = []
    while (true) {
      const next = yield* nextOf(source.entries, fail)
      if (next.done === true) break
      yield* readListed(next.value, listed, seen, handlers, fail, treeProblems)
    }
    const missing = manifest.files.find((entry) => !seen.has(entry.path))
    if (missing !== undefined) {
      return yield* fail(
        "Mismatch",
        `${shownName(missing.path)} is in the manifest but missing from the pack`,
        "ask its sender for a new pack"
      )
    }
    if (treeProblems.length > 0) return yield* fail("Unsafe", treeProblems[0]!, treeRefused)
    return manifest
  }))
})
