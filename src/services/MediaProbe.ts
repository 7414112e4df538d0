import { Context, type Effect } from "effect"
import type { MediaError, MediaInfo, SubtitleCue } from "../domain/Media.js"

/**
 * Reads facts and side streams out of a media file: its duration and streams, an embedded subtitle
 * stream, a span of its audio. The live Layer runs the system ffprobe/ffmpeg; tests may swap in a fake.
 */
export class MediaProbe extends Context.Tag("vtree/MediaProbe")<
  MediaProbe,
  {
    readonly probe: (path: string) => Effect.Effect<MediaInfo, MediaError>
    /** The cues of one embedded subtitle stream (`MediaStream.index`), times in seconds. */
    readonly subtitleStream: (
      path: string,
      streamIndex: number
    ) => Effect.Effect<ReadonlyArray<SubtitleCue>, MediaError>
    /**
     * Writes `[startSeconds, startSeconds + durationSeconds)` of the first audio stream to `outFile`
     * as mono 16 kHz audio (the format speech-to-text endpoints expect).
     */
    readonly extractAudio: (options: {
      readonly path: string
      readonly outFile: string
      readonly startSeconds: number
      readonly durationSeconds: number
    }) => Effect.Effect<void, MediaError>
  }
>() {}
