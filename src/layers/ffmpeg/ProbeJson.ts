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
  start_time: Schema.optional(NumericString),
  duration: Schema.optional(NumericString),
  avg_frame_rate: Schema.optional(Schema.String),
  r_frame_rate: Schema.optional(Schema.String),
  tags: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  disposition: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number }))
})

const ProbeFormat = Schema.Struct({
  format_name: Schema.optional(Schema.String),
  start_time: Schema.optional(NumericString),
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

// MP4 (its movie header counts an edit list's empty start) and Matroska (its segment duration is the last
// timestamp) report the end of the file's timeline as the container's duration; other demuxers (MPEG-TS)
// compute it from the timestamps, as a length.
const containerCountsFromZero = /\b(mov|mp4|matroska|webm)\b/

const positive = (value: number | undefined): number | undefined =>
  value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined

const sinceStart = (end: number | undefined, start: number | undefined): number | undefined =>
  end === undefined ? undefined : positive(end - Math.max(0, start ?? 0)) ?? end

/**
 * The video's length in seconds. A clip whose timestamps start late (an edit list, `-output_ts_offset`,
 * a cut from a broadcast) is as long as its frames run, not as far as its last timestamp: the first
 * video stream's own duration, else Matroska's DURATION tag less the stream's start, else the
 * container's duration (less its start where the container counts from 0). An audio track that runs
 * past the picture does not stretch it.
 */
const lengthOf = (probe: ProbeJson, video: ProbeJson["streams"][number] | undefined): number => {
  const stream = positive(video?.duration)
  if (stream !== undefined) return stream
  const tagged = sinceStart(tagSeconds(video?.tags?.["DURATION"]), video?.start_time)
  if (tagged !== undefined) return tagged
  const format = probe.format
  const end = positive(format?.duration)
  return (containerCountsFromZero.test(format?.format_name ?? "") ? sinceStart(end, format?.start_time) : end) ?? 0
}

/** MediaInfo from ffprobe's JSON; the duration is the video's length (see `lengthOf`). */
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
      const frameRate = frameRateOf(video?.avg_frame_rate) ?? frameRateOf(video?.r_frame_rate)
      return {
        path,
        sizeBytes,
        durationSeconds: lengthOf(probe, video),
        width: video?.width,
        height: video?.height,
        ...(frameRate === undefined ? {} : { frameRate }),
        streams
      }
    }
  )
