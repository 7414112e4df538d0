import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Option } from "effect"
import { type MediaError, type MediaInfo, type SubtitleCue, SubtitleError } from "../../domain/Media.js"
import { parseSubtitles } from "../../domain/SubtitleFormat.js"
import { readUserText, userFileCaps } from "../../domain/UserFile.js"
import { parseUserJson } from "../../domain/UserJson.js"
import { MediaProbe } from "../../services/MediaProbe.js"
import { SpeechToText } from "../../services/SpeechToText.js"
import { parseLongVideoBenchSubtitles } from "../benchmarks/LongVideoBenchSubtitles.js"
import { wordCues } from "../benchmarks/VideoMmeV2Subtitles.js"
import { transcribeVideo } from "./Transcription.js"

/**
 * Where a video's cues came from, in the order they are looked for: `--subtitles FILE`, a file the
 * question file names found beside it (`questions`; under --subtitles-dir it is `dir`), a `sidecar`
 * beside the video, a file in --subtitles-dir (`dir`), a stream inside the video, speech to text, none.
 */
export type SubtitleSource = "file" | "questions" | "sidecar" | "dir" | "embedded" | "asr" | "none"

export interface ResolvedSubtitles {
  readonly source: SubtitleSource
  /** The file or stream read (`video#streamIndex` for an embedded stream); absent for asr and none. */
  readonly from?: string
  readonly cues: ReadonlyArray<SubtitleCue>
}

/** The kind of a build record's subtitle source (`"dir:x.srt"` → `dir`), as the build summary shows it. */
export const subtitleKind = (source: string): string => source.split(":")[0] ?? source

export interface SubtitleRequest {
  readonly video: string
  readonly videoId: string
  /** `--subtitles FILE`: used whatever else exists. */
  readonly subtitlesFile?: string
  /**
   * `--subtitles-dir DIR`: holds `<videoID>.srt` (Video-MME's `subtitle/` folder), or `<videoID>.json` /
   * `<videoID>_en.json` (LongVideoBench's JSON subtitles), or `<videoID>.jsonl` (Video-MME-v2's words).
   */
  readonly subtitlesDir?: string
  /** Files a question file names for the video (LongVideoBench's `subtitle_path`), first found wins; before any sidecar. */
  readonly named?: ReadonlyArray<string>
  /**
   * Where the clip starts on a JSON subtitle file's clock (LongVideoBench's
   * `starting_timestamp_for_subtitles`), in seconds; its cues are shifted back by it. Default 0.
   */
  readonly subtitleOffset?: number
  /** The probe of `video`, when the caller has it already. */
  readonly info?: MediaInfo
  /** A dry run: say `asr` where speech to text would run, without running it (no cues). */
  readonly plan?: boolean
}

/** The subtitle files a video may have, most specific first, each with the source it counts as. */
export const subtitleFiles = (
  path: Path.Path,
  request: Pick<SubtitleRequest, "video" | "videoId" | "subtitlesDir" | "named">
): ReadonlyArray<{ readonly file: string; readonly source: "questions" | "sidecar" | "dir" }> => {
  const parsed = path.parse(request.video)
  const stem = path.join(parsed.dir, parsed.name)
  const beside = [`${stem}.srt`, `${stem}.vtt`]
  // By the video id, then by the file's own name: an id that had to change (`my video` → `my-video~…`)
  // is not what a subtitles folder names its files by.
  const names = [...new Set([request.videoId, parsed.name])]
  const subtitlesDir = request.subtitlesDir
  const inDir = subtitlesDir === undefined
    ? []
    : names.flatMap((name) =>
      [".srt", ".vtt", ".json", "_en.json", ".jsonl"].map((ending) => path.join(subtitlesDir, `${name}${ending}`))
    )
  const underDir = (file: string) => {
    if (subtitlesDir === undefined) return false
    const relative = path.relative(subtitlesDir, file)
    return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
  }
  return [
    ...(request.named ?? []).map((file) => ({ file, source: underDir(file) ? "dir" as const : "questions" as const })),
    ...beside.map((file) => ({ file, source: "sidecar" as const })),
    ...inDir.map((file) => ({ file, source: "dir" as const }))
  ]
}

/** The files that count as a video's subtitle file, most specific first. */
export const sidecarCandidates = (
  path: Path.Path,
  request: Pick<SubtitleRequest, "video" | "videoId" | "subtitlesDir" | "named">
): ReadonlyArray<string> => subtitleFiles(path, request).map((candidate) => candidate.file)

