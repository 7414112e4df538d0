import { Schema } from "effect"

/** Missing: a needed variable is unset; Invalid: a value cannot be used; Unreadable: the environment itself failed. */
export const ConfigurationErrorReason = Schema.Literal("Missing", "Invalid", "Unreadable")
export type ConfigurationErrorReason = typeof ConfigurationErrorReason.Type

/** A configuration problem a person fixes by setting `variable`; the message says how, in one line. */
export class ConfigurationError extends Schema.TaggedError<ConfigurationError>()("ConfigurationError", {
  reason: ConfigurationErrorReason,
  variable: Schema.String,
  message: Schema.String
}) {}
