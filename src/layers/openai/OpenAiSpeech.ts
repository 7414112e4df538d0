import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Duration, Effect, Either, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import OpenAI, { toFile } from "openai"
import type { AsrConfig } from "../../config/AsrConfig.js"
import { loadAsrConfig } from "../../config/AsrConfig.js"
import { ConfigurationError } from "../../config/ProviderConfig.js"
import type { SubtitleCue } from "../../domain/Media.js"
import { ProviderError } from "../../domain/ProviderError.js"
import { withPolicy } from "../shared/Reliability.js"
import { SpeechToText } from "../../services/SpeechToText.js"
import { toProviderError } from "./OpenAiErrors.js"

const provider = "asr"

/** The part of a `verbose_json` transcription vtree reads; servers add fields freely. */
const VerboseTranscription = Schema.Struct({
  text: Schema.optionalWith(Schema.String, { default: () => "" }),
  duration: Schema.optional(Schema.Number),
  segments: Schema.optional(Schema.Array(Schema.Struct({ start: Schema.Number, end: Schema.Number, text: Schema.String })))
})
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
          .map((segment) => ({ start: segment.start, end: segment.end, text: segment.text.trim() }))
          .filter((cue) => cue.text !== "")
      }
      const text = body.text.trim()
      return text === "" ? [] : [{ start: 0, end: body.duration ?? 0, text }]
    }
  )

const badRequest = (message: string) =>
  new ProviderError({ provider, reason: "BadRequest", message: `${provider}: ${message}` })

/** SpeechToText over the openai SDK's `audio.transcriptions.create`, under the shared reliability policy. */
export const make = Effect.fn("OpenAiSpeech.make")(function*(config: AsrConfig) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const client = new OpenAI({
    baseURL: config.baseUrl,
    // The SDK insists on a key; self-hosted Whisper servers accept any, so a placeholder stands in.
    apiKey: Option.match(config.apiKey, { onNone: () => "no-key", onSome: Redacted.value }),
    // Retries and timeouts are the policy's; the SDK's own timeout sits past ours.
    maxRetries: 0,
    timeout: Duration.toMillis(config.timeout) + 5_000
  })
  const policy = {
    provider,
    semaphore: yield* Effect.makeSemaphore(config.reliability.concurrency),
    timeout: config.timeout,
    retries: config.reliability.retries
  }
  const toError = toProviderError(provider, config.apiKey)

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
    const reply = yield* Effect.tryPromise({
      try: async (signal) =>
        client.audio.transcriptions.create(
          {
            file: await toFile(bytes, name),
            model: config.model,
            response_format: "verbose_json",
            timestamp_granularities: ["segment"],
            ...Option.match(config.language, { onNone: () => ({}), onSome: (language) => ({ language }) })
          },
          { signal }
        ),
      catch: toError
    }).pipe(withPolicy(policy))
    return yield* Either.match(cuesOfReply(reply), {
      onLeft: (problem) =>
        Effect.fail(
          new ProviderError({ provider, reason: "BadResponse", message: `${provider}: the transcription reply is not verbose_json (${problem.split("\n")[0]})` })
        ),
      onRight: Effect.succeed
    })
  })

  return SpeechToText.of({ model: config.model, maxUploadBytes: config.maxUploadBytes, transcribe })
})

export const layerConfig = (config: AsrConfig): Layer.Layer<SpeechToText, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(SpeechToText, make(config))

/** Reads VTREE_ASR_*; fails naming the variable to set when speech-to-text is not configured. */
export const layer: Layer.Layer<SpeechToText, ConfigurationError, FileSystem.FileSystem | Path.Path> = Layer.effect(
  SpeechToText,
  Effect.flatMap(loadAsrConfig, (config) =>
    Option.match(config, {
      onNone: () =>
        Effect.fail(
          new ConfigurationError({
            reason: "Missing",
            variable: "VTREE_ASR_MODEL",
            message: "speech-to-text is not configured: set VTREE_ASR_MODEL (and VTREE_ASR_BASE_URL / VTREE_ASR_API_KEY)"
          })
        ),
      onSome: make
    }))
)
