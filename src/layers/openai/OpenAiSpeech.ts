import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { toFile } from "openai"
import type { AsrConfig } from "../../config/AsrConfig.js"
import type { EndpointConfig } from "../../config/ProviderConfig.js"
import type { SubtitleCue } from "../../domain/Media.js"
import { ProviderError } from "../../domain/ProviderError.js"
import { SpeechToText } from "../../services/SpeechToText.js"
import { makeReplicaSet } from "./EndpointPool.js"
import { makeRoute, sdkRequest, sendReported } from "./OpenAiClient.js"

const provider = "asr"

/**
 * The part of a `verbose_json` transcription vtree reads; servers add fields freely. Diarizing servers
 * label each segment with its `speaker` (OpenAI's diarized_json "A", whisperX-style "SPEAKER_00", or a
 * number; null when a server has none for a segment).
 */
const VerboseTranscription = Schema.Struct({
  text: Schema.optionalWith(Schema.String, { default: () => "" }),
  duration: Schema.optional(Schema.Number),
  segments: Schema.optional(
    Schema.Array(Schema.Struct({
      start: Schema.Number,
      end: Schema.Number,
      text: Schema.String,
      speaker: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number)))
    }))
  )
})

const speakerOf = (label: string | number | null | undefined): string | undefined => {
  const text = label === null || label === undefined ? "" : String(label).trim()
  return text === "" ? undefined : text
}
const decodeTranscription = Schema.decodeUnknownEither(VerboseTranscription)

/**
 * Cues from a verbose_json reply. A server that returns text without segments gets one cue over the
 * whole chunk: the words are worth keeping even when their times are coarse.
 */
export const cuesOfReply = (reply: unknown): Either.Either<ReadonlyArray<SubtitleCue>, string> =>
  Either.map(
    Either.mapLeft(decodeTranscription(reply), (error) => ParseResult.TreeFormatter.formatErrorSync(error)),
    (body) => {
      if (body.segments !== undefined) {
        return body.segments
          .map((segment): SubtitleCue => {
            const speaker = speakerOf(segment.speaker)
            return {
              start: segment.start,
              end: segment.end,
              text: segment.text.trim(),
              ...(speaker === undefined ? {} : { speaker })
            }
          })
          .filter((cue) => cue.text !== "")
      }
      const text = body.text.trim()
      return text === "" ? [] : [{ start: 0, end: body.duration ?? 0, text }]
    }
  )

const badRequest = (message: string) =>
  new ProviderError({ provider, reason: "BadRequest", message: `${provider}: ${message}` })

/**
 * SpeechToText over the openai SDK's `audio.transcriptions.create`, on the call path chat and embeddings
 * share (`sendReported`): the reliability policy, and one call-log entry per transcription (role `asr`).
 */
export const make = Effect.fn("OpenAiSpeech.make")(function*(config: AsrConfig) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const endpoint: EndpointConfig = {
    provider,
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model,
    timeout: config.timeout
  }
  const route = makeRoute(endpoint, config.reliability, yield* makeReplicaSet(config.reliability.concurrency))

  const transcribe = Effect.fn("OpenAiSpeech.transcribe")(function*(audioPath: string) {
    const bytes = yield* fs.readFile(audioPath).pipe(
      Effect.mapError(() => badRequest(`cannot read ${audioPath} — the audio chunk was not written`))
    )
    if (bytes.length > config.maxUploadBytes) {
      return yield* badRequest(
        `${audioPath} is ${bytes.length} bytes, over the ${config.maxUploadBytes}-byte upload limit — lower the chunk size or raise VTREE_ASR_MAX_UPLOAD_BYTES`
      )
    }
    const name = path.basename(audioPath)
    // Decoding is part of the call: a reply that is not verbose_json is logged as a failed call.
    return yield* sendReported(
      route,
      "asr",
      (client) =>
        sdkRequest(endpoint, async (signal) =>
          client.audio.transcriptions.create(
            {
              file: await toFile(bytes, name),
              model: config.model,
              response_format: "verbose_json",
              timestamp_granularities: ["segment"],
              ...Option.match(config.language, { onNone: () => ({}), onSome: (language) => ({ language }) })
            },
            { signal }
          )).pipe(
            Effect.flatMap((reply) =>
              Either.mapLeft(cuesOfReply(reply), (problem) =>
                new ProviderError({
                  provider,
                  reason: "BadResponse",
                  message: `${provider}: the transcription reply is not verbose_json (${problem.split("\n")[0]})`
                }))
            )
          ),
      // Transcription endpoints report no token usage.
      () => ({ promptTokens: 0, completionTokens: 0 })
    )
  })

  return SpeechToText.of({ model: config.model, maxUploadBytes: config.maxUploadBytes, transcribe })
})

/** Speech to text over the endpoint `config` names (VTREE_ASR_* when the CLI builds it). */
export const layer = (config: AsrConfig): Layer.Layer<SpeechToText, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(SpeechToText, make(config))
