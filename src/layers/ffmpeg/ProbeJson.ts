import { Either, ParseResult, Schema } from "effect"
import type { MediaInfo, MediaStream } from "../../domain/Media.js"

// ffprobe prints numbers that may be fractional as strings ("18.000000"), and leaves fields out
// when the container does not know them; only what the builder reads is declared.
const NumericString = Schema.NumberFromString

const ProbeStream = Schema.Struct({
  index: Schema.Number,
  codec_type: Schema.optional(Schema.String),
  codec_name: Schema.optional(Schema.String),
  width: Schema.optional(Schema.Number),
  height: Schema.optional(Schema.Number),
  duration: Schema.optional(NumericString),
  avg_frame_rate: Schema.optional(Schema.String),
  r_frame_rate: Schema.optional(Schema.String),
  tags: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  disposition: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number }))
})

const ProbeFormat = Schema.Struct({
  format_name: Schema.optional(Schema.String),
  duration: Schema.optional(NumericString),
  size: Schema.optional(NumericString)
})

/** `ffprobe -print_format json -show_format -show_streams`, as far as vtree reads it. */
export const ProbeJson = Schema.Struct({
  streams: Schema.optionalWith(Schema.Array(ProbeStream), { default: () => [] }),
  format: Schema.optional(ProbeFormat)
})
export type ProbeJson = typeof ProbeJson.Type

const decodeProbe = Schema.decodeUnknownEither(Schema.parseJson(ProbeJson))

// Matroska keeps a stream's length in a DURATION tag ("00:01:01.500000000") instead of the field.
const tagSeconds = (value: string | undefined): number | undefined => {
  const match = value === undefined ? null : /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value.trim())
  return match === null ? undefined : Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])
}

/** `"30000/1001"` → 29.97; `"0/0"` (unknown) and anything else → undefined. */
export const frameRateOf = (value: string | undefined): number | undefined => {
  const match = value === undefined ? null : /^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(value.trim())
  if (match === null) return undefined
  const rate = Number(match[1]) / (match[2] === undefined ? 1 : Number(match[2]))
  return Number.isFinite(rate) && rate > 0 ? rate : undefined
}

const kindOf = (codecType: string | undefined): MediaStream["kind"] =>
  codecType === "video" || codecType === "audio" || codecType === "subtitle" ? codecType : "other"

const toStream = (stream: ProbeJson["streams"][number]): MediaStream => {
  const language = stream.tags?.["language"]
  // A cover picture is a "video" stream of one frame; it must not pass for the video.
  const kind = stream.disposition?.["attached_pic"] === 1 ? "other" : kindOf(stream.codec_type)
  return {
    index: stream.index,
    kind,
    codec: stream.codec_name ?? "unknown",
    ...(language === undefined || language === "und" ? {} : { language })
  }
}

/**
 * MediaInfo from ffprobe's JSON. The duration is the first video stream's when the container records
 * one (an audio track that runs past the picture should not stretch the grid), else the container's.
 */
export const parseProbe = (
  json: string,
  path: string,
  sizeBytes: number
): Either.Either<MediaInfo, string> =>
  Either.map(
    Either.mapLeft(decodeProbe(json), (error) => ParseResult.TreeFormatter.formatErrorSync(error)),
    (probe) => {
      const streams = probe.streams.map(toStream)
      const video = probe.streams.find((stream, i) => streams[i]?.kind === "video")
      const durationSeconds = video?.duration ?? tagSeconds(video?.tags?.["DURATION"]) ?? probe.format?.duration ?? 0
      const frameRate = frameRateOf(video?.avg_frame_rate) ?? frameRateOf(video?.r_frame_rate)
      return {
        path,
        sizeBytes,
        durationSeconds,
        width: video?.width,
        height: video?.height,
        ...(frameRate === undefined ? {} : { frameRate }),
        streams
      }
    }
  )
