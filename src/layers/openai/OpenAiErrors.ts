import { Option, Redacted } from "effect"
import OpenAI from "openai"
import { ProviderError, type ProviderErrorReason } from "../../domain/ProviderError.js"
import { redactSecret } from "../../domain/Secret.js"
import { replyOverLimit } from "../shared/BoundedFetch.js"

/**
 * HTTP status → reason, which decides whether a call is retried (domain/ProviderError.ts `isRetryable`).
 * Statuses not listed are treated by class (4xx / 5xx).
 */
export const reasonForStatus = (status: number): ProviderErrorReason => {
  if (status === 429) return "RateLimited"
  if (status === 408) return "Timeout"
  if (status === 401 || status === 403) return "Auth"
  if (status === 404) return "NotFound"
  if (status >= 500) return "Server"
  return "BadRequest"
}

/**
 * Milliseconds the server asked us to wait: `retry-after-ms` (OpenAI's precise form) wins over
 * `Retry-After`, which is either seconds or an HTTP date.
 */
export const retryAfterMs = (headers: Headers | undefined, now: number = Date.now()): number | undefined => {
  if (headers === undefined) return undefined
  const precise = headers.get("retry-after-ms")
  if (precise !== null) {
    const ms = Number(precise)
    if (Number.isFinite(ms) && ms >= 0) return ms
  }
  const header = headers.get("retry-after")
  if (header === null) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * A server may echo the Authorization header in its error text; the key must not travel on in a
 * ProviderError, so it is masked where it stands as a whole token (domain/Secret.ts) before the message is kept.
 */
export const scrubSecret = (message: string, apiKey: Option.Option<Redacted.Redacted<string>>): string =>
  Option.isNone(apiKey) ? message : redactSecret(message, Redacted.value(apiKey.value))

/** The innermost cause's message is the useful one ("connect ECONNREFUSED 127.0.0.1:8000", not "fetch failed"). */
const describe = (cause: unknown): string => {
  let current: unknown = cause
  let message = cause instanceof Error ? cause.message : String(cause)
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message !== "") message = current.message
    current = (current as { cause?: unknown }).cause
  }
  return message
}

/** Maps whatever the openai SDK (or fetch under it) threw to a ProviderError with the right reason. */
export const toProviderError = (
  provider: string,
  apiKey: Option.Option<Redacted.Redacted<string>>,
  endpoint?: { readonly model: string; readonly baseUrl: string }
) =>
(cause: unknown): ProviderError => {
  const make = (
    reason: ProviderErrorReason,
    message: string,
    extra: { status?: number; retryAfterMs?: number } = {}
  ) => new ProviderError({ provider, reason, message: `${provider}: ${scrubSecret(message, apiKey)}`, ...extra })
  const overLimit = replyOverLimit(cause)
  if (overLimit !== undefined) return make(overLimit.limit === "size" ? "BadResponse" : "Timeout", overLimit.message)
  if (cause instanceof OpenAI.APIConnectionTimeoutError) return make("Timeout", "the request timed out")
  if (cause instanceof OpenAI.APIConnectionError) return make("Transport", `connection failed (${describe(cause)})`)
  if (cause instanceof OpenAI.APIError && typeof cause.status === "number") {
    const status = cause.status
    const reason = reasonForStatus(status)
    if (reason === "NotFound" && endpoint !== undefined) {
      return make(
        reason,
        `model "${endpoint.model}" not found at ${endpoint.baseUrl} (HTTP 404: ${cause.message}) — check the model name, and that the base URL ends in /v1`,
        { status }
      )
    }
    const wait = reason === "RateLimited" || reason === "Server" ? retryAfterMs(cause.headers) : undefined
    return make(
      reason,
      `HTTP ${status}: ${cause.message}`,
      wait === undefined ? { status } : { status, retryAfterMs: wait }
    )
  }
  // The reply started but its body was not JSON.
  if (cause instanceof SyntaxError) return make("BadResponse", `the reply is not valid JSON (${cause.message})`)
  // undici reports a body cut short ("terminated") or a failed socket as TypeError.
  if (cause instanceof TypeError) return make("Transport", `connection failed (${describe(cause)})`)
  return make("BadResponse", describe(cause))
}
