import { Config, ConfigError, type Duration, Effect, Option, type Redacted } from "effect"
import type { ConfigurationError } from "./ConfigurationError.js"
import { load, parsed, positiveWhole, seconds, secret, text, url } from "./ConfigVariables.js"
import { defaultOpenAiBaseUrl, reliability, type ReliabilityConfig } from "./ProviderConfig.js"

/** An OpenAI-compatible `/audio/transcriptions` endpoint (Whisper, faster-whisper servers, vLLM). */
export interface AsrConfig {
  readonly baseUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly model: string
  /** Each attempt gets this long: a chunk of several minutes of audio takes a while to transcribe. */
  readonly timeout: Duration.Duration
  /** The largest file one request may carry; OpenAI's limit is 25 MB. */
  readonly maxUploadBytes: number
  /** ISO 639-1 hint passed to the endpoint; unset lets it detect the language. */
  readonly language: Option.Option<string>
  readonly reliability: ReliabilityConfig
}

const asr = Effect.gen(function*() {
  const variables = yield* Config.all({
    baseUrl: url("VTREE_ASR_BASE_URL"),
    apiKey: secret("VTREE_ASR_API_KEY"),
    model: text("VTREE_ASR_MODEL")
  })
  if (Option.isNone(variables.baseUrl) && Option.isNone(variables.model)) return Option.none<AsrConfig>()
  if (Option.isNone(variables.model)) {
    return yield* Effect.fail(ConfigError.MissingData(
      ["VTREE_ASR_MODEL"],
      "VTREE_ASR_BASE_URL is set but VTREE_ASR_MODEL is not: set VTREE_ASR_MODEL to the speech-to-text model, e.g. whisper-1"
    ))
  }
  return Option.some<AsrConfig>({
    baseUrl: Option.getOrElse(variables.baseUrl, () => defaultOpenAiBaseUrl),
    apiKey: variables.apiKey,
    model: variables.model.value,
    // A chunk of several minutes of audio takes a while to transcribe.
    timeout: yield* seconds("VTREE_ASR_TIMEOUT_SECONDS", 300),
    // Below 64 kB a chunk would hold under two seconds of speech.
    maxUploadBytes: yield* parsed(
      "VTREE_ASR_MAX_UPLOAD_BYTES",
      "a whole number of bytes ≥ 64000",
      (raw) => {
        const value = positiveWhole(raw)
        return value !== undefined && value >= 64_000 ? value : undefined
      },
      25 * 1000 * 1000
    ),
    language: yield* text("VTREE_ASR_LANGUAGE"),
    reliability: yield* reliability
  })
})

/**
 * Reads VTREE_ASR_*: none when neither VTREE_ASR_BASE_URL nor VTREE_ASR_MODEL is set (no
 * speech-to-text), an error naming the variable when the settings are incomplete or malformed.
 */
export const loadAsrConfig: Effect.Effect<Option.Option<AsrConfig>, ConfigurationError> = load(asr)
