/**
 * Everything checked before a build writes anything: the files named on the command line (folders
 * expanded to the videos they hold), their video ids, that each is a video ffprobe can read, and that
 * the output folder can be written. A bad input stops the whole command with one line and no tree.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Option } from "effect"
import type { MediaError, MediaInfo } from "../../domain/Media.js"
import { videoIdFromFile } from "../../domain/NameId.js"
import { MediaProbe } from "../../services/MediaProbe.js"
import { BuildError } from "./BuildError.js"

/** Extensions taken from a folder; a file named directly is probed whatever its name. */
export const videoExtensions: ReadonlySet<string> = new Set([
  ".mp4",
  ".mkv",
  ".webm",
  ".mov",
  ".avi",
  ".m4v",
  ".mpg",
  ".mpeg",
  ".ts",
  ".mts",
  ".wmv",
  ".flv",
  ".3gp",
  ".ogv"
])

export interface VideoInput {
  readonly path: string
  readonly videoId: string
}

export interface ProbedVideo extends VideoInput {
  readonly info: MediaInfo
}

/**
 * The videos in `dir`, in name order, and with `recursive` those of its subfolders at any depth (each
 * folder's own videos first, then its subfolders in name order). Not entered: links to folders (a loop,
 * or someone else's tree of files), hidden folders (`.vtree`, `.git`) and the output folder.
 */
const videosIn = Effect.fnUntraced(function*(
  dir: string,
  options: { readonly recursive: boolean; readonly skip: ReadonlySet<string> }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const found: Array<string> = []
  let below = 0
  const visit = (folder: string, depth: number): Effect.Effect<void, BuildError> =>
    Effect.gen(function*() {
      const names = yield* fs.readDirectory(folder).pipe(
        Effect.mapError((error) =>
          new BuildError({ reason: "BadInput", message: `${folder}: cannot list the folder (${error.message})` })
        )
      )
      const folders: Array<string> = []
      for (const name of [...names].sort()) {
        const entry = path.join(folder, name)
        const info = yield* Effect.option(fs.stat(entry))
        if (Option.isNone(info)) continue
        if (info.value.type === "Directory") {
          const isLink = Either.isRight(yield* Effect.either(fs.readLink(entry)))
          const real = yield* Effect.option(fs.realPath(entry))
          if (!isLink && !name.startsWith(".") && Option.isSome(real) && !options.skip.has(real.value)) {
            folders.push(entry)
          }
        } else if (videoExtensions.has(path.extname(name).toLowerCase())) {
          if (depth === 0 || options.recursive) found.push(entry)
          else below++
        }
      }
      // Without --recursive the subfolders are looked into only to say what they hold, when the folder holds none.
      if (depth === 0 && !options.recursive && found.length > 0) return
      for (const sub of folders) yield* visit(sub, depth + 1)
    })
  yield* visit(dir, 0)
  return { found, below }
})

/**
 * The video files named, folders expanded (their videos, in name order; with `recursive`, their
 * subfolders' too); ids checked for clashes across all of them.
 */
export const listVideos = Effect.fn("Inputs.listVideos")(function*(
  inputs: ReadonlyArray<string>,
  options: { readonly recursive?: boolean; readonly outDir?: string } = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if (inputs.length === 0) {
    return yield* new BuildError({
      reason: "BadInput",
      message: "no video given — name video files or folders of videos"
    })
  }
  // Outputs never become inputs: a trees folder inside the video folder is not walked.
  const skip = new Set(
    options.outDir === undefined ? [] : Option.toArray(yield* Effect.option(fs.realPath(options.outDir)))
  )
  const files: Array<string> = []
  for (const input of inputs) {
    const info = yield* fs.stat(input).pipe(
      Effect.mapError(() => new BuildError({ reason: "BadInput", message: `${input}: not found — check the path` }))
    )
    if (info.type === "Directory") {
      const { below, found } = yield* videosIn(input, { recursive: options.recursive === true, skip })
      if (found.length === 0) {
        return yield* new BuildError({
          reason: "BadInput",
          message: below > 0
            ? `${input}: no video files in this folder, ${below} in its subfolders — add --recursive to build them, or name the subfolders`
            : `${input}: no video files in this folder${
              options.recursive === true ? " or its subfolders" : ""
            } (looked for ${[...videoExtensions].join(" ")}) — name the videos directly`
        })
      }
      for (const file of found) files.push(file)
    } else {
      files.push(input)
    }
  }
  const byId = new Map<string, VideoInput>()
  const videos: Array<VideoInput> = []
  for (const file of files) {
    const made = videoIdFromFile(file)
    if ("problem" in made) {
      return yield* new BuildError({
        reason: "BadInput",
        message: `${file}: the file name ${made.problem} — rename the file`
      })
    }
    const videoId = made.id
    // Compared without case: on macOS and Windows "Clip" and "clip" are one folder.
    const other = byId.get(videoId.toLowerCase())
    if (other !== undefined) {
      if (path.resolve(other.path) === path.resolve(file)) continue
      const ids = other.videoId === videoId
        ? `both map to video id "${videoId}" (the file name without its extension)`
        : `map to video ids "${other.videoId}" and "${videoId}", one folder where case does not count (macOS, Windows)`
      return yield* new BuildError({
        reason: "BadInput",
        message: `${other.path} and ${file} ${ids} — rename one, or build them into different --out folders`
      })
    }
    const video = { path: file, videoId }
    byId.set(videoId.toLowerCase(), video)
    videos.push(video)
  }
  return videos
})

