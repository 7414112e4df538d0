/**
 * `vtree tree pack TREES [VIDEO_ID…] --out FILE.tar.gz`: the chosen trees (all of them when no
 * id is given) as one gzipped tar, manifest.json first. Each tree is decoded first, so only trees vtree
 * can read are sent. Files are read twice, as streams: once to hash them for the manifest, which must
 * lead so unpack can bound and check everything after it, and once into the archive, hashed again so a
 * file that changed in between fails the pack instead of shipping a manifest that lies.
 *
 * The same trees always give the same bytes: entries in path order, every header with the same time,
 * owner and mode, no creation date in the manifest. Tree caches (`.vtree/`) stay behind; links, FIFOs
 * and devices inside a tree are refused. The file is written beside --out and renamed over it at the end;
 * a failure or an interruption (Ctrl-C) removes it once its streams are closed.
 */
import * as Path from "@effect/platform/Path"
import { Effect, Either, Exit, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createWriteStream } from "node:fs"
import { lstat, mkdir, readdir, readFile, realpath, rename, rm } from "node:fs/promises"
import { pipeline } from "node:stream/promises"
import { createGzip } from "node:zlib"
import { type Pack, pack } from "tar-stream"
import { packageVersion } from "../../../PackageRoot.js"
import { parseTreeJson } from "../TreeJson.js"
import { readTreeIndex, treeFolderOf } from "../TreeLoader.js"
import { PackError } from "./PackError.js"
import { errnoText, forEachChunkOf, fsStep, hashFile, writeChunk } from "./PackIo.js"
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

const ioFailure = (what: string) => (error: unknown) =>
  error instanceof PackError ? error : fail("Io", `${what} (${errnoText(error)}) — check the path and permissions`)

/**
 * The regular files of one tree folder, in path order, hashed; the cache folder skipped, anything else refused.
 * `cannotRead` names a folder or file that cannot be read.
 */
const treeFiles = (folderPath: string, folder: string, cannotRead: (error: unknown) => PackError) =>
  Effect.gen(function*() {
    const files: Array<PackedFile> = []
    const visit = (relative: ReadonlyArray<string>): Effect.Effect<void, PackError> =>
      Effect.gen(function*() {
        const names = yield* fsStep(() => readdir(`${folderPath}/${relative.join("/")}`), cannotRead)
        for (const name of names.sort()) {
          if (relative.length === 0 && name === cacheFolder) continue
          const parts = [...relative, name]
          const entry = `${folder}/${parts.join("/")}`
          const source = `${folderPath}/${parts.join("/")}`
          const unsafe = entryNameProblem(entry)
          if (unsafe !== undefined) {
            return yield* fail(
              "BadInput",
              `${shownName(source)}: has ${unsafe}, which unpack refuses — rename or remove it`
            )
          }
          const stat = yield* fsStep(() => lstat(source), cannotRead)
          if (stat.isDirectory()) yield* visit(parts)
          else if (stat.isFile()) {
            files.push({ path: entry, source, ...(yield* hashFile(source, cannotRead)) })
          } else {
            return yield* fail(
              "BadInput",
              `${shownName(source)}: ${
                stat.isSymbolicLink() ? "a symbolic link" : "not a regular file"
              }; a pack holds regular files only — replace it with the file itself, or remove it`
            )
          }
        }
      })
    yield* visit([])
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  })

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

/** One file streamed into the archive as an entry, checked to be the bytes that were hashed for the manifest. */
const writeEntry = (archive: Pack, file: PackedFile) =>
  Effect.gen(function*() {
    const changed = (error?: unknown) =>
      fail(
        "BadInput",
        `${shownName(file.source)}: changed while it was packed${
          error === undefined ? "" : ` (${errnoText(error)})`
        } — pack again`
      )
    const hash = createHash("sha256")
    let sink: NodeJS.WritableStream & { destroy: (error?: Error) => void } | undefined
    const done = new Promise<void>((resolve, reject) => {
      sink = archive.entry(header(file.path, file.size), (error) => (error ? reject(error) : resolve()))
    })
    done.catch(() => undefined)
    const entry = sink!
    yield* forEachChunkOf(file.source, (chunk) => {
      hash.update(chunk)
      return writeChunk(entry, chunk)
    }, (error) => {
      entry.destroy(error as Error)
      return changed(error)
    })
    entry.end()
    yield* Effect.tryPromise({ try: () => done, catch: changed })
    if (hash.digest("hex") !== file.sha256) return yield* changed()
  })

