// The videos `vtree build` takes: listed (from files and folders), narrowed to those a --questions file names, probed,
// and each with its subtitles found — file subtitles read at once, so a malformed one stops the build before it writes.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Either, Option } from "effect"
import type { MediaError, SubtitleError } from "../../domain/Media.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { countOf } from "../../text/Format.js"
import { BuildError } from "./BuildError.js"
import * as Inputs from "./Inputs.js"
import * as QuestionVideos from "./QuestionVideos.js"
import * as Subtitles from "./Subtitles.js"

const badInput = (message: string) => new BuildError({ reason: "BadInput", message })

/** Subtitle, media and provider failures while subtitles are found, as one-line build errors. */
const subtitleFailure = (error: SubtitleError | MediaError | ProviderError | BuildError): BuildError =>
  error._tag === "BuildError"
    ? error
    : error._tag === "ProviderError"
    ? new BuildError({
      reason: "ProviderFailed",
      message: `speech to text: ${
        error.message.split("\n")[0]
      } — check VTREE_ASR_BASE_URL / _MODEL, or give subtitles with --subtitles`
    })
    : badInput(error.message)

/**
 * `--subtitles FILE` and `--subtitles-dir DIR` must name what exists: a mistyped folder would otherwise
 * leave every video without subtitles, and nobody would know.
 */
const checkSubtitlePaths = (args: {
  readonly subtitles: Option.Option<string>
  readonly subtitlesDir: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const given = [
      ...Option.toArray(Option.map(args.subtitles, (file) => ({ flag: "--subtitles", file, type: "File" as const }))),
      ...Option.toArray(
        Option.map(args.subtitlesDir, (file) => ({ flag: "--subtitles-dir", file, type: "Directory" as const }))
      )
    ]
    for (const { file, flag, type } of given) {
      const info = yield* Effect.either(fs.stat(file))
      const what = type === "File" ? "file" : "folder"
      if (Either.isLeft(info)) {
        return yield* new BuildError({
          reason: "BadOption",
          message: `${flag} ${file}: no such ${what} — check the path`
        })
      }
      if (info.right.type !== type) {
        return yield* new BuildError({
          reason: "BadOption",
          message: `${flag} ${file}: not a ${what} — ${
            type === "File"
              ? "give one .srt / .vtt file"
              : "give the folder holding <videoID>.srt files, or --subtitles FILE for one file"
          }`
        })
      }
    }
  })

/**
 * File subtitles (--subtitles, sidecars, --subtitles-dir) are read now, so a malformed one stops the
 * command before anything is written; embedded streams and speech to text wait for their video.
 */
const withSubtitles = (
  probed: ReadonlyArray<Inputs.ProbedVideo & { readonly metadata?: QuestionVideos.VideoMetadata }>,
  args: {
    readonly subtitles: Option.Option<string>
    readonly subtitlesDir: Option.Option<string>
    readonly questions: Option.Option<string>
  }
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return yield* Effect.forEach(probed, (video) =>
      Effect.gen(function*() {
        const named = video.metadata?.subtitles
        const questionsFile = Option.getOrUndefined(args.questions)
        const candidates = named === undefined || questionsFile === undefined
          ? []
          : yield* Either.match(
            QuestionVideos.subtitleCandidates(path, named.path, {
              subtitlesDir: Option.getOrUndefined(args.subtitlesDir),
              questionsDir: path.dirname(questionsFile)
            }),
            {
              onLeft: (problem) =>
                Effect.fail(
                  badInput(`--questions ${questionsFile}: video "${video.videoId}": ${problem} — fix the row`)
                ),
              onRight: Effect.succeed
            }
          )
        const request = {
          video: video.path,
          videoId: video.videoId,
          info: video.info,
          named: candidates,
          ...(named === undefined ? {} : { subtitleOffset: named.offset }),
          ...(Option.isSome(args.subtitles) ? { subtitlesFile: args.subtitles.value } : {}),
          ...(Option.isSome(args.subtitlesDir) ? { subtitlesDir: args.subtitlesDir.value } : {})
        }
        const resolveWith = (plan: boolean) =>
          Subtitles.resolveSubtitles({ ...request, plan }).pipe(
            Effect.map((resolved) => ({
              source: resolved.from === undefined
                ? resolved.source
                : `${resolved.source}:${path.basename(resolved.from)}`,
              cues: resolved.cues
            })),
            Effect.mapError(subtitleFailure)
          )
        const resolve = resolveWith(false)
        const sidecars = yield* Effect.forEach(
          Subtitles.sidecarCandidates(path, request),
          (file) => fs.exists(file).pipe(Effect.orElseSucceed(() => false))
        )
        const fromFile = Option.isSome(args.subtitles) || sidecars.some(Boolean)
        const early = fromFile ? Option.some(yield* resolve) : Option.none()
        return {
          video,
          subtitles: Option.match(early, { onNone: () => resolve, onSome: Effect.succeed }),
          // What a dry run shows: the same sources, speech to text named but not run.
          planned: Option.match(early, { onNone: () => resolveWith(true), onSome: Effect.succeed })
        }
      }))
  })

