import { Context, type Effect } from "effect"
import type { SubtitleCue } from "../domain/Media.js"
import type { ProviderError } from "../domain/ProviderError.js"

/**
 * Speech to timed text. The live Layer posts audio to an OpenAI-compatible `/audio/transcriptions`
 * endpoint; callers cut long audio into chunks under `maxUploadBytes` and shift each chunk's times.
 */
export class SpeechToText extends Context.Tag("vtree/SpeechToText")<
  SpeechToText,
  {
    readonly model: string
    /** The largest audio file one request may carry. */
    readonly maxUploadBytes: number
    /** Segments of one audio file, times relative to its start. */
    readonly transcribe: (audioPath: string) => Effect.Effect<ReadonlyArray<SubtitleCue>, ProviderError>
  }
>() {}
