/**
 * `vtree tree pack TREES [VIDEO_ID…] --out FILE.tar.gz` (issue #31): the chosen trees (all of them when no
 * id is given) as one gzipped tar, manifest.json first. Each tree is decoded first, so only trees vtree
 * can read are sent. Files are read twice, as streams: once to hash them for the manifest, which must
 * lead so unpack can bound and check everything after it, and once into the archive, hashed again so a
 * file that changed in between fails the pack instead of shipping a manifest that lies.
 *
 * The same trees always give the same bytes: entries in path order, every header with the same time,
 * owner and mode, no creation date in the manifest. Tree caches (`.vtree/`) stay behind; links, FIFOs
 * and devices inside a tree are refused. The file is written beside --out and renamed over it at the end.
 */
import * as Path from "@effect/platform/Path"
import { Effect, Either, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { lstat, mkdir, readdir, readFile, realpath, rename, rm } from "node:fs/promises"
import { pipeline } from "node:stream/promises"
import { createGzip } from "node:zlib"
import { pack } from "tar-stream"
import { packageVersion } from "../../../PackageRoot.js"
import { parseTreeJson } from "../TreeJson.js"
import { readTreeIndex, treeFolderOf } from "../TreeLoader.js"
import { PackError } from "./PackError.js"
import {
  cacheFolder,
  encodeManifest,
  entryNameProblem,
  type Manifest,
  manifestName,
  shownName
} from "./PackManifest.js"

export interface PackOptions {
  /** The folder holding one tree folder per video. */
  readonly trees: string
  /** The trees to pack, by videoID or folder name; all of them when empty. */
  readonly videoIds: ReadonlyArray<string>
  readonly out: string
  /** Saved in the manifest: where the trees come from, their licence. */
  readonly note: string | null
}

export interface PackSummary {
  readonly file: string
  /** Folder names, in pack order. */
  readonly trees: ReadonlyArray<string>
  readonly files: number
  /** Bytes of the files packed, before compression. */
  readonly bytes: number
  /** Bytes of the pack file. */
  readonly packedBytes: number
}

/** Every header carries this time (2000-01-01 UTC): a fixed one, and one tar tools do not call implausible. */
const entryTime = new Date(Date.UTC(2000, 0, 1))

interface PackedFile {
  /** The entry name: `<tree folder>/<path inside it>`. */
  readonly path: string
  readonly source: string
  readonly size: number
  readonly sha256: string
}

const fail = (reason: PackError["reason"], message: string) => new PackError({ reason, message })

const errnoText = (error: unknown) =>
  error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error)

const ioFailure = (what: string) => (error: unknown) =>
  error instanceof PackError ? error : fail("Io", `${what} (${errnoText(error)}) — check the path and permissions`)

const hashFile = async (file: string): Promise<{ readonly size: number; readonly sha256: string }> => {
  const hash = createHash("sha256")
  let size = 0
  for await (const chunk of createReadStream(file)) {
    size += (chunk as Buffer).length
    hash.update(chunk as Buffer)
  }
  return { size, sha256: hash.digest("hex") }
}

