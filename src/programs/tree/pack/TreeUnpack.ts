/**
 * `vtree tree unpack FILE --out DIR`. The pack is read and checked as it streams
 * (PackReader.ts) into a new hidden folder beside DIR; only when every entry is in the manifest with its
 * size and hash, and no listed file is missing, does that folder become DIR, by one rename. Any failure
 * removes it, so DIR is either the whole pack or untouched.
 *
 * DIR must be new or empty. A non-empty DIR is replaced only with `replace` and only when it is an earlier
 * unpack (it holds a pack's manifest.json) holding nothing but what that unpack wrote — the files its manifest
 * lists and the caches of its trees: a folder of someone's own, a tree built or imported there later, a
 * note added beside the trees are never deleted; they are named instead.
 */
import { Effect, Either } from "effect"
import { randomBytes } from "node:crypto"
import { lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { PackError } from "./PackError.js"
import { errnoText, fsStep } from "./PackIo.js"
import { defaultMaxBytes } from "./PackLimits.js"
import {
  cacheFolder,
  decodeManifest,
  type Manifest,
  manifestName,
  maxManifestBytes,
  shownName
} from "./PackManifest.js"
import { readPack } from "./PackReader.js"

export interface UnpackOptions {
  readonly file: string
  readonly out: string
  /** Replace DIR when it holds an earlier unpack. */
  readonly replace: boolean
  /** Refuse a pack whose files add up to more; defaults to `defaultMaxBytes`. */
  readonly maxBytes?: number
}

export interface UnpackSummary {
  readonly dir: string
  readonly trees: ReadonlyArray<string>
  readonly files: number
  readonly bytes: number
  readonly note: string | null
}

type OutState = "missing" | "empty" | "unpacked" | "other" | "not a folder"

interface OutFound {
  readonly state: OutState
  /** In an earlier unpack: what its manifest does not account for, top-most entries only, in path order. */
  readonly foreign: ReadonlyArray<string>
}

/**
 * The entries below `dir` that `manifest` did not write, as `/`-separated paths: a folder no listed file
 * is in is named once, not walked. Each tree's cache folder belongs to its tree. Links are not followed.
 */
const foreignEntries = async (dir: string, manifest: Manifest): Promise<Array<string>> => {
  const files = new Set(manifest.files.map((entry) => entry.path))
  const folders = new Set(manifest.files.flatMap((entry) => {
    const parts = entry.path.split("/")
    return parts.slice(1).map((_, end) => parts.slice(0, end + 1).join("/"))
  }))
  const trees = new Set(manifest.trees.map((tree) => tree.folder))
  const foreign: Array<string> = []
  const visit = async (relative: ReadonlyArray<string>) => {
    for (const name of (await readdir(join(dir, ...relative))).sort()) {
      const parts = [...relative, name]
      const path = parts.join("/")
      if (parts.length === 1 && name === manifestName) continue
      if (parts.length === 2 && name === cacheFolder && trees.has(parts[0]!)) continue
      const stat = await lstat(join(dir, ...parts))
      if (stat.isDirectory() && folders.has(path)) await visit(parts)
      else if (stat.isDirectory() || !files.has(path)) foreign.push(stat.isDirectory() ? `${path}/` : path)
    }
  }
  await visit([])
  return foreign
}

/** What is at `out` now: nothing, an empty folder, an earlier unpack, or something unpack must not replace. */
const outStateOf = async (out: string): Promise<OutFound> => {
  const found = (state: OutState, foreign: ReadonlyArray<string> = []): OutFound => ({ state, foreign })
  const stat = await lstat(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    return Promise.reject(error)
  })
  if (stat === undefined) return found("missing")
  if (!stat.isDirectory()) return found("not a folder")
  if ((await readdir(out)).length === 0) return found("empty")
  const manifest = await lstat(join(out, manifestName)).catch(() => undefined)
  if (manifest === undefined || !manifest.isFile() || manifest.size > maxManifestBytes) return found("other")
  const decoded = decodeManifest(await readFile(join(out, manifestName)))
  return Either.isRight(decoded) ? found("unpacked", await foreignEntries(out, decoded.right)) : found("other")
}

/** The few entries named in a refusal, and how many there are. */
const namedEntries = (foreign: ReadonlyArray<string>) =>
  `${foreign.length} ${
    foreign.length === 1 ? "file or folder" : "files or folders"
  } the earlier unpack did not write (${foreign.slice(0, 3).map(shownName).join(", ")}${
    foreign.length > 3 ? ", …" : ""
  })`

const ioFailure = (what: string) => (error: unknown) =>
  new PackError({ reason: "Io", message: `${what} (${errnoText(error)}) — check permissions and free space` })

const toError = (error: unknown) => error instanceof Error ? error : new Error(String(error))

