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
import { BuildError } from "./BuildError.js"
import { writeAtomically } from "./Checkpoint.js"

/** `.vtree/tree-folder.json`: written first into every tree folder a build makes or takes over. */
export const markerFile = "tree-folder.json"
/** `.vtree/frames-written.json`: the frame files vtree put into `frames/`, the only ones it removes. */
export const framesListFile = "frames-written.json"

const Marker = Schema.Struct({ made_by: Schema.Literal("vtree build"), videoID: Schema.String })
const FramesList = Schema.Struct({ files: Schema.Array(Schema.String) })
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
    if (Either.isRight(link)) {
      return yield* refused(
        `${current}: a symbolic link inside --out (to ${link.right}) — vtree writes no tree through a link; remove it or choose another --out`
      )
    }
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
 * `<root>/<videoId>` when a build may write there: new, empty, or made by vtree for this video.
 * Anything else fails with one line naming the folder and the fix; nothing is written either way.
 */
export const checkTreeFolder = Effect.fn("TreeFolder.check")(function*(root: string, videoId: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = yield* confine(root, path.join(root, videoId))
  if (!(yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false)))) {
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

/** Marks the folder as vtree's (creating it), before the first file of the build goes in. */
export const claimTreeFolder = Effect.fn("TreeFolder.claim")(function*(folder: TreeFolder) {
  const path = yield* Path.Path
  const marker = yield* confine(folder.root, path.join(folder.dir, ".vtree", markerFile))
  yield* writeAtomically(marker, `${JSON.stringify({ made_by: "vtree build", videoID: folder.videoId })}\n`).pipe(
    Effect.mapError(unwritable(folder.dir))
  )
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