/** The regular files of one tree folder, in path order, hashed; the cache folder skipped, anything else refused. */
const treeFiles = async (folderPath: string, folder: string): Promise<ReadonlyArray<PackedFile>> => {
  const files: Array<PackedFile> = []
  const visit = async (relative: ReadonlyArray<string>) => {
    for (const name of (await readdir(`${folderPath}/${relative.join("/")}`)).sort()) {
      if (relative.length === 0 && name === cacheFolder) continue
      const parts = [...relative, name]
      const entry = `${folder}/${parts.join("/")}`
      const source = `${folderPath}/${parts.join("/")}`
      const unsafe = entryNameProblem(entry)
      if (unsafe !== undefined) {
        throw fail("BadInput", `${shownName(source)}: has ${unsafe}, which unpack refuses — rename or remove it`)
      }
      const stat = await lstat(source)
      if (stat.isDirectory()) await visit(parts)
      else if (stat.isFile()) files.push({ path: entry, source, ...(await hashFile(source)) })
      else {
        throw fail(
          "BadInput",
          `${shownName(source)}: ${
            stat.isSymbolicLink() ? "a symbolic link" : "not a regular file"
          }; a pack holds regular files only — replace it with the file itself, or remove it`
        )
      }
    }
  }
  await visit([])
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** The folders to pack, by name under `trees`: the ids asked for, or every folder holding tree.json. */
const chooseFolders = Effect.fn("TreePack.chooseFolders")(function*(trees: string, videoIds: ReadonlyArray<string>) {
  const path = yield* Path.Path
  const isTree = (dir: string) =>
    Effect.promise(() =>
      Promise.all([lstat(dir), lstat(path.join(dir, "tree.json"))]).then(
        ([folder, tree]) => folder.isDirectory() && tree.isFile(),
        () => false
      )
    )
  if (videoIds.length === 0) {
    const names = yield* Effect.tryPromise({ try: () => readdir(trees), catch: ioFailure(`${trees}: cannot be read`) })
    const chosen: Array<string> = []
    // Hidden folders (an unpack or a build under way) are not trees to send, as `vtree mcp` skips them too.
    for (const name of names.sort()) {
      if (!name.startsWith(".") && (yield* isTree(path.join(trees, name)))) chosen.push(name)
    }
    if (chosen.length === 0) {
      return yield* fail(
        "BadInput",
        `${trees}: holds no tree folders (none with a tree.json) — pass the folder of trees`
      )
    }
    return chosen
  }
  const chosen: Array<string> = []
  for (const id of videoIds) {
    const dir = yield* treeFolderOf(trees, id)
    if (!(yield* isTree(dir))) {
      return yield* fail(
        "BadInput",
        `${trees}: no tree for video ${shownName(id)} (no ${dir}/tree.json) — check the id with ls ${trees}`
      )
    }
    const name = path.basename(dir)
    if (!chosen.includes(name)) chosen.push(name)
  }
  return chosen.sort()
})

/** tree.json's videoID and `build` record (null when it has none). */
const treeRecord = Effect.fn("TreePack.treeRecord")(function*(dir: string) {
  const file = `${dir}/tree.json`
  const { index } = yield* readTreeIndex(dir)
  const text = yield* Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: ioFailure(`${file}: cannot be read`)
  })
  const json = yield* Either.match(parseTreeJson(file, text), { onLeft: Effect.fail, onRight: Effect.succeed })
  const build = typeof json === "object" && json !== null && "build" in json ? json.build : null
  return { videoId: index.videoId, build: build ?? null }
})

/** Streams `files` after the manifest into a gzipped tar at `target`, checking each file is what was hashed. */
const writeArchive = async (
  target: string,
  manifestBytes: Buffer,
  files: ReadonlyArray<PackedFile>,
  signal: AbortSignal
) => {
  const archive = pack()
  // Interrupted (Ctrl-C): the streams stop, so nothing writes the partial file after it is removed.
  const abort = () => archive.destroy(new Error("interrupted"))
  signal.addEventListener("abort", abort, { once: true })
  const written = pipeline(archive, createGzip({ level: 9 }), createWriteStream(target, { flags: "wx", mode: 0o644 }))
  const header = (name: string, size: number) => ({
    name,
    size,
    mode: 0o644,
    mtime: entryTime,
    uid: 0,
    gid: 0,
    uname: "",
    gname: "",
    type: "file" as const
  })
  const entryDone = (start: (callback: (error?: Error | null) => void) => void) =>
    new Promise<void>((resolve, reject) => start((error) => (error ? reject(error) : resolve())))
  try {
    await entryDone((callback) => archive.entry(header(manifestName, manifestBytes.length), manifestBytes, callback))
    for (const file of files) {
      const hash = createHash("sha256")
      await entryDone((callback) => {
        const sink = archive.entry(header(file.path, file.size), callback)
        void (async () => {
          try {
            for await (const chunk of createReadStream(file.source)) {
              hash.update(chunk as Buffer)
              if (!sink.write(chunk as Buffer)) {
                await new Promise<void>((resolve) => sink.once("drain", () => resolve()))
              }
            }
            sink.end(undefined)
          } catch (error) {
            sink.destroy(error as Error)
          }
        })()
      }).catch((error: unknown) => {
        throw fail(
          "BadInput",
          `${shownName(file.source)}: changed while it was packed (${errnoText(error)}) — pack again`
        )
      })
      if (hash.digest("hex") !== file.sha256) {
        throw fail("BadInput", `${shownName(file.source)}: changed while it was packed — pack again`)
      }
    }
    archive.finalize()
    await written
  } catch (error) {
    archive.destroy()
    await written.catch(() => undefined)
    throw error
  } finally {
    signal.removeEventListener("abort", abort)
  }
}

