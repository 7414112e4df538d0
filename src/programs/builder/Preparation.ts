/**
 * Everything a video needs before its first model call: its tree folder checked and claimed, the
 * source hashed, frames on the time grid and shot changes (FrameSource, cached in `.vtree/` per source,
 * interval and width), and its subtitles.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option, Schema, Stream } from "effect"
import { createHash } from "node:crypto"
import type { DamagedSpan, SubtitleCue } from "../../domain/Media.js"
import { FrameSource } from "../../services/FrameSource.js"
import { BuildError } from "./BuildError.js"
import type { BuildInput, BuildOptions } from "./BuildOptions.js"
import { sha256, writeAtomically } from "./Checkpoint.js"
import { fromMediaError, type ProbedVideo } from "./Inputs.js"
import { type BuildParameters, defaultParameters } from "./Plan.js"
import {
  checkTreeFolder,
  claimTreeFolder,
  confine,
  lockTreeFolder,
  removeInside,
  resolveOutDir,
  type TreeFolder,
  unwritable
} from "./TreeFolder.js"

const Manifest = Schema.Struct({
  key: Schema.String,
  // 2: what the decoder said about damage is recorded; 3: each frame's look (scene cuts). An older cache
  // does not decode, so its video is extracted again once (the frames come out the same, and so do the
  // card checkpoints keyed on them).
  version: Schema.Literal(3),
  frames: Schema.Array(
    Schema.Struct({ time: Schema.Number, file: Schema.String, look: Schema.optional(Schema.String) })
  ),
  shotChanges: Schema.Array(Schema.Number),
  damaged: Schema.Array(Schema.Struct({
    start: Schema.Number,
    end: Schema.Number,
    picture: Schema.Literal("missing", "corrupt"),
    decoder: Schema.String,
    messages: Schema.Number
  }))
})

export interface PreparedFrame {
  readonly time: number
  readonly path: string
  readonly sha256: string
  /** 4×4 RGB pixels, base64 (SceneCuts.ts compares them); absent when the extraction gave none. */
  readonly look?: string | undefined
}

export interface PreparedVideo extends ProbedVideo, Pick<BuildInput<never>, "domain" | "durationCategory"> {
  /** The real path of the tree folder (--out's links resolved); every write goes below it. */
  readonly treeDir: string
  readonly folder: TreeFolder
  readonly sourceSha256: string
  readonly frames: ReadonlyArray<PreparedFrame>
  readonly shotChanges: ReadonlyArray<number>
  /** Stretches without a picture (the decoder reported damaged data there). */
  readonly damaged: ReadonlyArray<DamagedSpan>
  readonly cues: ReadonlyArray<SubtitleCue>
  readonly subtitleSource: string
}

export const hashFile = Effect.fn("Preparation.hashFile")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const hash = createHash("sha256")
  // 1 MiB reads: the default small chunks cost more in per-chunk overhead than the hashing itself.
  yield* fs.stream(file, { chunkSize: FileSystem.MiB(1) }).pipe(
    Stream.runForEach((chunk) => Effect.sync(() => hash.update(chunk)))
  )
  return hash.digest("hex")
})

/** The name of a video's frame cache: its bytes, the interval and the width decide the frames. */
export const framesKey = (sourceSha256: string, p: Pick<BuildParameters, "frameInterval" | "frameWidth">) =>
  sha256(JSON.stringify({ sourceSha256, interval: p.frameInterval, width: p.frameWidth })).slice(0, 16)

/** The frames and shot changes cached in `framesDir`, when its manifest is intact and for `key`. */
export const cachedFrames = Effect.fn("Preparation.cachedFrames")(function*(framesDir: string, key: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const cached = yield* fs.readFileString(path.join(framesDir, "manifest.json")).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(Manifest))),
    Effect.filterOrFail((manifest) => manifest.key === key),
    Effect.option
  )
  return Option.map(cached, (manifest) => ({
    frames: manifest.frames.map((frame) => ({
      timeSeconds: frame.time,
      path: path.join(framesDir, frame.file),
      ...(frame.look === undefined ? {} : { look: frame.look })
    })),
    shotChanges: manifest.shotChanges,
    damaged: manifest.damaged
  }))
})

