import { Config, Duration, Effect, Option, type Redacted } from "effect"
import { ConfigurationError, defaultOpenAiBaseUrl, type ReliabilityConfig } from "./ProviderConfig.js"

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

// Empty counts as unset, as for every VTREE_ variable.
const text = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map(Option.flatMap((value) => (value.trim() === "" ? Option.none() : Option.some(value.trim()))))
  )

const numberAtLeast = (name: string, fallback: number, minimum: number, whole: boolean) =>
  Effect.flatMap(text(name), (raw) => {
    if (Option.isNone(raw)) return Effect.succeed(fallback)
    const value = Number(raw.value)
    return Number.isFinite(value) && value >= minimum && (!whole || Number.isInteger(value))
      ? Effect.succeed(value)
      : Effect.fail(
        new ConfigurationError({
          variable: name,
          message: `${name}=${JSON.stringify(raw.value)}: expected a ${whole ? "whole number" : "number"} ≥ ${minimum} — fix or unset ${name}`
        })
      )
  })

/**
 * Reads VTREE_ASR_*: none when neither VTREE_ASR_BASE_URL nor VTREE_ASR_MODEL is set (no
 * speech-to-text), an error naming the variable when the settings are incomplete or malformed.
 */
export const loadAsrConfig: Effect.Effect<Option.Option<AsrConfig>, ConfigurationError> = Effect.gen(function*() {
  const baseUrl = yield* text("VTREE_ASR_BASE_URL")
  const model = yield* text("VTREE_ASR_MODEL")
  if (Option.isNone(baseUrl) && Option.isNone(model)) return Option.none()
  if (Option.isNone(model)) {
    return yield* new ConfigurationError({
      variable: "VTREE_ASR_MODEL",
      message: "VTREE_ASR_BASE_URL is set but VTREE_ASR_MODEL is not: set VTREE_ASR_MODEL to the speech-to-text model, e.g. whisper-1"
    })
  }
  const url = Option.getOrElse(baseUrl, () => defaultOpenAiBaseUrl)
  if (!/^https?:\/\/[^/]/.test(url)) {
    return yield* new ConfigurationError({
      variable: "VTREE_ASR_BASE_URL",
      message: `VTREE_ASR_BASE_URL=${JSON.stringify(url)}: expected an http(s) URL such as https://api.openai.com/v1 — fix VTREE_ASR_BASE_URL`
    })
  }
  const apiKey = yield* Config.option(Config.redacted("VTREE_ASR_API_KEY"))
  return Option.some({
    baseUrl: url.replace(/\/+$/, ""),
    apiKey,
    model: model.value,
    timeout: Duration.seconds(yield* numberAtLeast("VTREE_ASR_TIMEOUT_SECONDS", 300, 1, false)),
    // Below 64 kB a chunk would hold under two seconds of speech.
    maxUploadBytes: yield* numberAtLeast("VTREE_ASR_MAX_UPLOAD_BYTES", 25 * 1000 * 1000, 64_000, true),
    language: yield* text("VTREE_ASR_LANGUAGE"),
    reliability: {
      concurrency: yield* numberAtLeast("VTREE_PROVIDER_CONCURRENCY", 16, 1, true),
      retries: yield* numberAtLeast("VTREE_PROVIDER_RETRIES", 4, 0, true)
    }
  })
}).pipe(
  Effect.catchTag("ConfigError", (error) =>
    Effect.fail(new ConfigurationError({ variable: "environment", message: `cannot read the environment: ${String(error)}` })))
)