/**
 * `--questions FILE`: the given videos the file names, each with what the file says about it. A video
 * the file needs and nobody gave stops the command before anything is built; videos it does not name
 * are left out, and counted on stderr.
 */
const selectForQuestions = (given: ReadonlyArray<Inputs.VideoInput>, file: string, benchmark: Option.Option<string>) =>
  Effect.gen(function*() {
    const { questions } = yield* QuestionVideos.loadQuestionFile(file, Option.getOrUndefined(benchmark))
    const selection = QuestionVideos.selectVideos(given, QuestionVideos.videoMetadata(questions))
    if (selection.missing.length > 0) {
      return yield* badInput(QuestionVideos.missingVideosMessage(file, selection.missing))
    }
    if (selection.skipped.length > 0) {
      const count = countOf(selection.skipped.length, "video")
      yield* Console.error(
        `vtree: skipping ${count} that ${file} does not name (${
          selection.skipped.slice(0, 3).map((v) => v.videoId).join(", ")
        }${selection.skipped.length > 3 ? ", …" : ""})`
      )
    }
    return selection.selected.map(({ metadata, video }) => ({ ...video, metadata }))
  })

/** The flags of `vtree build` that say which videos it builds, and with which subtitles. */
export interface BuildRequest {
  readonly videos: ReadonlyArray<string>
  readonly recursive: boolean
  readonly out: string
  readonly questions: Option.Option<string>
  readonly benchmark: Option.Option<string>
  readonly subtitles: Option.Option<string>
  readonly subtitlesDir: Option.Option<string>
  /** `--shard`: which of the listed videos this machine builds (before any is probed). */
  readonly keep?: (videoId: string) => boolean
}

/** The videos to build, probed, each with its subtitles read or waiting (see withSubtitles). */
export const prepareInputs = Effect.fn("BuildInputs.prepare")(function*(args: BuildRequest) {
  yield* checkSubtitlePaths(args)
  const given = yield* Inputs.listVideos(args.videos, { recursive: args.recursive, outDir: args.out })
  const selected: ReadonlyArray<Inputs.VideoInput & { readonly metadata?: QuestionVideos.VideoMetadata }> =
    Option.isNone(args.questions) ? given : yield* selectForQuestions(given, args.questions.value, args.benchmark)
  const keep = args.keep
  const listed = keep === undefined ? selected : selected.filter((video) => keep(video.videoId))
  if (Option.isSome(args.subtitles) && listed.length > 1) {
    return yield* new BuildError({
      reason: "BadOption",
      message:
        `--subtitles ${args.subtitles.value} names one file for ${listed.length} videos — build that video alone, or use --subtitles-dir with <videoID>.srt files`
    })
  }
  const probed = yield* Inputs.probeVideos(listed)
  return yield* withSubtitles(probed, args)
})

/** What prepareInputs gives for each video: the video, and its subtitles read now or when it is built. */
export type BuildInputs = Effect.Effect.Success<ReturnType<typeof prepareInputs>>

/** The prepared videos as the builder takes them: each with its subtitles, and the domain and duration class of its metadata. */
export const videosToBuild = (inputs: BuildInputs) =>
  inputs.map(({ subtitles, video: { metadata, ...video } }) => ({
    ...video,
    subtitles,
    ...(metadata?.domain === undefined ? {} : { domain: metadata.domain }),
    ...(metadata?.durationCategory === undefined ? {} : { durationCategory: metadata.durationCategory })
  }))
