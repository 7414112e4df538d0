/**
 * Where a build may write, and what it may delete: a video's name is data, never a path to follow. Trees
 * go to `<out>/<videoID>/`, with --out's own symlinks resolved once; every path written or deleted below
 * it is checked to stay there with no symlink on the way. A tree folder is written only when it is new or
 * vtree made it (its marker in `.vtree/`, or a tree.json carrying vtree's `build` record): a folder of
 * someone else's is refused before anything is written, whatever --force says. Frames are deleted only
 * when vtree's own list of the frames it wrote names them.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Option, Schema } from "effect"
import { hostname } from "node:os"
import { plainNameProblem } from "../../domain/NameId.js"
import { BuildError } from "./BuildError.js"
import { writeAtomically } from "./Checkpoint.js"

/** `.vtree/tree-folder.json`: written first into every tree folder a build makes or takes over. */
export const markerFile = "tree-folder.json"
/** `.vtree/frames-written.json`: the frame files vtree put into `frames/`, the only ones it removes. */
export const framesListFile = "frames-written.json"
/** `.vtree/build.lock`: the build writing the tree now (its process and host), removed when it ends. */
export const lockFile = "build.lock"

/** Who claimed a tree folder: `vtree tree import` refuses to replace what `vtree build` made. */
export const Marker = Schema.Struct({
  made_by: Schema.Literal("vtree build", "vtree tree import"),
  videoID: Schema.String
})
const FramesList = Schema.Struct({ files: Schema.Array(Schema.String) })
const BuildLock = Schema.Struct({ pid: Schema.Number, host: Schema.String })
// A tree.json written by vtree build before the marker existed: its build record names the version.
const BuiltByVtree = Schema.Struct({ videoID: Schema.String, build: Schema.Struct({ vtree_version: Schema.String }) })
// What an interrupted build of an earlier version leaves: only its cache.
const cacheEntry = /^(checkpoints|frames-[0-9a-f]{16}|embeddings-.*)$/

const refused = (message: string) => new BuildError({ reason: "Refused", message })

/** A failed write as a build failure naming the tree folder. */
export const unwritable = (dir: string) => (error: { readonly message: string }) =>
  new BuildError({
    reason: "Unwritable",
    message: `${dir}: cannot write the tree (${
      error.message.split("\n")[0]
    }) — check the --out folder's permissions and free space`
  })

/** --out, created when missing, as a real path: the root every write of the build must stay under. */
export const resolveOutDir = Effect.fn("TreeFolder.resolveOutDir")(function*(outDir: string) {
  const fs = yield* FileSystem.FileSystem
  yield* fs.makeDirectory(outDir, { recursive: true }).pipe(Effect.mapError(unwritable(outDir)))
  return yield* fs.realPath(outDir).pipe(Effect.mapError(unwritable(outDir)))
})

const throughLink = (at: string, to: string) =>
  `${at}: a symbolic link inside --out (to ${to}) — vtree writes no tree through a link; remove it or choose another --out`

/**
 * `target` itself, when it lies under `root` (a real path) with no symbolic link on the way, the target
 * included; a path that leaves --out, by `..` or through a link, fails naming it.
 */
export const confine = Effect.fn("TreeFolder.confine")(function*(root: string, target: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const relative = path.relative(root, path.resolve(root, target))
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return yield* refused(`${target}: outside --out ${root} — vtree writes only inside the folder it is given`)
  }
  let current = root
  for (const part of relative === "" ? [] : relative.split(path.sep)) {
    current = path.join(current, part)
    // readLink succeeds only on a link (dangling or not); "not found" means nothing further exists.
    const link = yield* fs.readLink(current).pipe(Effect.either)
    if (Either.isRight(link)) return yield* refused(throughLink(current, link.right))
    if (link.left._tag === "SystemError" && link.left.reason === "NotFound") break
  }
  return target
})

const readJson = <A, I>(schema: Schema.Schema<A, I>, file: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(schema))),
    Effect.option
  )

export interface TreeFolder {
  /** --out as a real path. */
  readonly root: string
  readonly dir: string
  readonly videoId: string
  /** The folder did not exist: a build that fails before its tree is written may remove it whole. */
  readonly fresh: boolean
}

/**
 * The names in --out (lower-cased), read once for a run of many trees: a tree folder whose name is not
 * among them is new, with no look of its own (case-blind, as macOS and Windows folders are).
 */
export const outDirNames = Effect.fn("TreeFolder.outDirNames")(function*(root: string) {
  const fs = yield* FileSystem.FileSystem
  const names = yield* fs.readDirectory(root).pipe(Effect.mapError(unwritable(root)))
  return new Set(names.map((name) => name.normalize("NFC").toLowerCase())) as ReadonlySet<string>
})

/**
 * `<root>/<videoId>` when a build may write there: new, empty, or made by vtree for this video.
 * Anything else fails with one line naming the folder and the fix; nothing is written either way.
 * `outNames`, from `outDirNames`, spares the look at a folder that is not there.
 */