/** The failure for an `--out` unpack must not write to, given `replace`; none when it may. */
const refuseOut = (options: UnpackOptions, { foreign, state }: OutFound) => {
  const exists = (message: string) => Effect.fail(new PackError({ reason: "Exists", message }))
  if (state === "not a folder") return exists(`${options.out}: exists and is not a folder — choose a new --out folder`)
  if (state === "other") {
    return exists(
      options.replace
        ? `${options.out}: not empty and holds no ${manifestName} of an earlier unpack; --replace replaces only those — choose a new or empty --out folder`
        : `${options.out}: not empty — choose a new or empty --out folder, or pass --replace to replace an earlier unpack there`
    )
  }
  if (state === "unpacked" && !options.replace) {
    return exists(
      `${options.out}: holds an earlier unpack — pass --replace to replace it, or choose a new --out folder`
    )
  }
  if (state === "unpacked" && foreign.length > 0) {
    return exists(
      `${options.out}: holds ${
        namedEntries(foreign)
      }; --replace deletes only what it wrote — move them elsewhere, or choose a new --out folder`
    )
  }
  return Effect.void
}

/**
 * The pack read into `staging`, entry by entry. Names were checked (PackReader.ts): relative, no `..`, no
 * empty part; staging is new and holds only what this wrote, so no link can be on the way. Every folder and
 * file is made by one uninterruptible step, and bytes go only into a handle such a step opened: nothing can
 * make a path in staging again after an interrupted unpack has removed it.
 */
const unpackInto = (options: UnpackOptions, staging: string) =>
  readPack(options.file, options.maxBytes ?? defaultMaxBytes, {
    onManifest: (_manifest, bytes) =>
      fsStep(
        () => writeFile(join(staging, manifestName), bytes, { flag: "wx", mode: 0o644 }),
        ioFailure(`${options.file}: cannot be unpacked into ${dirname(staging)}`)
      ),
    openFile: (listed) => {
      const target = join(staging, ...listed.path.split("/"))
      return Effect.acquireRelease(
        fsStep(async () => {
          await mkdir(dirname(target), { recursive: true })
          return open(target, "wx", 0o644)
        }, toError),
        // A close that fails leaves a file the hash already checked; the unpack goes on.
        (handle) => Effect.promise(() => handle.close().catch(() => undefined))
      ).pipe(
        Effect.map((handle) => ({ write: (chunk) => handle.write(chunk).then(() => undefined) }))
      )
    }
  })

/**
 * `staging` made DIR: DIR (empty or an earlier unpack, set aside until the new one is in place) replaced.
 * The earlier unpack is looked at once more where it was set aside, where nothing writes by its old path:
 * a file added after the last look puts it back and fails, rather than being deleted with it.
 */
const putInPlace = (options: UnpackOptions, out: string, staging: string, now: OutState) =>
  Effect.gen(function*() {
    const failure = ioFailure(`${options.out}: cannot be put in place`)
    if (now !== "unpacked") {
      return yield* fsStep(async () => {
        if (now === "empty") await rmdir(out)
        return rename(staging, out)
      }, failure)
    }
    const aside = join(dirname(out), `.${basename(out)}.replaced-${randomBytes(4).toString("hex")}`)
    yield* fsStep(() => rename(out, aside), failure)
    const asideFound = yield* fsStep(() => outStateOf(aside), failure).pipe(
      Effect.flatMap((found) => refuseOut(options, found)),
      Effect.either
    )
    if (Either.isLeft(asideFound)) {
      yield* fsStep(() => rename(aside, out), failure)
      return yield* asideFound.left
    }
    yield* fsStep(async () => {
      await rename(staging, out).catch(async (error: unknown) => {
        await rename(aside, out)
        return Promise.reject(error)
      })
      await rm(aside, { recursive: true, force: true })
    }, failure)
  }).pipe(Effect.uninterruptible)

export const unpackTrees = Effect.fn("TreeUnpack.unpackTrees")(function*(options: UnpackOptions) {
  const out = resolve(options.out)
  const parent = dirname(out)
  const outState = fsStep(() => outStateOf(out), ioFailure(`${options.out}: cannot be read`))
  yield* Effect.flatMap(outState, (state) => refuseOut(options, state))
  yield* fsStep(() => mkdir(parent, { recursive: true }), ioFailure(`${parent}: cannot be made`))

  return yield* Effect.acquireUseRelease(
    // A new folder (mkdir fails on an existing one), made with the umask's mode rather than mkdtemp's 0700:
    // it becomes the trees folder.
    fsStep(async () => {
      const staging = join(parent, `.${basename(out)}.unpack-${randomBytes(6).toString("hex")}`)
      await mkdir(staging)
      return staging
    }, ioFailure(`${parent}: cannot make a folder to unpack into`)),
    (staging) =>
      Effect.gen(function*() {
        const manifest = yield* unpackInto(options, staging)
        // Looked at again: something may have appeared at DIR while the pack was read.
        const now = yield* outState
        yield* refuseOut(options, now)
        yield* putInPlace(options, out, staging, now.state)
        return {
          dir: out,
          trees: manifest.trees.map((tree) => tree.folder),
          files: manifest.files.length,
          bytes: manifest.files.reduce((sum, entry) => sum + entry.size, 0),
          note: manifest.note
        } satisfies UnpackSummary
      }),
    // After a successful rename the staging folder no longer exists: `force` makes this a no-op then.
    (staging) => Effect.promise(() => rm(staging, { recursive: true, force: true }))
  )
})