/**
 * Streams `files` after the manifest into a gzipped tar at `target`. The streams are closed before the scope
 * is: after a failure or an interruption nothing writes the file once it is removed.
 */
const writeArchive = (target: string, manifestBytes: Buffer, files: ReadonlyArray<PackedFile>, out: string) =>
  Effect.gen(function*() {
    const cannotWrite = ioFailure(`${out}: cannot be written`)
    const archive = pack()
    const sink = createWriteStream(target, { flags: "wx", mode: 0o644 })
    const written = pipeline(archive, createGzip({ level: 9 }), sink)
    const settled = written.then(() => undefined, () => undefined)
    yield* Effect.addFinalizer((exit) =>
      Exit.isSuccess(exit) ? Effect.void : Effect.promise(async () => {
        archive.destroy()
        sink.destroy()
        await settled
        if (!sink.closed) await new Promise<void>((resolve) => sink.once("close", () => resolve()))
      })
    )
    // The output failing (disk full) stops the entries, which would otherwise wait for a drain that never comes.
    const broken = Effect.async<never, PackError>((resume) => {
      written.catch((error: unknown) => resume(Effect.fail(cannotWrite(error))))
    })
    const entries = Effect.gen(function*() {
      yield* Effect.async<void, PackError>((resume) => {
        archive.entry(
          header(manifestName, manifestBytes.length),
          manifestBytes,
          (error) => resume(error ? Effect.fail(cannotWrite(error)) : Effect.void)
        )
      })
      for (const file of files) yield* writeEntry(archive, file)
    })
    yield* Effect.raceFirst(entries, broken)
    archive.finalize()
    yield* Effect.tryPromise({ try: () => written, catch: cannotWrite })
  })

/** `out` resolved, its folder made, refused when it lies inside a tree it packs or is not a file to replace. */
const outputFile = (options: PackOptions, trees: string, folders: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    // The pack must not land inside a tree it packs: its half-written self would be packed too.
    const out = path.resolve(options.out)
    yield* fsStep(
      () => mkdir(path.dirname(out), { recursive: true }),
      ioFailure(`${options.out}: its folder cannot be made`)
    )
    const outDir = yield* fsStep(
      () => realpath(path.dirname(out)),
      ioFailure(`${options.out}: its folder cannot be read`)
    )
    for (const folder of folders) {
      const treeDir = yield* fsStep(() => realpath(path.join(trees, folder)), ioFailure(`${folder}: cannot be read`))
      const relative = path.relative(treeDir, outDir)
      if (
        relative === "" || !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
      ) {
        return yield* fail("BadInput", `${options.out}: inside the tree ${folder} it packs — write the pack elsewhere`)
      }
    }
    const existing = yield* Effect.promise(() => lstat(out).then(Option.some, () => Option.none()))
    if (Option.isSome(existing) && !existing.value.isFile()) {
      return yield* fail("BadInput", `${options.out}: exists and is not a regular file — choose another --out`)
    }
    return out
  })

export const packTrees = Effect.fn("TreePack.packTrees")(function*(options: PackOptions) {
  const path = yield* Path.Path
  const trees = path.resolve(options.trees)
  const folders = yield* chooseFolders(trees, options.videoIds)
  const records = yield* Effect.forEach(folders, (folder) => treeRecord(path.join(trees, folder)))
  const out = yield* outputFile(options, trees, folders)

  const cannotRead = ioFailure(`${options.trees}: cannot be read`)
  const files = (yield* Effect.forEach(
    folders,
    (folder) => treeFiles(path.join(trees, folder), folder, cannotRead),
    { concurrency: "unbounded" }
  )).flat()
  const manifest: Manifest = {
    format: "vtree-pack",
    format_version: 1,
    vtree_version: packageVersion(),
    note: options.note,
    trees: folders.map((folder, i) => ({ folder, video_id: records[i]!.videoId, build: records[i]!.build })),
    files: files.map((file) => ({ path: file.path, size: file.size, sha256: file.sha256 }))
  }
  const target = path.join(path.dirname(out), `.${path.basename(out)}.${randomBytes(4).toString("hex")}.partial`)
  yield* Effect.scoped(writeArchive(target, encodeManifest(manifest), files, options.out)).pipe(
    Effect.zipRight(fsStep(() => rename(target, out), ioFailure(`${options.out}: cannot be written`))),
    Effect.onError(() => Effect.promise(() => rm(target, { force: true })))
  )
  const packedBytes = yield* Effect.promise(() => lstat(out).then((stat) => stat.size))
  return {
    file: out,
    trees: folders,
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.size, 0),
    packedBytes
  } satisfies PackSummary
})
