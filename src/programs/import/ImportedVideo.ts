/**
 * What every caption layout is read into before it becomes a tree: per video, captions with their
 * source times, an optional transcript and entity registry. Also the checks every layout shares, each
 * naming the file and the key of the bad value.
 */
import { Either, Schema } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import { idFromName } from "../../domain/NameId.js"
import type { TreeEntity } from "../../domain/Tree.js"
import { importLimits } from "./ImportLimits.js"

/** The layouts `vtree tree import` reads. */
export const importFormats = [
  "llovi",
  "videoagent",
  "videoagent-memory",
  "dvd",
  "videorag",
  "jsonl",
  "longvidsearch"
] as const
export const ImportFormat = Schema.Literal(...importFormats)
export type ImportFormat = typeof ImportFormat.Type

export interface ImportedCaption {
  /** Seconds from the start of the video. */
  readonly start: number
  readonly end: number
  readonly text: string
  /** The clip's own index, where the source numbers its clips (LongVidSearch): the L3 node's id ends with it. */
  readonly clip?: number
}

export interface ImportedVideo {
  /** The tree folder's name (the source id through the one name → id rule). */
  readonly videoId: string
  /** The id as the source file spells it (questions name videos this way). */
  readonly sourceId: string
  /** The file the captions came from. */
  readonly file: string
  /** Sorted by start, then end. */
  readonly captions: ReadonlyArray<ImportedCaption>
  readonly transcript: ReadonlyArray<SubtitleCue>
  readonly entities: ReadonlyArray<TreeEntity>
  /** The video's length when the source states it; otherwise the end of the last caption. */
  readonly durationSeconds?: number
}

export const TreeImportErrorReason = Schema.Literal(
  // the content matches none of the known layouts (or not the one --from forced)
  "UnknownFormat",
  // a caption, time, id or registry entry that cannot be used
  "BadInput",
  // a flag out of range, or one the layout needs that is missing (--fps)
  "BadOption",
  // the tool model failed after its retries; finished cards are checkpointed, so a rerun resumes
  "ProviderFailed",
  // a tree folder holding a tree vtree build made: replaced only with --force
  "Refused"
)
export type TreeImportErrorReason = typeof TreeImportErrorReason.Type

/** Why an import stopped; `message` is one line naming the file, the key and the fix. */
export class TreeImportError extends Schema.TaggedError<TreeImportError>()("TreeImportError", {
  reason: TreeImportErrorReason,
  message: Schema.String
}) {}

/** What a layout's reader gives for one file: its videos, or the first problem. */
export type VideosRead = Either.Either<Array<ImportedVideo>, TreeImportError>

/** `file: key: problem — fix` as a BadInput failure. */
export const badInput = (file: string, key: string, problem: string, fix = "fix the file") =>
  new TreeImportError({ reason: "BadInput", message: `${file}: ${key === "" ? "" : `${key}: `}${problem} — ${fix}` })

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** A time past the bound: a caption or length of 1e305 s would turn into null in tree.json. */
export const tooLate = (file: string, key: string, value: number) =>
  badInput(
    file,
    key,
    `${value} s is past the end of any video (at most ${importLimits.maxSeconds} s)`,
    "fix the time, or give frame-numbered keys their real --fps"
  )

/** A time in seconds: a finite number ≥ 0 (JSON.parse reads 1e999 as Infinity), within the bound. */
export const seconds = (file: string, key: string, value: unknown): Either.Either<number, TreeImportError> =>
  typeof value === "number" && Number.isFinite(value) && value >= 0
    ? value > importLimits.maxSeconds ? Either.left(tooLate(file, key, value)) : Either.right(value)
    : Either.left(badInput(file, key, `expected a finite number of seconds ≥ 0, found ${shown(value)}`))

/**
 * A caption's text: a non-empty string, or a list of strings (joined with a space). Blank text is
 * refused rather than kept as an empty node the agent would read as "nothing happened".
 */
export const captionText = (file: string, key: string, value: unknown): Either.Either<string, TreeImportError> => {
  const parts = typeof value === "string"
    ? [value]
    : Array.isArray(value) && value.every((item) => typeof item === "string")
    ? value as ReadonlyArray<string>
    : undefined
  if (parts === undefined) return Either.left(badInput(file, key, `expected caption text, found ${shown(value)}`))
  // Counted before the join: 200 MB of text would end in "Invalid string length" after minutes.
  const length = parts.reduce((total, part) => total + part.length, parts.length - 1)
  if (length > importLimits.captionChars) {
    return Either.left(
      badInput(
        file,
        key,
        `caption text of ${length} characters, more than the ${importLimits.captionChars} one caption may hold`,
        "split it into captions of their own times"
      )
    )
  }
  const trimmed = parts.join(" ").replace(/\s+/g, " ").trim()
  return trimmed === ""
    ? Either.left(badInput(file, key, "empty caption text", "remove the entry or give it text"))
    : Either.right(trimmed)
}

/** A caption from already-read times and text, refused when it ends before it starts or past the time bound. */
export const caption = (
  file: string,
  key: string,
  start: number,
  end: number,
  text: string
): Either.Either<ImportedCaption, TreeImportError> =>
  !(Number.isFinite(end) && end <= importLimits.maxSeconds)
    ? Either.left(tooLate(file, key, end))
    : end < start
    ? Either.left(badInput(file, key, `ends at ${end} s, before it starts at ${start} s`))
    : Either.right({ start, end, text })

/** `"12"`, `"12.5"`: a key that is a number of seconds or frames. */
export const numericKey = (key: string): number | undefined => {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(key)) return undefined
  const value = Number(key)
  return Number.isFinite(value) ? value : undefined
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A video entry, its id made a folder name; refused when the id has no letter or digit. */
export const importedVideo = (
  file: string,
  key: string,
  sourceId: string,
  captions: ReadonlyArray<ImportedCaption>,
  extra: Partial<Pick<ImportedVideo, "transcript" | "entities" | "durationSeconds">> = {}
): Either.Either<ImportedVideo, TreeImportError> => {
  const named = idFromName(sourceId)
  if ("problem" in named) {
    return Either.left(badInput(file, key, `video id ${shown(sourceId)} ${named.problem}`))
  }
  if (captions.length === 0) {
    return Either.left(badInput(file, key, "no captions for this video", "remove the video or give it captions"))
  }
  const sorted = [...captions].sort((a, b) => a.start - b.start || a.end - b.end)
  return Either.right({
    videoId: named.id,
    sourceId,
    file,
    captions: sorted,
    transcript: extra.transcript ?? [],
    entities: extra.entities ?? [],
    ...(extra.durationSeconds === undefined ? {} : { durationSeconds: extra.durationSeconds })
  })
}
