/**
 * Reads a tree pack as a stream, checking as it goes (issue #31): gunzip, then tar entries one at a time,
 * so a pack of many frames never sits in memory. The first entry must be manifest.json; it bounds
 * everything after it. Every later entry must be a regular file the manifest lists, under a safe name, of
 * the size listed, and is handed to a sink while its sha256 is taken; the hash is compared when the entry
 * ends. Decompressed bytes are counted ahead of the tar parser, so a gzip bomb stops at the bound the
 * manifest implies, not at the end of the disk.
 */
import { Either } from "effect"
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import { stat as statOf } from "node:fs/promises"
import { Transform } from "node:stream"
import { createGunzip } from "node:zlib"
import { extract, type Header } from "tar-stream"
import { PackError } from "./PackError.js"
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

/** Where a listed file's bytes go: nowhere (verify) or a new file (unpack). */
export interface FileSink {
  readonly write: (chunk: Uint8Array) => Promise<void>
  readonly close: () => Promise<void>
}

export interface PackReadHandlers {
  /** The decoded manifest and its bytes, before any other entry is read. */
  readonly onManifest: (manifest: Manifest, bytes: Buffer) => Promise<void>
  readonly openFile: (listed: ManifestFile) => Promise<FileSink>
}

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

/** The whole body of an entry of at most `cap` bytes. */
const readAll = async (entry: AsyncIterable<unknown>): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of entry) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks)
}

/**
 * Reads the pack `file` through `handlers`; resolves with its manifest once every entry checked out, and
 * rejects with a PackError naming the file, the entry and the fix at the first that does not.
 */
export const readPack = async (
  file: string,
  maxBytes: number,
  handlers: PackReadHandlers,
  signal?: AbortSignal
): Promise<Manifest> => {
  const fail = (reason: PackError["reason"], text: string, fix: string) =>
    new PackError({ reason, message: `${file}: ${text} — ${fix}` })
  // The path given is followed (a link to a download is fine); what it names must be a regular file.
  const stat = await statOf(file).catch((error: NodeJS.ErrnoException) => {
    throw fail(
      "Io",
      error.code === "ENOENT" ? "not found" : `cannot be read (${error.code ?? error.message})`,
      "check the path"
    )
  })
  if (!stat.isFile()) throw fail("Malformed", "not a regular file", "pass a .tar.gz file written by vtree tree pack")

  const notAPack = "pass a .tar.gz file written by vtree tree pack, or ask its sender for a new copy"
  let limit = maxManifestBytes + 64 * 1024
  let seenBytes = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seenBytes += chunk.length
      if (seenBytes > limit) {
        callback(
          fail(
            "TooLarge",
            `decompresses to more than the ${limit} bytes its manifest accounts for (a gzip bomb, or data appended to the pack)`,
            "do not use this file; ask its sender for a new pack"
          )
        )
      } else callback(null, chunk)
    }
  })
  const source = createReadStream(file)
  const gunzip = createGunzip()
  const reader = extract()
  const stop = (error: Error) => reader.destroy(error)
  source.on("error", (error) => stop(fail("Io", `cannot be read (${error.message})`, "check the file")))
  gunzip.on("error", (error) => stop(fail("Malformed", `is not gzip data (${error.message})`, notAPack)))
  counter.on("error", stop)
  const abort = () => stop(fail("Io", "reading was interrupted", "run the command again"))
  signal?.addEventListener("abort", abort, { once: true })
  source.pipe(gunzip).pipe(counter).pipe(reader as unknown as NodeJS.WritableStream)

  const seen = new Set<string>()
  let manifest: Manifest | undefined
  let listed = new Map<string, ManifestFile>()
  try {
    for await (const entry of reader) {
      const header = entry.header
      const name = header.name
      if (manifest === undefined) {
        if (name !== manifestName || kindOf(header) !== undefined) {
          throw fail("Malformed", `its first entry is ${shownName(name)}, not ${manifestName}`, notAPack)
        }
        if (header.size > maxManifestBytes) {
          throw fail(
            "TooLarge",
            `${manifestName} declares ${header.size} bytes, more than ${maxManifestBytes}`,
            notAPack
          )
        }
        const bytes = await readAll(entry)
        const decoded = decodeManifest(bytes)
        if (Either.isLeft(decoded)) throw fail(decoded.left.reason, `${manifestName}: ${decoded.left.text}`, notAPack)
        const wrong = manifestProblem(decoded.right, maxBytes)
        if (wrong !== undefined) {
          throw fail(
            wrong.reason,
            `${manifestName}: ${wrong.text}`,
            wrong.reason === "TooLarge" ? "raise --max-size-gib if you trust the sender" : notAPack
          )
        }
        manifest = decoded.right
        listed = new Map(manifest.files.map((entry) => [entry.path, entry]))
        limit = seenBytes + decompressedBound(manifest, bytes.length)
        await handlers.onManifest(manifest, bytes)
        continue
      }
      const at = `entry ${shownName(name)}`
      const refuse = "do not use this file; a pack vtree writes has none"
      const unsafe = entryNameProblem(name)
      if (unsafe !== undefined) throw fail("Unsafe", `${at} has ${unsafe}`, refuse)
      const kind = kindOf(header)
      if (kind !== undefined) throw fail("Unsafe", `${at} is ${kind}`, refuse)
      const want = listed.get(name)
      if (want === undefined) throw fail("Unsafe", `${at} is not in the manifest`, refuse)
      if (seen.has(name)) throw fail("Unsafe", `${at} appears twice`, refuse)
      seen.add(name)
      if (header.size > want.size) {
        throw fail("TooLarge", `${at} declares ${header.size} bytes, the manifest ${want.size}`, refuse)
      }
      if (header.size !== want.size) {
        throw fail(
          "Mismatch",
          `${at}: size ${header.size} bytes, the manifest says ${want.size}`,
          "ask its sender for a new pack"
        )
      }
      const hash = createHash("sha256")
      const written = (error: unknown) => {
        throw fail(
          "Io",
          `${at} cannot be written (${error instanceof Error ? error.message : String(error)})`,
          "check the output folder's permissions and free space"
        )
      }
      const sink = await handlers.openFile(want).catch(written)
      try {
        for await (const chunk of entry) {
          const bytes = chunk as Uint8Array
          hash.update(bytes)
          await sink.write(bytes).catch(written)
        }
      } finally {
        await sink.close().catch(written)
      }
      const sha256 = hash.digest("hex")
      if (sha256 !== want.sha256) {
        throw fail(
          "Mismatch",
          `${at}: sha256 ${sha256} differs from the manifest's ${want.sha256}`,
          "the file was changed or damaged; ask its sender for a new pack"
        )
      }
    }
  } catch (error) {
    if (error instanceof PackError) throw error
    throw fail(
      "Malformed",
      `is not a readable tar archive (${error instanceof Error ? error.message : String(error)})`,
      notAPack
    )
  } finally {
    signal?.removeEventListener("abort", abort)
    source.destroy()
    gunzip.destroy()
    counter.destroy()
    reader.destroy()
  }
  if (manifest === undefined) throw fail("Malformed", `holds no ${manifestName}`, notAPack)
  const missing = manifest.files.find((entry) => !seen.has(entry.path))
  if (missing !== undefined) {
    throw fail(
      "Mismatch",
      `${shownName(missing.path)} is in the manifest but missing from the pack`,
      "ask its sender for a new pack"
    )
  }
  return manifest
}