/** A `.json` file is LongVideoBench's subtitle list (its times shifted back by `offset`); anything else SRT or WebVTT. */
const readSubtitleFile = Effect.fn("Subtitles.readFile")(function*(
  file: string,
  json: { readonly offset: number; readonly videoDuration: Effect.Effect<number, MediaError> }
) {
  // Subtitle files come in older encodings too: bytes that are not UTF-8 become U+FFFD, not an error.
  const text = yield* readUserText(file, userFileCaps.subtitles).pipe(
    Effect.mapError((error) => new SubtitleError({ reason: "Unreadable", path: file, message: error.message }))
  )
  // Video-MME-v2's word-level `<video_id>.jsonl`, grouped into cues.
  if (file.toLowerCase().endsWith(".jsonl")) {
    return yield* Either.match(wordCues(file, text), { onLeft: Effect.fail, onRight: Effect.succeed })
  }
  if (!file.toLowerCase().endsWith(".json")) return yield* parseSubtitles(text.replace(/^\uFEFF/, ""), { path: file })
  const value = yield* Either.match(parseUserJson(file, text), {
    onLeft: (error) => Effect.fail(new SubtitleError({ reason: "Syntax", path: file, message: error.message })),
    onRight: Effect.succeed
  })
  const videoDuration = yield* json.videoDuration
  return yield* Either.match(parseLongVideoBenchSubtitles(file, value, { offset: json.offset, videoDuration }), {
    onLeft: Effect.fail,
    onRight: Effect.succeed
  })
})

/**
 * The cues for one video, from the first source that applies: `--subtitles FILE`, a file the question
 * file names, a sidecar (`<video>.srt|.vtt`, then `<subtitles-dir>/<videoID>.srt|.vtt|.json|_en.json`), the first embedded text subtitle
 * stream, speech-to-text when a SpeechToText service is provided, else none. A malformed file fails
 * (file and line) rather than falling through: the user put it there to be used. An embedded stream
 * that cannot be read as text (pictures) is skipped with a warning.
 */
export const resolveSubtitles = Effect.fn("Subtitles.resolve")(function*(request: SubtitleRequest) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const media = yield* MediaProbe
  const json = {
    offset: request.subtitleOffset ?? 0,
    videoDuration: request.info === undefined
      ? Effect.map(media.probe(request.video), (info) => info.durationSeconds)
      : Effect.succeed(request.info.durationSeconds)
  }

  if (request.subtitlesFile !== undefined) {
    const cues = yield* readSubtitleFile(request.subtitlesFile, json)
    return { source: "file", from: request.subtitlesFile, cues } satisfies ResolvedSubtitles
  }
  for (const candidate of subtitleFiles(path, request)) {
    if (yield* fs.exists(candidate.file).pipe(Effect.orElseSucceed(() => false))) {
      const cues = yield* readSubtitleFile(candidate.file, json)
      return { source: candidate.source, from: candidate.file, cues } satisfies ResolvedSubtitles
    }
  }
  const info = request.info ?? (yield* media.probe(request.video))
  for (const stream of info.streams.filter((candidate) => candidate.kind === "subtitle")) {
    const embedded = yield* Effect.either(media.subtitleStream(request.video, stream.index))
    if (embedded._tag === "Right") {
      return {
        source: "embedded",
        from: `${request.video}#${stream.index}`,
        cues: embedded.right
      } satisfies ResolvedSubtitles
    }
    yield* Effect.logWarning(embedded.left.message)
  }
  const speech = yield* Effect.serviceOption(SpeechToText)
  if (Option.isSome(speech) && info.streams.some((stream) => stream.kind === "audio")) {
    if (request.plan === true) return { source: "asr", cues: [] } satisfies ResolvedSubtitles
    const cues = yield* transcribeVideo(request.video, info.durationSeconds).pipe(
      Effect.provideService(SpeechToText, speech.value)
    )
    return { source: "asr", cues } satisfies ResolvedSubtitles
  }
  return { source: "none", cues: [] } satisfies ResolvedSubtitles
})

/**
 * The most subtitle text a node of `seconds` keeps: 40 characters a second is twice a fast speaker's
 * rate (room for two languages on screen), plus a floor for a frame's instant. A file of thousands of
 * cues all on screen at once would otherwise copy them into every node (a 1-minute video, 20,000
 * overlapping cues: a 33 MB tree.json).
 */
export const subtitleCharBudget = (seconds: number): number => 400 + Math.ceil(40 * Math.max(0, seconds))

/**
 * The most subtitle text a model call over `seconds` of video is sent, its cue lines' time labels
 * included: twice the node budget, so a real track — even two languages at a fast speaker's rate — is
 * sent whole (and its checkpoint keys stay what they were), while 20,000 cues on screen at once are not
 * sent 20,000 times over.
 */
export const subtitleCallChars = (seconds: number): number => 2 * subtitleCharBudget(seconds)

/**
 * The text of every cue overlapping `[start, end]`, in time order, a repeated line (roll-up captions)
 * kept once, cut with "…" at the range's `subtitleCharBudget`. A zero-length range (a frame's instant)
 * takes the cues on screen at that instant.
 */
export const subtitleFor = (cues: ReadonlyArray<SubtitleCue>, range: readonly [number, number]): string => {
  const [start, end] = range
  const budget = subtitleCharBudget(end - start)
  const seen = new Set<string>()
  let text = ""
  for (const cue of cues) {
    const overlaps = start === end ? cue.start <= start && start < cue.end : cue.start < end && cue.end > start
    if (!overlaps || seen.has(cue.text)) continue
    seen.add(cue.text)
    text = text === "" ? cue.text : `${text} ${cue.text}`
    if (text.length > budget) return `${text.slice(0, budget).trimEnd()}…`
  }
  return text
}
