import { Schema } from "effect"

/** One timed line of speech or caption text; times in seconds from the start of the video. */
export interface SubtitleCue {
  readonly start: number
  readonly end: number
  readonly text: string
  /** Who speaks, as a diarizing speech endpoint labels it; the builder writes it into the text (`[S1] …`). */
  readonly speaker?: string
}

/** One stream of a media file, as the probe saw it. */
export interface MediaStream {
  readonly index: number
  readonly kind: "video" | "audio" | "subtitle" | "other"
  readonly codec: string
  /** ISO 639 tag from the container, when it has one. */
  readonly language?: string
}

/** What the builder needs to know about a source file before it decodes anything. */
export interface MediaInfo {
  readonly path: string
  readonly sizeBytes: number
  readonly durationSeconds: number
  readonly width: number | undefined
  readonly height: number | undefined
  /** Frames per second of the video stream, when the container states it (frame-indexed captions need it). */
  readonly frameRate?: number
  readonly streams: ReadonlyArray<MediaStream>
}

/** A frame written to disk, with the time of the source frame it was taken from. */
export interface ExtractedFrame {
  readonly timeSeconds: number
  readonly path: string
  /** The frame shrunk to 4×4 RGB pixels, base64: what scene cuts compare (absent from older frame caches). */
  readonly look?: string
}

/**
 * A stretch of a video (seconds from its first frame) where the decoder reported damaged data. Its
 * picture is `missing` when whole frame slots decoded to nothing there, `corrupt` when every slot has a
 * frame but the decoder filled in blocks it could not read (grey or smeared areas).
 */
export interface DamagedSpan {
  readonly start: number
  readonly end: number
  readonly picture: "missing" | "corrupt"
  /** The decoder's first message there, on one line, cut short, with no file path or memory address. */
  readonly decoder: string
  /** How many damage messages the decoder printed for the span. */
  readonly messages: number
}

/** Why a media operation failed; the CLI turns each into one line naming the file and the fix. */
export const MediaErrorReason = Schema.Literal(
  // ffmpeg/ffprobe is not installed (or VTREE_FFMPEG/VTREE_FFPROBE points nowhere)
  "ToolMissing",
  // the file does not exist or cannot be read
  "Unreadable",
  // a file ffprobe cannot parse as media at all
  "NotMedia",
  // media without a video stream (audio only, a subtitle file, …)
  "NoVideo",
  // zero length, or decoding stopped early
  "Truncated",
  // ffmpeg ran and failed for another reason
  "Failed"
)
export type MediaErrorReason = typeof MediaErrorReason.Type

export class MediaError extends Schema.TaggedError<MediaError>()("MediaError", {
  reason: MediaErrorReason,
  path: Schema.String,
  message: Schema.String
}) {}

/** Why a subtitle file was refused. */
export const SubtitleErrorReason = Schema.Literal(
  "Unreadable",
  // a line the WebVTT/SRT parser rejects
  "Syntax",
  // text, but not one cue the parser could place
  "NoCues"
)
export type SubtitleErrorReason = typeof SubtitleErrorReason.Type

/** A subtitle file that cannot be read or parsed; `line` is 1-based when the parser knows it. */
export class SubtitleError extends Schema.TaggedError<SubtitleError>()("SubtitleError", {
  reason: SubtitleErrorReason,
  path: Schema.String,
  line: Schema.optional(Schema.Number),
  message: Schema.String
}) {}
