/**
 * The files of `vtree tree import FILE|DIR`, read into videos: every file read through the capped
 * user-file reader and the strict JSON parser (no duplicate keys, bounded depth), its layout sniffed
 * unless --from forces one, then decoded by that layout's module. Video ids must be unique across all
 * files; each video keeps its file's name, sha256 and layout for the tree's build record.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either } from "effect"
import { readUserFile, userFileCaps } from "../../domain/UserFile.js"
import { sha256 } from "../builder/Checkpoint.js"
import { parseTreeJson } from "../tree/TreeJson.js"
import { readDvdCaptions, readDvdDatabase } from "./Dvd.js"
import { badInput, type ImportedVideo, type ImportFormat, isRecord, TreeImportError } from "./ImportedVideo.js"
import { readJsonl } from "./Jsonl.js"
import { readLlovi } from "./Llovi.js"
import { isParquet, readLongVidSearch } from "./LongVidSearch.js"
import { knownLayouts, sniffJson, sniffLines } from "./Sniff.js"
import { readVideoAgent, readVideoAgentMemory, videoAgentId } from "./VideoAgent.js"
import { readVideoRag } from "./VideoRag.js"

export interface SourcedVideo extends ImportedVideo {
  readonly format: ImportFormat
  readonly sha256: string
}

export interface SourceOptions {
  readonly from?: ImportFormat
  readonly fps?: number
  /** Videos one file may hold (`importLimits.videosPerFile`). */
  readonly videosPerFile: number
  /** The frame rate of a video, when --videos holds it (frame-indexed layouts). */
  readonly frameRateOf: (
    sourceId: string
  ) => Effect.Effect<number | undefined, never, FileSystem.FileSystem | Path.Path>
}

// How deep a folder of caption files is searched (DVD keeps `<video>/captions.json`).
const maxFolderDepth = 4

/** The .json and .jsonl files under `dir`, sorted; folders starting with "." (vtree's own .vtree) skipped. */
export const listCaptionFiles = Effect.fn("ImportSources.listCaptionFiles")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files: Array<string> = []
  const walk = (folder: string, depth: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const names = (yield* fs.readDirectory(folder).pipe(Effect.orElseSucceed(() => []))).sort()
      for (const name of names) {
        if (name.startsWith(".")) continue
        const full = path.join(folder, name)
        const info = yield* fs.stat(full).pipe(Effect.option)
        if (info._tag === "None") continue
        if (info.value.type === "Directory" && depth < maxFolderDepth) yield* walk(full, depth + 1)
        else if (info.value.type === "File" && /\.(jsonl?|parquet)$/i.test(name)) files.push(full)
      }
    })
  yield* walk(dir, 1)
  return files
})

// Names DVD and VideoRAG give every video's file alike: the video is named by the folder holding it.
const genericStems = new Set(["captions", "caption", "database", "db", "memory", "segments", "video_database"])

/** The video a one-video file is about: its name, or its folder's when the name is a generic one. */
export const videoIdOfFile = (file: string): string => {
  const parts = file.split(/[\\/]/).filter((part) => part !== "")
  for (let i = parts.length - 1; i >= 0; i--) {
    const stem = i === parts.length - 1 ? parts[i]!.replace(/\.jsonl?$/i, "") : parts[i]!
    if (!genericStems.has(stem.toLowerCase())) return stem
  }
  return parts[parts.length - 1] ?? file
}

const strictJson = { fix: "fix the file", depth: "caption files need a few levels; fix the file" }

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** One file's videos, its layout sniffed (or forced). */
export const readCaptionFile = Effect.fn("ImportSources.readCaptionFile")(function*(
  file: string,
  options: SourceOptions
) {
  const bytes = yield* readUserFile(file, userFileCaps.tree).pipe(
    Effect.mapError((error) => new TreeImportError({ reason: "BadInput", message: error.message }))
  )
  const hash = sha256(bytes)
  const sourced = (format: ImportFormat) => (videos: ReadonlyArray<ImportedVideo>) =>
    videos.map((video): SourcedVideo => ({ ...video, format, sha256: hash }))
  if (options.from === "longvidsearch" || (options.from === undefined && isParquet(bytes))) {
    return sourced("longvidsearch")(yield* readLongVidSearch(file, bytes))
  }
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return yield* badInput(file, "", "not valid UTF-8", "save the file as UTF-8")
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)

  const lines = options.from === undefined ? sniffLines(file, text) : options.from === "jsonl" ? "jsonl" : undefined
  if (lines === "jsonl") return yield* Either.map(readJsonl(file, text), sourced("jsonl"))

  const json = yield* Either.mapLeft(
    parseTreeJson(file, text, strictJson),
    (error) => new TreeImportError({ reason: "BadInput", message: error.message })
  )
  const format = options.from ?? sniffJson(file, json)
  if (format === undefined) {
    return yield* new TreeImportError({
      reason: "UnknownFormat",
      message: `${file}: not a caption layout vtree knows — the layouts are ${knownLayouts}; ` +
        "convert the file to one of them (jsonl is the simplest), or name its layout with --from"
    })
  }
  const id = videoIdOfFile(file)
  switch (format) {
    case "llovi":
      return yield* Either.map(readLlovi(file, json), sourced(format))
    case "videoagent":
      return yield* Either.map(readVideoAgent(file, json, videoAgentId(file)), sourced(format))
    case "videoagent-memory": {
      const fps = options.fps ?? (yield* options.frameRateOf(id))
      return yield* Either.map(readVideoAgentMemory(file, json, id, fps), sourced(format))
    }
    case "dvd":
      return yield* Either.map(
        isRecord(json) && Array.isArray(json["data"])
          ? readDvdDatabase(file, json, id)
          : readDvdCaptions(file, json, id),
        sourced(format)
      )
    case "videorag":
      return yield* Either.map(readVideoRag(file, json), sourced(format))
    case "jsonl":
      return yield* Either.map(readJsonl(file, text), sourced(format))
    case "longvidsearch":
      return yield* badInput(file, "", "is not Parquet", "pass LongVidSearch's video-caption.parquet")
  }
})

/**
 * Every video of FILE or of the caption files under DIR; a video id found twice (in two files, or
 * twice in one) is refused naming both places.
 */
export const readCaptionSources = Effect.fn("ImportSources.read")(function*(input: string, options: SourceOptions) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(input).pipe(
    Effect.mapError(() =>
      new TreeImportError({ reason: "BadInput", message: `${input}: does not exist — check the path` })
    )
  )
  const files = info.type === "Directory" ? yield* listCaptionFiles(input) : [input]
  if (files.length === 0) {
    return yield* badInput(input, "", "holds no .json or .jsonl caption file", "pass a caption file or its folder")
  }
  const videos: Array<SourcedVideo> = []
  const seen = new Map<string, string>()
  for (const file of files) {
    const read = yield* readCaptionFile(file, options)
    if (read.length > options.videosPerFile) {
      return yield* badInput(
        file,
        "",
        `${read.length} videos, more than the ${options.videosPerFile} one import writes from a file`,
        "split the file, and import the parts into several --out folders"
      )
    }
    for (const video of read) {
      const key = video.videoId.toLowerCase()
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        return yield* badInput(
          file,
          video.sourceId,
          `duplicate video id: "${video.sourceId}" is also in ${earlier}`,
          "keep one of the two (ids that differ only in case share a folder on macOS and Windows)"
        )
      }
      seen.set(key, file)
      videos.push(video)
    }
  }
  return videos
})
