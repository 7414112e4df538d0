/**
 * `vtree tree verify DIR|FILE` (issue #31): a pack file, or a folder `vtree tree unpack` wrote, checked
 * against its manifest. The first file that differs, in path order, is named — missing, not in the
 * manifest, not a regular file, another size, another sha256 — and nothing else is read past it.
 * Each tree's cache folder (`.vtree/`, written when the trees are used) is not part of the pack.
 */
import { Effect, Either } from "effect"
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import { lstat, readdir, readFile, stat as statOf } from "node:fs/promises"
import { join } from "node:path"
import { PackError } from "./PackError.js"
import {
  cacheFolder,
  decodeManifest,
  type Manifest,
  manifestName,
  manifestProblem,
  maxManifestBytes,
  shownName
} from "./PackManifest.js"
import { readPack } from "./PackReader.js"
import { defaultMaxBytes } from "./TreeUnpack.js"

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

const noSink = { write: () => Promise.resolve(), close: () => Promise.resolve() }

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

const sha256Of = async (file: string): Promise<string> => {
  const hash = createHash("sha256")
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest("hex")
}

const verifyFolder = async (dir: string, maxBytes: number): Promise<Manifest> => {
  const fail = (reason: PackError["reason"], text: string, fix: string) =>
    new PackError({ reason, message: `${dir}: ${text} — ${fix}` })
  const manifestFile = join(dir, manifestName)
  const stat = await lstat(manifestFile).catch(() => undefined)
  if (stat === undefined || !stat.isFile()) {
    throw fail("Malformed", `no ${manifestName}`, "verify takes a pack file or a folder vtree tree unpack wrote")
  }
  if (stat.size > maxManifestBytes) {
    throw fail("TooLarge", `${manifestName} is over ${maxManifestBytes} bytes`, "unpack the pack again")
  }
  const decoded = decodeManifest(await readFile(manifestFile))
  if (Either.isLeft(decoded)) {
    throw fail(decoded.left.reason, `${manifestName}: ${decoded.left.text}`, "unpack the pack again")
  }
  const manifest = decoded.right
  const wrong = manifestProblem(manifest, maxBytes)
  if (wrong !== undefined) throw fail(wrong.reason, `${manifestName}: ${wrong.text}`, "unpack the pack again")

  const listed = new Map(manifest.files.map((entry) => [entry.path, entry]))
  const found = await walk(dir)
  const paths = [...new Set([...listed.keys(), ...found.keys()])].sort()
  const differs = (path: string, text: string) =>
    fail("Mismatch", `${shownName(path)} ${text}`, "unpack the pack again, or ask its sender for a new one")
  for (const path of paths) {
    const want = listed.get(path)
    const have = found.get(path)
    if (have === undefined) throw differs(path, "is in the manifest but missing")
    if (want === undefined) throw differs(path, "is not in the manifest")
    if (have.kind !== "file") throw differs(path, "is not a regular file (a link, a FIFO or a device)")
    if (have.size !== want.size) throw differs(path, `has size ${have.size} bytes, the manifest says ${want.size}`)
    const sha256 = await sha256Of(join(dir, ...path.split("/")))
    if (sha256 !== want.sha256) throw differs(path, `has sha256 ${sha256}, the manifest says ${want.sha256}`)
  }
  return manifest
}

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
  const manifest = yield* Effect.tryPromise({
    try: (signal) => (stat.isDirectory() ? verifyFolder(input, maxBytes) : readPack(input, maxBytes, {
      onManifest: () => Promise.resolve(),
      openFile: () => Promise.resolve(noSink)
    }, signal)),
    catch: (error) =>
      error instanceof PackError
        ? error
        : new PackError({
          reason: "Io",
          message: `${input}: cannot be read (${
            error instanceof Error ? error.message : String(error)
          }) — check permissions`
        })
  })
  return summary(manifest)
})