/** Frames from the cache when its manifest matches `key`, else extracted afresh into `framesDir`. */
const framesOf = Effect.fnUntraced(
  function*(input: BuildInput<any>, folder: TreeFolder, framesDir: string, key: string, p: typeof defaultParameters) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const frameSource = yield* FrameSource
    const manifestFile = path.join(framesDir, "manifest.json")
    const cached = yield* cachedFrames(framesDir, key)
    if (Option.isSome(cached)) return cached.value
    yield* removeInside(folder.root, framesDir)
    yield* fs.makeDirectory(framesDir, { recursive: true }).pipe(Effect.mapError(unwritable(folder.dir)))
    const extracted = yield* frameSource.extract({
      path: input.path,
      intervalSeconds: p.frameInterval,
      width: p.frameWidth,
      outDir: framesDir
    }).pipe(
      Effect.mapError(fromMediaError),
      // A video that does not decode leaves nothing behind: no half-made tree folder.
      Effect.tapError(() => removeInside(folder.root, folder.fresh ? folder.dir : framesDir).pipe(Effect.ignore))
    )
    if (extracted.frames.length === 0) {
      return yield* new BuildError({
        reason: "BadInput",
        message: `${input.path}: no frame could be decoded — the file is damaged or cut short; re-encode it`
      })
    }
    yield* writeAtomically(
      manifestFile,
      JSON.stringify({
        key,
        version: 3,
        frames: extracted.frames.map((frame) => ({
          time: frame.timeSeconds,
          file: path.relative(framesDir, frame.path),
          look: frame.look
        })),
        shotChanges: extracted.shotChanges,
        damaged: extracted.damaged
      })
    ).pipe(Effect.mapError(unwritable(folder.dir)))
    return extracted
  }
)

/** Source hash, frames (from the cache when it matches), shot changes and subtitles of one video. */
export const prepareVideo = Effect.fn("Preparation.prepareVideo")(
  function*<R = never>(input: BuildInput<R>, options: BuildOptions) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const p = { ...defaultParameters, ...options.parameters }
    const folder = yield* checkTreeFolder(yield* resolveOutDir(options.outDir), input.videoId)
    const cacheDir = path.join(folder.dir, ".vtree")
    // Held until the build's scope closes (buildTree's): its tree written, or the build stopped.
    yield* lockTreeFolder(yield* claimTreeFolder(folder), { leased: options.leased === true })
    if (options.force === true) {
      // The cache of calls and frames only: the marker and the list of written frames stay.
      const names = yield* fs.readDirectory(cacheDir).pipe(Effect.orElseSucceed(() => []))
      const dropped = names.filter((name) => name === "checkpoints" || name.startsWith("frames-"))
      yield* Effect.forEach(dropped, (name) => removeInside(folder.root, path.join(cacheDir, name)), { discard: true })
    }
    const sourceSha256 = yield* hashFile(input.path).pipe(
      Effect.mapError((error) =>
        new BuildError({
          reason: "BadInput",
          message: `${input.path}: cannot be read (${error.message}) — check the file`
        })
      )
    )
    const key = framesKey(sourceSha256, p)
    const framesDir = yield* confine(folder.root, path.join(cacheDir, `frames-${key}`))
    const extraction = yield* framesOf(input, folder, framesDir, key, p)
    const frames = yield* Effect.forEach(extraction.frames, (frame) =>
      fs.readFile(frame.path).pipe(
        Effect.map((bytes): PreparedFrame => ({
          time: frame.timeSeconds,
          path: frame.path,
          sha256: sha256(bytes),
          ...(frame.look === undefined ? {} : { look: frame.look })
        })),
        Effect.mapError(() =>
          new BuildError({
            reason: "Unwritable",
            message: `${frame.path}: extracted frame missing — run again with --force`
          })
        )
      ), { concurrency: 16 })
    const subtitles = input.subtitles === undefined ? { source: "none", cues: [] } : yield* input.subtitles
    return {
      ...input,
      treeDir: folder.dir,
      folder,
      sourceSha256,
      frames,
      shotChanges: extraction.shotChanges,
      damaged: extraction.damaged,
      cues: subtitles.cues,
      subtitleSource: subtitles.source
    } satisfies PreparedVideo
  }
)