export const packTrees = Effect.fn("TreePack.packTrees")(function*(options: PackOptions) {
  const path = yield* Path.Path
  const trees = path.resolve(options.trees)
  const folders = yield* chooseFolders(trees, options.videoIds)
  const records = yield* Effect.forEach(folders, (folder) => treeRecord(path.join(trees, folder)))

  // The pack must not land inside a tree it packs: its half-written self would be packed too.
  const out = path.resolve(options.out)
  yield* Effect.tryPromise({
    try: () => mkdir(path.dirname(out), { recursive: true }),
    catch: ioFailure(`${options.out}: its folder cannot be made`)
  })
  const outDir = yield* Effect.tryPromise({
    try: () => realpath(path.dirname(out)),
    catch: ioFailure(`${options.out}: its folder cannot be read`)
  })
  for (const folder of folders) {
    const treeDir = yield* Effect.tryPromise({
      try: () => realpath(path.join(trees, folder)),
      catch: ioFailure(`${folder}: cannot be read`)
    })
    const relative = path.relative(treeDir, outDir)
    if (relative === "" || !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))) {
      return yield* fail("BadInput", `${options.out}: inside the tree ${folder} it packs — write the pack elsewhere`)
    }
  }
  const existing = yield* Effect.promise(() => lstat(out).then(Option.some, () => Option.none()))
  if (Option.isSome(existing) && !existing.value.isFile()) {
    return yield* fail("BadInput", `${options.out}: exists and is not a regular file — choose another --out`)
  }

  const files = yield* Effect.tryPromise({
    try: async () => (await Promise.all(folders.map((folder) => treeFiles(path.join(trees, folder), folder)))).flat(),
    catch: ioFailure(`${options.trees}: cannot be read`)
  })
  const manifest: Manifest = {
    format: "vtree-pack",
    format_version: 1,
    vtree_version: packageVersion(),
    note: options.note,
    trees: folders.map((folder, i) => ({ folder, video_id: records[i]!.videoId, build: records[i]!.build })),
    files: files.map((file) => ({ path: file.path, size: file.size, sha256: file.sha256 }))
  }
  const target = path.join(path.dirname(out), `.${path.basename(out)}.${randomBytes(4).toString("hex")}.partial`)
  yield* Effect.tryPromise({
    try: (signal) => writeArchive(target, encodeManifest(manifest), files, signal).then(() => rename(target, out)),
    catch: ioFailure(`${options.out}: cannot be written`)
  }).pipe(Effect.onError(() => Effect.promise(() => rm(target, { force: true }))))
  const packedBytes = yield* Effect.promise(() => lstat(out).then((stat) => stat.size))
  return {
    file: out,
    trees: folders,
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.size, 0),
    packedBytes
  } satisfies PackSummary
})
