/**
 * `vtree tree unpack FILE --out DIR` (issue #31). The pack is read and checked as it streams
 * (PackReader.ts) into a new hidden folder beside DIR; only when every entry is in the manifest with its
 * size and hash, and no listed file is missing, does that folder become DIR, by one rename. Any failure
 * removes it, so DIR is either the whole pack or untouched.
 *
 * DIR must be new or empty. A non-empty DIR is replaced only with `replace` and only when it is an earlier
 * unpack (it holds a pack's manifest.json): a folder of someone's own is never deleted.
 */
import { Effect, Either } from "effect"
import { randomBytes } from "node:crypto"
import { lstat, mkdir, open, readdir, readFile, rename, rm, rmdir } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { PackError } from "./PackError.js"
import { decodeManifest, type Manifest, manifestName, maxManifestBytes } from "./PackManifest.js"
import { type FileSink, readPack } from "./PackReader.js"

const gib = 1024 * 1024 * 1024
/** The most bytes a pack may unpack to unless the caller raises it: a gzip bomb fills no disk. */
export const defaultMaxBytes = 64 * gib

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

const errnoText = (error: unknown) =>
  error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error)

/** What is at `out` now: nothing, an empty folder, an earlier unpack, or something unpack must not replace. */
const outState = async (out: string): Promise<"missing" | "empty" | "unpacked" | "other" | "not a folder"> => {
  const stat = await lstat(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    throw error
  })
  if (stat === undefined) return "missing"
  if (!stat.isDirectory()) return "not a folder"
  if ((await readdir(out)).length === 0) return "empty"
  const manifest = await lstat(join(out, manifestName)).catch(() => undefined)
  if (manifest === undefined || !manifest.isFile() || manifest.size > maxManifestBytes) return "other"
  return Either.isRight(decodeManifest(await readFile(join(out, manifestName)))) ? "unpacked" : "other"
}

/** A new file at `target` (never over an existing one) that a pack entry is written into. */
const fileSink = async (target: string): Promise<FileSink> => {
  await mkdir(dirname(target), { recursive: true })
  const handle = await open(target, "wx", 0o644)
  return {
    write: async (chunk) => {
      await handle.write(chunk)
    },
    close: () => handle.close()
  }
}

const unpackInto = async (
  options: UnpackOptions,
  out: string,
  staging: string,
  signal: AbortSignal
): Promise<Manifest> =>
  readPack(options.file, options.maxBytes ?? defaultMaxBytes, {
    onManifest: async (_manifest, bytes) => {
      const handle = await open(join(staging, manifestName), "wx", 0o644)
      await handle.writeFile(bytes).finally(() => handle.close())
    },
    // Names were checked (PackReader.ts): relative, no `..`, no empty part; staging is new and holds only
    // what this loop wrote, so no link can be on the way.
    openFile: (listed) => fileSink(join(staging, ...listed.path.split("/")))
  }, signal)

export const unpackTrees = Effect.fn("TreeUnpack.unpackTrees")(function*(options: UnpackOptions) {
  const out = resolve(options.out)
  const parent = dirname(out)
  const fail = (reason: PackError["reason"], message: string) => new PackError({ reason, message })
  const ioFailure = (what: string) => (error: unknown) =>
    error instanceof PackError ? error : fail("Io", `${what} (${errnoText(error)}) — check permissions and free space`)
  const refuseOut = (state: Awaited<ReturnType<typeof outState>>) => {
    if (state === "not a folder") {
      return Effect.fail(fail("Exists", `${options.out}: exists and is not a folder — choose a new --out folder`))
    }
    if (state === "other") {
      return Effect.fail(
        fail(
          "Exists",
          options.replace
            ? `${options.out}: not empty and holds no ${manifestName} of an earlier unpack; --replace replaces only those — choose a new or empty --out folder`
            : `${options.out}: not empty — choose a new or empty --out folder, or pass --replace to replace an earlier unpack there`
        )
      )
    }
    if (state === "unpacked" && !options.replace) {
      return Effect.fail(
        fail(
          "Exists",
          `${options.out}: holds an earlier unpack — pass --replace to replace it, or choose a new --out folder`
        )
      )
    }
    return Effect.void
  }
  const state = yield* Effect.tryPromise({
    try: () => outState(out),
    catch: ioFailure(`${options.out}: cannot be read`)
  })
  yield* refuseOut(state)
  yield* Effect.tryPromise({
    try: () => mkdir(parent, { recursive: true }),
    catch: ioFailure(`${parent}: cannot be made`)
  })

  return yield* Effect.acquireUseRelease(
    Effect.tryPromise({
      // A new folder (mkdir fails on an existing one), made with the umask's mode rather than mkdtemp's 0700:
      // it becomes the trees folder.
      try: async () => {
        const staging = join(parent, `.${basename(out)}.unpack-${randomBytes(6).toString("hex")}`)
        await mkdir(staging)
        return staging
      },
      catch: ioFailure(`${parent}: cannot make a folder to unpack into`)
    }),
    (staging) =>
      Effect.gen(function*() {
        const manifest = yield* Effect.tryPromise({
          try: (signal) => unpackInto(options, out, staging, signal),
          catch: ioFailure(`${options.file}: cannot be unpacked into ${parent}`)
        })
        // Looked at again: something may have appeared at DIR while the pack was read.
        const now = yield* Effect.tryPromise({
          try: () => outState(out),
          catch: ioFailure(`${options.out}: cannot be read`)
        })
        yield* refuseOut(now)
        yield* Effect.tryPromise({
          try: async () => {
            if (now === "empty") await rmdir(out)
            if (now !== "unpacked") return rename(staging, out)
            // The earlier unpack is set aside, not deleted, until the new one is in its place.
            const aside = join(parent, `.${basename(out)}.replaced-${randomBytes(4).toString("hex")}`)
            await rename(out, aside)
            await rename(staging, out).catch(async (error: unknown) => {
              await rename(aside, out)
              throw error
            })
            await rm(aside, { recursive: true, force: true })
          },
          catch: ioFailure(`${options.out}: cannot be put in place`)
        })
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