export const checkTreeFolder = Effect.fn("TreeFolder.check")(function*(
  root: string,
  videoId: string,
  outNames?: ReadonlySet<string>
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const problem = plainNameProblem(videoId)
  if (problem !== undefined) {
    return yield* refused(
      `${JSON.stringify(videoId)}: a video id that ${problem} names no tree folder — rename the video`
    )
  }
  const dir = path.join(root, videoId)
  if (outNames !== undefined && !outNames.has(videoId.normalize("NFC").toLowerCase())) {
    return { root, dir, videoId, fresh: true } satisfies TreeFolder
  }
  // `root` is a real path and the id one plain name, so the folder itself is the one step that could be
  // a link: one readlink, where confine would walk every part again for each of thousands of trees.
  const link = yield* fs.readLink(dir).pipe(Effect.either)
  if (Either.isRight(link)) return yield* refused(throughLink(dir, link.right))
  if (link.left._tag === "SystemError" && link.left.reason === "NotFound") {
    return { root, dir, videoId, fresh: true } satisfies TreeFolder
  }
  const folder: TreeFolder = { root, dir, videoId, fresh: false }
  const info = yield* fs.stat(dir).pipe(Effect.mapError(unwritable(dir)))
  if (info.type !== "Directory") {
    return yield* refused(`${dir}: exists and is not a folder — move it away or choose another --out`)
  }
  for (const name of [".vtree", "frames", "tree.json"]) yield* confine(root, path.join(dir, name))
  const names = yield* fs.readDirectory(dir).pipe(Effect.mapError(unwritable(dir)))
  if (names.length === 0) return folder
  const cache = path.join(dir, ".vtree")
  const owner = yield* readJson(Marker, path.join(cache, markerFile)).pipe(
    Effect.map(Option.map((marker) => marker.videoID)),
    Effect.flatMap((marker) =>
      Option.isSome(marker)
        ? Effect.succeed(marker)
        : readJson(BuiltByVtree, path.join(dir, "tree.json")).pipe(Effect.map(Option.map((tree) => tree.videoID)))
    )
  )
  if (Option.isSome(owner)) {
    if (owner.value === videoId) return folder
    return yield* refused(
      `${dir}: holds vtree's tree of video "${owner.value}", not "${videoId}" (ids that differ only in case share a folder on macOS and Windows) — rename one of the videos or build into another --out`
    )
  }
  const cacheNames = names.length === 1 && names[0] === ".vtree"
    ? yield* fs.readDirectory(cache).pipe(Effect.orElseSucceed(() => ["?"]))
    : ["?"]
  if (cacheNames.every((name) => cacheEntry.test(name))) return folder
  return yield* refused(
    `${dir}: a folder vtree build did not make (no .vtree/${markerFile}, no tree.json with vtree's build record) — ` +
      "move it away or choose another --out; --force does not override this"
  )
})

/** A tree folder claimed for this run. */
export interface ClaimedFolder extends TreeFolder {
  /**
   * This run made the folder itself: it was missing when checked and mkdir made it, so nothing in it
   * is a link vtree did not make, and paths inside it need no walk for links.
   */
  readonly made: boolean
}

/** `<tree folder>/<relative>`: confined to --out, unless this run made the folder. */
export const insideTree = Effect.fn("TreeFolder.insideTree")(function*(folder: ClaimedFolder, relative: string) {
  const path = yield* Path.Path
  const target = path.join(folder.dir, relative)
  return folder.made ? target : yield* confine(folder.root, target)
})

/** Marks the folder as vtree's (creating it), before the first file of the build goes in. */
export const claimTreeFolder = Effect.fn("TreeFolder.claim")(function*(
  folder: TreeFolder,
  madeBy: typeof Marker.Type["made_by"] = "vtree build"
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  // Not recursive: a folder that appeared since the check is not taken for one this run made; it is
  // checked as any folder found there would have been.
  const made = folder.fresh && (yield* fs.makeDirectory(folder.dir).pipe(
    Effect.as(true),
    Effect.catchIf(
      (error) => error._tag === "SystemError" && error.reason === "AlreadyExists",
      () => Effect.succeed(false)
    ),
    Effect.mapError(unwritable(folder.dir))
  ))
  const claimed: ClaimedFolder = folder.fresh && !made
    ? { ...(yield* checkTreeFolder(folder.root, folder.videoId)), made }
    : { ...folder, made }
  const marker = yield* insideTree(claimed, path.join(".vtree", markerFile))
  yield* writeAtomically(marker, `${JSON.stringify({ made_by: madeBy, videoID: folder.videoId })}\n`).pipe(
    Effect.mapError(unwritable(folder.dir))
  )
  return claimed
})

