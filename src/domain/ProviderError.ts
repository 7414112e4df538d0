import { Schema } from "effect"

/** Why a model call failed; callers branch on it (retry or not, what to tell the user). */
export const ProviderErrorReason = Schema.Literal(
  "RateLimited",
  "Timeout",
  "Transport",
  "Server",
  "BadRequest",
  // HTTP 404: usually the model name (or a base URL missing /v1); asking again changes nothing.
  "NotFound",
  "Auth",
  "BadResponse"
)
export type ProviderErrorReason = typeof ProviderErrorReason.Type

export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  provider: Schema.String,
  reason: ProviderErrorReason,
  status: Schema.optional(Schema.Number),
  retryAfterMs: Schema.optional(Schema.Number),
  message: Schema.String
}) {}

const retryableReasons: ReadonlySet<ProviderErrorReason> = new Set(["RateLimited", "Timeout", "Transport", "Server"])

/** Transient failures are worth another attempt; the rest would fail the same way again. */
export const isRetryable = (error: ProviderError): boolean => retryableReasons.has(error.reason)