const mediaFix: Record<MediaError["reason"], string> = {
  ToolMissing: "install ffmpeg (e.g. apt-get install ffmpeg) or set VTREE_FFMPEG / VTREE_FFPROBE",
  Unreadable: "check the path and its permissions",
  NotMedia: "pass a video file (mp4, mkv, webm, …)",
  NoVideo: "it has no video stream (audio only?) — pass a video file",
  Truncated: "the file is empty or cut short — re-download or re-encode it",
  Failed: "check the file with ffprobe"
}

/** A media failure as a build failure: one line with the file and the fix. */
export const fromMediaError = (error: MediaError): BuildError =>
  new BuildError({
    reason: error.reason === "ToolMissing" ? "BadOption" : "BadInput",
    message: error.message.includes(error.path)
      ? error.message
      : `${error.path}: ${error.message} — ${mediaFix[error.reason]}`
  })

/** The shortest video a tree is built from: under a second there is nothing to sample but one frame. */
export const minimumSeconds = 1

// ffmpeg decodes single pictures as one-frame "video" streams of these codecs (image2, *_pipe formats).
const imageCodecs: ReadonlySet<string> = new Set([
  "mjpeg",
  "png",
  "webp",
  "bmp",
  "tiff",
  "gif",
  "jpeg2000",
  "jpegls",
  "jpegxl",
  "qoi",
  "ppm",
  "pgm",
  "pbm",
  "pam",
  "sgi",
  "targa",
  "dpx",
  "exr",
  "hdr",
  "psd",
  "svg",
  "xbm",
  "xpm",
  "pcx",
  "avif"
])

const tooShort = (info: MediaInfo): string => {
  const codec = info.streams.find((stream) => stream.kind === "video")?.codec ?? "unknown"
  const seconds = `${(Math.round(info.durationSeconds * 100) / 100).toString()} s`
  return imageCodecs.has(codec) && info.durationSeconds < 0.5
    ? `a still image (${codec}), not a video — vtree builds trees from videos of at least ${minimumSeconds} s`
    : `its video lasts ${seconds} — vtree builds trees from videos of at least ${minimumSeconds} s`
}

/** Probes every video up front, so a bad one stops the command before any tree is written; each keeps its fields. */
export const probeVideos = Effect.fn("Inputs.probeVideos")(
  function*<V extends VideoInput>(videos: ReadonlyArray<V>) {
    const probe = yield* MediaProbe
    return yield* Effect.forEach(videos, (video) =>
      probe.probe(video.path).pipe(
        Effect.mapError(fromMediaError),
        Effect.filterOrFail(
          (info) => info.streams.some((stream) => stream.kind === "video"),
          () => new BuildError({ reason: "BadInput", message: `${video.path}: ${mediaFix.NoVideo}` })
        ),
        Effect.filterOrFail(
          (info) => Number.isFinite(info.durationSeconds) && info.durationSeconds > 0,
          () => new BuildError({ reason: "BadInput", message: `${video.path}: zero length — ${mediaFix.Truncated}` })
        ),
        Effect.filterOrFail(
          (info) => info.durationSeconds >= minimumSeconds,
          (info) => new BuildError({ reason: "BadInput", message: `${video.path}: ${tooShort(info)}` })
        ),
        Effect.map((info): V & ProbedVideo => ({ ...video, info }))
      ), { concurrency: 4 })
  }
)

/** The output folder exists (created when missing) and takes a file. */
export const checkWritable = Effect.fn("Inputs.checkWritable")(function*(outDir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const probe = path.join(outDir, `.vtree-write-check-${process.pid}`)
  yield* fs.makeDirectory(outDir, { recursive: true }).pipe(
    Effect.zipRight(fs.writeFileString(probe, "")),
    Effect.zipRight(fs.remove(probe)),
    Effect.mapError((error) =>
      new BuildError({
        reason: "Unwritable",
        message: `--out ${outDir}: cannot write there (${
          error.message.split("\n")[0]
        }) — choose a folder you can write to`
      })
    )
  )
})