/** Whether a lock's process still runs; on another host it cannot be told, so it counts as running. */
const lockHeld = (lock: Option.Option<typeof BuildLock.Type>): boolean => {
  if (Option.isNone(lock)) return true
  if (lock.value.host !== hostname()) return true
  try {
    process.kill(lock.value.pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Holds the claimed folder for this build until the scope closes: `.vtree/build.lock`, made exclusively.
 * A second build into the same folder would delete the first one's frames while they are extracted
 * (and be told its video does not decode); it stops here instead. A lock whose process has died (kill -9,
 * a crash) is taken over; one still being written (no pid yet) counts as held. `leased`: the video is held
 * under a build queue's lease, which only one worker has, so a lock left by a worker of another host is stale.
 */
export const lockTreeFolder = Effect.fn("TreeFolder.lock")(function*(
  folder: ClaimedFolder,
  options: { readonly leased?: boolean } = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = yield* insideTree(folder, path.join(".vtree", lockFile))
  const take = fs.writeFileString(file, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`, { flag: "wx" })
  const alreadyLocked = (error: { readonly _tag: string; readonly reason?: string }) =>
    error._tag === "SystemError" && error.reason === "AlreadyExists"
  const taken = yield* take.pipe(
    Effect.as(true),
    Effect.catchIf(alreadyLocked, () => Effect.succeed(false)),
    Effect.mapError(unwritable(folder.dir))
  )
  const busy = refused(`another build is writing this tree (${folder.dir}) — wait for it or use another --out`)
  if (!taken) {
    if (options.leased !== true && lockHeld(yield* readJson(BuildLock, file))) return yield* busy
    yield* removeInside(folder.root, file)
    // Two builds finding the same dead lock: one of them makes the new one, the other is refused.
    yield* take.pipe(
      Effect.catchIf(alreadyLocked, () => busy),
      Effect.mapError((error) => error._tag === "BuildError" ? error : unwritable(folder.dir)(error))
    )
  }
  yield* Effect.addFinalizer(() => fs.remove(file).pipe(Effect.ignore))
})

/** Removes `target` (recursively) when it lies inside the folder; a missing target is no error. */
export const removeInside = Effect.fn("TreeFolder.removeInside")(function*(root: string, target: string) {
  const fs = yield* FileSystem.FileSystem
  yield* confine(root, target)
  yield* fs.remove(target, { recursive: true }).pipe(
    Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
    Effect.mapError(unwritable(target))
  )
})

/**
 * Frame files into `frames/` (hard links to the cache where the file system allows), then the frames
 * an earlier build wrote and this one does not removed. Only files on vtree's list are ever removed:
 * a picture someone else put in `frames/` stays.
 */
export const writeFrames = Effect.fn("TreeFolder.writeFrames")(function*(
  folder: TreeFolder,
  files: ReadonlyArray<{ readonly target: string; readonly source: string }>
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const framesDir = yield* confine(folder.root, path.join(folder.dir, "frames"))
  const listFile = yield* confine(folder.root, path.join(folder.dir, ".vtree", framesListFile))
  const written = files.map((file) => path.basename(file.target))
  const earlier = Option.match(yield* readJson(FramesList, listFile), {
    onNone: () => [],
    onSome: (list) => list.files
  })
  const saveList = (names: ReadonlyArray<string>) =>
    writeAtomically(listFile, `${JSON.stringify({ files: [...new Set(names)] })}\n`).pipe(
      Effect.mapError(unwritable(folder.dir))
    )
  // Listed before they are written: a build stopped halfway still knows which files are its own.
  yield* saveList([...earlier, ...written])
  yield* fs.makeDirectory(framesDir, { recursive: true }).pipe(Effect.mapError(unwritable(folder.dir)))
  yield* Effect.forEach(files, ({ source, target }) =>
    Effect.gen(function*() {
      const dest = yield* confine(folder.root, path.join(folder.dir, target))
      yield* fs.remove(dest).pipe(Effect.ignore)
      yield* fs.link(source, dest).pipe(
        Effect.orElse(() => fs.copyFile(source, dest)),
        Effect.mapError(unwritable(folder.dir))
      )
    }), { concurrency: 16, discard: true })
  const keep = new Set(written)
  const stale = earlier.filter((name) => !keep.has(name) && path.basename(name) === name)
  yield* Effect.forEach(stale, (name) => removeInside(folder.root, path.join(framesDir, name)), { discard: true })
  yield* saveList(written)
})

/**
 * The frames vtree wrote into `frames/` removed, for a tree rewritten without frames: then its list, and
 * `frames/` itself when nothing else is left in it. A file vtree did not list stays.
 */
export const clearFrames = Effect.fn("TreeFolder.clearFrames")(function*(folder: TreeFolder) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const framesDir = yield* confine(folder.root, path.join(folder.dir, "frames"))
  const listFile = yield* confine(folder.root, path.join(folder.dir, ".vtree", framesListFile))
  const listed = Option.match(yield* readJson(FramesList, listFile), { onNone: () => [], onSome: (list) => list.files })
  const names = listed.filter((name) => path.basename(name) === name)
  yield* Effect.forEach(names, (name) => removeInside(folder.root, path.join(framesDir, name)), {
    concurrency: 16,
    discard: true
  })
  yield* removeInside(folder.root, listFile)
  const left = yield* fs.readDirectory(framesDir).pipe(Effect.orElseSucceed(() => ["?"]))
  if (left.length === 0) yield* removeInside(folder.root, framesDir)
})
