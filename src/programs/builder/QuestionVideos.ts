/**
 * `vtree build --questions FILE`: which of the given videos a benchmark's question file names, and what
 * the file says about each one (domain, duration band, LongVideoBench's subtitle file and where the clip
 * starts on its clock). The selection is plain functions; `loadQuestionFile` reads the file, or a folder
 * of .json files such as MLVU dev's, with the depth-limited JSON reader.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either } from "effect"
import { idFromName } from "../../domain/NameId.js"
import { readUserText, userFileCaps } from "../../domain/UserFile.js"
import { countOf } from "../../text/Format.js"
import type { BenchmarkInput, BenchmarkQuestion, InputFile } from "../benchmarks/Benchmark.js"
import { decodeBenchmark } from "../benchmarks/BenchmarkQuestions.js"
import { isRecord } from "../benchmarks/Rows.js"
import { readContent } from "../questions/QuestionLoader.js"
import { BuildError } from "./BuildError.js"
import { durationCategory } from "./NodeIds.js"

export type DurationBand = "short" | "medium" | "long"

/** What a question file says about one video; a field the file leaves out is absent. */
export interface VideoMetadata {
  readonly videoId: string
  readonly domain?: string
  readonly durationCategory?: DurationBand
  /** LongVideoBench's `subtitle_path` (as the row spells it) and `starting_timestamp_for_subtitles`. */
  readonly subtitles?: { readonly path: string; readonly offset: number }
}

const isBand = (text: string | null): text is DurationBand => text === "short" || text === "medium" || text === "long"

/**
 * A question's duration band: Video-MME's own (`duration`), else the clip's length in seconds, else
 * LongVideoBench's `duration_group` (an upper bound in seconds), each through the tree's band rule.
 */
export const durationBandOf = (q: BenchmarkQuestion): DurationBand | undefined => {
  if (isBand(q.durationGroup)) return q.durationGroup
  if (q.durationSeconds !== null && Number.isFinite(q.durationSeconds) && q.durationSeconds > 0) {
    return durationCategory(q.durationSeconds)
  }
  const group = q.durationGroup === null ? NaN : Number(q.durationGroup)
  return Number.isFinite(group) && group > 0 ? durationCategory(group) : undefined
}

/** LongVideoBench's subtitle file and offset from the question's row; absent elsewhere or when unset. */
export const subtitlesOf = (q: BenchmarkQuestion): VideoMetadata["subtitles"] => {
  if (q.benchmark !== "longvideobench" || !isRecord(q.row)) return undefined
  const path = q.row["subtitle_path"]
  if (typeof path !== "string" || path.trim() === "") return undefined
  const offset = q.row["starting_timestamp_for_subtitles"]
  return { path: path.trim(), offset: typeof offset === "number" && Number.isFinite(offset) ? offset : 0 }
}

/** One entry per video, in the order the file first names it; each field from the first question that has it. */
export const videoMetadata = (questions: ReadonlyArray<BenchmarkQuestion>): ReadonlyArray<VideoMetadata> => {
  const byId = new Map<string, VideoMetadata>()
  for (const q of questions) {
    const known = byId.get(q.videoId) ?? { videoId: q.videoId }
    const band = known.durationCategory ?? durationBandOf(q)
    const subtitles = known.subtitles ?? subtitlesOf(q)
    const domain = known.domain ?? (q.domain ?? undefined)
    byId.set(q.videoId, {
      videoId: q.videoId,
      ...(domain === undefined ? {} : { domain }),
      ...(band === undefined ? {} : { durationCategory: band }),
      ...(subtitles === undefined ? {} : { subtitles })
    })
  }
  return [...byId.values()]
}

export interface Selection<V> {
  /** The videos the file names, in the order they were given, each with its metadata. */
  readonly selected: ReadonlyArray<{ readonly video: V; readonly metadata: VideoMetadata }>
  /** Videos given that the file does not name. */
  readonly skipped: ReadonlyArray<V>
  /** Video ids the file names that no given video has, in the file's order. */
  readonly missing: ReadonlyArray<string>
}

/**
 * The given videos matched to the file's: a video's id is its file name's id (`videoIdFromFile`), a
 * question's video id is taken through the same rule, so `clip.mp4` serves `"videoID": "clip"`.
 */
