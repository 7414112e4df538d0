import { Config, ConfigError, Duration, Effect, Either, Option, Redacted } from "effect"
import { hasUrlCredentials, urlCredentialsMessage } from "../domain/Secret.js"
import { ConfigurationError } from "./ConfigurationError.js"

/**
 * Readers of VTREE_ variables, shared by every role's settings so they all read, default and fail the
 * same way. Failures are ConfigError values whose path is the variable; `load` turns them into one
 * ConfigurationError naming the variable and the fix.
 */

// Empty values count as unset: `VTREE_X= vtree …` is a common way to switch something off.
export const text = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map(Option.flatMap((value) => Option.liftPredicate(value.trim(), (trimmed) => trimmed !== "")))
  )

// The one place a key is unwrapped outside a request builder: only to see whether it is blank.
export const secret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

/** A variable read through `parse` (undefined: unusable), `fallback` when unset; a URL with credentials is refused. */
export const parsed = <A>(name: string, expected: string, parse: (raw: string) => A | undefined, fallback: A) =>
  text(name).pipe(Config.mapOrFail(Option.match({
    onNone: () => Either.right(fallback),
    onSome: (raw) => {
      if (hasUrlCredentials(raw)) return Either.left(ConfigError.InvalidData([name], urlCredentialsMessage(name)))
      const value = parse(raw)
      return value === undefined
        ? Either.left(
          ConfigError.InvalidData([name], `${name}=${JSON.stringify(raw)}: expected ${expected} — fix or unset ${name}`)
        )
        : Either.right(value)
    }
  })))

/** An http(s) URL without trailing slashes and without credentials, or undefined. */
export const httpUrl = (url: string): string | undefined => {
  try {
    const { password, protocol, username } = new URL(url)
    if (username !== "" || password !== "") return undefined
    return protocol === "http:" || protocol === "https:" ? url.replace(/\/+$/, "") : undefined
  } catch {
    return undefined
  }
}

export const anHttpUrl = "an http(s) URL such as https://api.openai.com/v1"
export const url = (name: string) =>
  parsed(name, anHttpUrl, (raw) => {
    const checked = httpUrl(raw)
    return checked === undefined ? undefined : Option.some(checked)
  }, Option.none<string>())

/** One URL, or several separated by commas (replicas of one server); none when unset. */
export const urls = (name: string) =>
  parsed(name, `${anHttpUrl}, or several separated by commas`, (raw) => {
    const checked = raw.split(",").map((part) => part.trim()).filter((part) => part !== "").map(httpUrl)
    return checked.length > 0 && checked.every((u) => u !== undefined) ? Option.some(checked) : undefined
  }, Option.none<ReadonlyArray<string>>())

export const positive = (raw: string) => {
  const value = Number(raw)
  return Number.isFinite(value) && value > 0 ? value : undefined
}
export const positiveWhole = (raw: string) => {
  const value = positive(raw)
  return value !== undefined && Number.isInteger(value) ? value : undefined
}

export const seconds = (name: string, fallback: number) =>
  parsed(name, "a positive number of seconds", positive, fallback).pipe(Config.map(Duration.seconds))
export const wholeNumber = (name: string, fallback: number) =>
  parsed(name, "a positive whole number", positiveWhole, fallback)

const yes = ["true", "yes", "on", "1"]
const no = ["false", "no", "off", "0"]
/** A switch, off when unset. */
export const flag = (name: string) =>
  parsed(
    name,
    "true or false",
    (raw) => (yes.includes(raw.toLowerCase()) ? true : no.includes(raw.toLowerCase()) ? false : undefined),
    false
  )

const firstProblem = (error: ConfigError.ConfigError): ConfigurationError => {
  switch (error._op) {
    case "And":
    case "Or":
      return firstProblem(error.left)
    case "InvalidData":
    case "MissingData": {
      const variable = error.path.at(-1) ?? "environment"
      return new ConfigurationError({
        reason: error._op === "InvalidData" ? "Invalid" : "Missing",
        variable,
        message: error.message
      })
    }
    case "SourceUnavailable":
    case "Unsupported":
      return new ConfigurationError({
        reason: "Unreadable",
        variable: error.path.at(-1) ?? "environment",
        message: `cannot read the environment: ${error.message} — check the process environment`
      })
  }
}

export const load = <A>(role: Effect.Effect<A, ConfigError.ConfigError>): Effect.Effect<A, ConfigurationError> =>
  Effect.mapError(role, firstProblem)
