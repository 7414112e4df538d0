/**
 * `vtree tree verify DIR|FILE`: a pack file, or a folder `vtree tree unpack` wrote, checked
 * against its manifest. The first file that differs, in path order, is named — missing, not in the
 * manifest, not a regular file, another size, another sha256 — and nothing else is read past it.
 * Each tree's cache folder (`.vtree/`, written when the trees are used) is not part of the pack.
 */
import { Effect, Either } from "effect"
import { lstat, readdir, readFile, stat as statOf } from "node:fs/promises"
import { join } from "node:path"
import { PackError } from "./PackError.js"
import { errnoText, hashFile } from "./PackIo.js"
import { defaultMaxBytes } from "./PackLimits.js"
import {
  cacheFolder,
  decodeManifest,
  type Manifest,
  manifestName,
  manifestProblem,
  maxManifestBytes,
  shownName
} from "./PackManifest.js"
import { readPack, treeRefused } from "./PackReader.js"
import { packTreeProblem, treeJsonFolder } from "./PackTrees.js"

export interface VerifySummary {
  readonly trees: number
  readonly files: number
  readonly bytes: number
}

const summary = (manifest: Manifest): VerifySummary => ({
  trees: manifest.trees.length,
  files: manifest.files.length,
  bytes: manifest.files.reduce((sum, entry) => sum + entry.size, 0)
})

const noSink = { write: () => undefined }

interface Found {
  readonly kind: "file" | "other"
  readonly size: number
}

/** Every entry below `dir` by its `/`-separated path, links not followed; the root's manifest.json and tree caches left out. */
const walk = async (dir: string): Promise<Map<string, Found>> => {
  const found = new Map<string, Found>()
  const visit = async (relative: ReadonlyArray<string>) => {
    for (const name of await readdir(join(dir, ...relative))) {
      const parts = [...relative, name]
      if (parts.length === 1 && name === manifestName) continue
      if (parts.length === 2 && name === cacheFolder) continue
      const stat = await lstat(join(dir, ...parts))
      if (stat.isDirectory()) await visit(parts)
      else found.set(parts.join("/"), { kind: stat.isFile() ? "file" : "other", size: stat.size })
    }
  }
  await visit([])
  return found
}

const cannotRead = (input: string) => (error: unknown) =>
  new PackError({ reason: "Io", message: `${input}: cannot be read (${errnoText(error)}) — check permissions` })

/** The manifest.json of an unpacked folder, decoded and checked. */
const folderManifest = (dir: string, maxBytes: number) =>
  Effect.gen(function*() {
    const fail = (reason: PackError["reason"], text: string, fix: string) =>
      new PackError({ reason, message: `${dir}: ${text} — ${fix}` })
    const manifestFile = join(dir, manifestName)
    const stat = yield* Effect.promise(() => lstat(manifestFile).catch(() => undefined))
    if (stat === undefined || !stat.isFile()) {
      return yield* fail(
        "Malformed",
        `no ${manifestName}`,
        "verify takes a pack file or a folder vtree tree unpack wrote"
      )
    }
    if (stat.size > maxManifestBytes) {
      return yield* fail("TooLarge", `${manifestName} is over ${maxManifestBytes} bytes`, "unpack the pack again")
    }
    const decoded = decodeManifest(
      yield* Effect.tryPromise({ try: () => readFile(manifestFile), catch: cannotRead(dir) })
    )
    if (Either.isLeft(decoded)) {
      return yield* fail(decoded.left.reason, `${manifestName}: ${decoded.left.text}`, "unpack the pack again")
    }
    const wrong = manifestProblem(decoded.right, maxBytes)
    if (wrong !== undefined) return yield* fail(wrong.reason, `${manifestName}: ${wrong.text}`, "unpack the pack again")
    return decoded.right
  })

const verifyFolder = (dir: string, maxBytes: number) =>
  Effect.gen(function*() {
    const manifest = yield* folderManifest(dir, maxBytes)
    const listed = new Map(manifest.files.map((entry) => [entry.path, entry]))
    const found = yield* Effect.tryPromise({ try: () => walk(dir), catch: cannotRead(dir) })
    const paths = [...new Set([...listed.keys(), ...found.keys()])].sort()
    const differs = (path: string, text: string) =>
      new PackError({
        reason: "Mismatch",
        message: `${dir}: ${shownName(path)} ${text} — unpack the pack again, or ask its sender for a new one`
      })
    for (const path of paths) {
      const want = listed.get(path)
      const have = found.get(path)
      if (have === undefined) return yield* differs(path, "is in the manifest but missing")
      if (want === undefined) return yield* differs(path, "is not in the manifest")
      if (have.kind !== "file") return yield* differs(path, "is not a regular file (a link, a FIFO or a device)")
      if (have.size !== want.size) {
        return yield* differs(path, `has size ${have.size} bytes, the manifest says ${want.size}`)
      }
      const { sha256 } = yield* hashFile(join(dir, ...path.split("/")), cannotRead(dir))
      if (sha256 !== want.sha256) return yield* differs(path, `has sha256 ${sha256}, the manifest says ${want.sha256}`)
    }
    // Every file is the one the manifest lists; its trees must still be ones vtree reads without leaving them.
    for (const entry of manifest.files) {
      const folder = treeJsonFolder(entry.path)
      if (folder === undefined) continue
      const bytes = yield* Effect.tryPromise({
        try: () => readFile(join(dir, folder, entry.path.slice(folder.length + 1))),
        catch: cannotRead(dir)
      })
      const problem = packTreeProblem(folder, bytes)
      if (problem !== undefined) {
        return yield* new PackError({ reason: "Unsafe", message: `${dir}: ${problem} — ${treeRefused}` })
      }
    }
    return manifest
  })

/** Checks a pack file or an unpacked folder against its manifest; fails with the first difference. */
export const verifyPack = Effect.fn("TreeVerify.verifyPack")(function*(
  input: string,
  options: { readonly maxBytes?: number } = {}
) {
  const maxBytes = options.maxBytes ?? defaultMaxBytes
  // The path given is followed; inside a folder, links are not (walk).
  const stat = yield* Effect.tryPromise({
    try: () => statOf(input),
    catch: (error) =>
      new PackError({
        reason: "Io",
        message: `${input}: ${
          (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : "cannot be read"
        } — pass a pack file or a folder vtree tree unpack wrote`
      })
  })
  const manifest = yield* stat.isDirectory()
    ? verifyFolder(input, maxBytes)
    : readPack(input, maxBytes, { onManifest: () => Effect.void, openFile: () => Effect.succeed(noSink) })
  return summary(manifest)
})