export const selectVideos = <V extends { readonly videoId: string }>(
  videos: ReadonlyArray<V>,
  metadata: ReadonlyArray<VideoMetadata>
): Selection<V> => {
  const wanted = new Map<string, VideoMetadata>()
  for (const m of metadata) {
    const made = idFromName(m.videoId)
    wanted.set("id" in made ? made.id : m.videoId, m)
  }
  const selected: Array<{ video: V; metadata: VideoMetadata }> = []
  const skipped: Array<V> = []
  const found = new Set<string>()
  for (const video of videos) {
    const m = wanted.get(video.videoId)
    if (m === undefined) {
      skipped.push(video)
    } else {
      selected.push({ video, metadata: m })
      found.add(m.videoId)
    }
  }
  return { selected, skipped, missing: metadata.filter((m) => !found.has(m.videoId)).map((m) => m.videoId) }
}

/** The one line refusing a build whose question file needs videos that were not given. */
export const missingVideosMessage = (file: string, missing: ReadonlyArray<string>, shown = 5): string => {
  const names = missing.slice(0, shown).map((id) => JSON.stringify(id)).join(", ")
  const more = missing.length > shown ? `, and ${missing.length - shown} more` : ""
  const count = countOf(missing.length, "video")
  return `--questions ${file}: ${count} it names ${
    missing.length === 1 ? "has" : "have"
  } no video file among those given: ${names}${more} — add their files (a video's id is its file name without the extension), or build with a question file for the videos you have`
}

/**
 * Where a `subtitle_path` may lie, first found wins: under --subtitles-dir, beside the question file,
 * and in a `subtitles/` folder beside it (LongVideoBench's release). A path that is absolute or climbs
 * out with `..` is refused: the question file names data, not places on the disk.
 */
export const subtitleCandidates = (
  path: Path.Path,
  named: string,
  places: { readonly subtitlesDir: string | undefined; readonly questionsDir: string }
): Either.Either<ReadonlyArray<string>, string> => {
  if (path.isAbsolute(named) || named.split(/[\\/]/).includes("..") || named.includes("\0")) {
    return Either.left(
      `subtitle_path ${JSON.stringify(named)}: expected a path inside the subtitles folder (no leading "/", no "..")`
    )
  }
  const dirs = places.subtitlesDir === undefined
    ? [places.questionsDir, path.join(places.questionsDir, "subtitles")]
    : [places.subtitlesDir, places.questionsDir, path.join(places.questionsDir, "subtitles")]
  return Either.right([...new Set(dirs.map((dir) => path.join(dir, named)))])
}

const badInput = (message: string) => new BuildError({ reason: "BadInput", message })

// As `infer` reads it: a regular file under the questions cap, UTF-8 only, read exactly (QuestionLoader).
const readInput = Effect.fnUntraced(function*(file: string) {
  const text = yield* readUserText(file, userFileCaps.questions, { strict: true }).pipe(
    Effect.mapError((error) => badInput(`--questions ${error.message}`))
  )
  return yield* Either.match(readContent(file, text), {
    onLeft: (error) => Effect.fail(badInput(error.message)),
    onRight: (input): Effect.Effect<InputFile> => Effect.succeed(input)
  })
})

/** The question file (or folder of .json files) decoded as its benchmark, `--benchmark` forcing which. */
export const loadQuestionFile = Effect.fn("QuestionVideos.load")(
  function*(file: string, benchmark: string | undefined) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const info = yield* fs.stat(file).pipe(
      Effect.mapError(() => badInput(`--questions ${file}: not found — check the path`))
    )
    let input: BenchmarkInput
    if (info.type === "Directory") {
      const names = yield* fs.readDirectory(file).pipe(
        Effect.mapError((error) =>
          badInput(`--questions ${file}: cannot list the folder (${error.message.split("\n")[0]})`)
        )
      )
      const json = names.filter((name) => name.toLowerCase().endsWith(".json")).sort()
      if (json.length === 0) {
        return yield* badInput(`--questions ${file}: no .json files in this folder — pass the question file itself`)
      }
      input = {
        _tag: "Folder",
        dir: file,
        files: yield* Effect.forEach(json, (name) => readInput(path.join(file, name)))
      }
    } else {
      input = { _tag: "File", file: yield* readInput(file) }
    }
    return yield* Either.match(decodeBenchmark(input, { benchmark }), {
      onLeft: (error) => Effect.fail(badInput(error.message)),
      onRight: Effect.succeed
    })
  }
)
