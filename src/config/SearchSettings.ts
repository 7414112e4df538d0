import { Config, ConfigError, Context, Duration, Effect, Either, Layer, Option, type Redacted } from "effect"
import type { Capability } from "../domain/Search.js"
import { type Cidr, parseAllowRanges, type UrlPolicy } from "../domain/UrlSafety.js"
import type { ConfigurationError } from "./ConfigurationError.js"
import { flag, load, parsed, positive, positiveWhole, secret, text, url, wholeNumber } from "./ConfigVariables.js"

/** Everything the Search Hub is allowed to do and how; read once, at the edge. */
export interface SearchSettingsShape {
  readonly enabled: boolean
  readonly searxng: { readonly enabled: boolean; readonly baseUrl: string | null }
  readonly github: {
    readonly enabled: boolean
    readonly baseUrl: string
    readonly token: Option.Option<Redacted.Redacted<string>>
  }
  readonly reader: { readonly enabled: boolean }
  readonly policy: UrlPolicy
  /** One provider call or one page, redirects included. */
  readonly providerTimeout: Duration.Duration
  /** One whole hub request, as a tool call sees it. */
  readonly requestTimeout: Duration.Duration
  readonly maxBodyBytes: number
  readonly maxRedirects: number
  /** The result cache every session of one process shares; a TTL of 0 switches it off. */
  readonly cache: { readonly ttl: Duration.Duration; readonly maxEntries: number }
  /** Requests a minute each provider is sent, across every session of the process. */
  readonly rateLimits: Readonly<Record<SearchProviderName, number>>
  /** A provider failing `failures` times in a row is not called for `cooldown`, then probed once. */
  readonly breaker: { readonly failures: number; readonly cooldown: Duration.Duration }
}

/** The providers behind the capabilities; each has its own rate limit and circuit breaker. */
export type SearchProviderName = "searxng" | "github" | "reader"

export const defaultGuards = {
  cache: { ttl: Duration.minutes(10), maxEntries: 1000 },
  rateLimits: { searxng: 60, github: 10, reader: 120 },
  breaker: { failures: 5, cooldown: Duration.seconds(30) }
} as const

/** GitHub's search API allows 30 requests a minute with a token and 10 without. */
const githubRate = (hasToken: boolean) => (hasToken ? 30 : defaultGuards.rateLimits.github)

export const defaultLimits = {
  providerTimeout: Duration.seconds(10),
  requestTimeout: Duration.seconds(12),
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5
} as const

/** Whether a capability may run: the master flag and its provider's flag both on. */
export const capabilityEnabled = (settings: SearchSettingsShape, capability: Capability): boolean => {
  if (!settings.enabled) return false
  switch (capability) {
    case "search.web":
    case "search.news":
      return settings.searxng.enabled && settings.searxng.baseUrl !== null
    case "search.code":
      return settings.github.enabled
    case "search.read":
      return settings.reader.enabled
  }
}

export const anyCapabilityEnabled = (settings: SearchSettingsShape): boolean =>
  (["search.web", "search.code", "search.read"] as const).some((capability) => capabilityEnabled(settings, capability))

const githubApi = "https://api.github.com"

const nonNegative = (raw: string) => {
  const value = Number(raw)
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

const allowRanges = text("VTREE_SEARCH_ALLOW_RANGES").pipe(Config.mapOrFail(Option.match({
  onNone: () => Either.right<ReadonlyArray<Cidr>>([]),
  onSome: (raw) => {
    const parsed = parseAllowRanges(raw.split(","))
    return "error" in parsed
      ? Either.left(ConfigError.InvalidData(
        ["VTREE_SEARCH_ALLOW_RANGES"],
        `VTREE_SEARCH_ALLOW_RANGES: ${parsed.error} — fix the comma-separated list or unset it`
      ))
      : Either.right<ReadonlyArray<Cidr>>(parsed.ranges)
  }
})))

const searchSettings = Effect.gen(function*() {
  const enabled = yield* flag("VTREE_SEARCH_ENABLED")
  const searxngEnabled = yield* flag("VTREE_SEARCH_SEARXNG_ENABLED")
  const githubEnabled = yield* flag("VTREE_SEARCH_GITHUB_ENABLED")
  const readerEnabled = yield* flag("VTREE_SEARCH_READER_ENABLED")
  // Disabled capabilities read nothing further: no URL to validate and, above all, no secret.
  const searxngUrl = enabled && searxngEnabled ? yield* url("VTREE_SEARCH_SEARXNG_URL") : Option.none<string>()
  if (enabled && searxngEnabled && Option.isNone(searxngUrl)) {
    return yield* Effect.fail(ConfigError.MissingData(
      ["VTREE_SEARCH_SEARXNG_URL"],
      "VTREE_SEARCH_SEARXNG_URL is unset but SearXNG search is on — set it to the instance's base URL or turn VTREE_SEARCH_SEARXNG_ENABLED off"
    ))
  }
  const githubOn = enabled && githubEnabled
  const githubUrl = githubOn ? Option.getOrElse(yield* url("VTREE_SEARCH_GITHUB_URL"), () => githubApi) : githubApi
  const token = githubOn ? yield* secret("VTREE_SEARCH_GITHUB_TOKEN") : Option.none()
  const ranges = enabled && readerEnabled ? yield* allowRanges : []
  const cacheTtl = yield* parsed(
    "VTREE_SEARCH_CACHE_TTL",
    "seconds (0 switches the cache off)",
    nonNegative,
    Duration.toSeconds(defaultGuards.cache.ttl)
  )
  const cacheEntries = yield* wholeNumber("VTREE_SEARCH_CACHE_ENTRIES", defaultGuards.cache.maxEntries)
  const perMinute = (name: string, fallback: number) =>
    parsed(name, "a whole number of requests a minute", positiveWhole, fallback)
  const rateLimits = {
    searxng: yield* perMinute("VTREE_SEARCH_SEARXNG_RATE", defaultGuards.rateLimits.searxng),
    github: yield* perMinute("VTREE_SEARCH_GITHUB_RATE", githubRate(Option.isSome(token))),
    reader: yield* perMinute("VTREE_SEARCH_READER_RATE", defaultGuards.rateLimits.reader)
  }
  const breakerFailures = yield* wholeNumber("VTREE_SEARCH_BREAKER_FAILURES", defaultGuards.breaker.failures)
  const breakerCooldown = yield* parsed(
    "VTREE_SEARCH_BREAKER_COOLDOWN",
    "a positive number of seconds",
    positive,
    Duration.toSeconds(defaultGuards.breaker.cooldown)
  )
  return {
    enabled,
    searxng: { enabled: searxngEnabled, baseUrl: Option.getOrNull(searxngUrl) },
    github: { enabled: githubEnabled, baseUrl: githubUrl, token },
    reader: { enabled: readerEnabled },
    policy: { allowRanges: ranges },
    ...defaultLimits,
    cache: { ttl: Duration.seconds(cacheTtl), maxEntries: cacheEntries },
    rateLimits,
    breaker: { failures: breakerFailures, cooldown: Duration.seconds(breakerCooldown) }
  } satisfies SearchSettingsShape
})

/** Reads VTREE_SEARCH_*: everything off unless switched on; an error names the variable and the fix. */
export const loadSearchSettings: Effect.Effect<SearchSettingsShape, ConfigurationError> = load(searchSettings)

export class SearchSettings extends Context.Tag("vtree/SearchSettings")<SearchSettings, SearchSettingsShape>() {
  /** From the VTREE_SEARCH_* environment; everything off unless switched on. */
  static readonly fromEnv: Layer.Layer<SearchSettings, ConfigurationError> = Layer.effect(
    SearchSettings,
    loadSearchSettings
  )

  /** Settings for embedding and tests: all off, default limits, then the given overrides. */
  static readonly make = (overrides: Partial<SearchSettingsShape> = {}): SearchSettingsShape => ({
    enabled: false,
    searxng: { enabled: false, baseUrl: null },
    github: { enabled: false, baseUrl: githubApi, token: Option.none() },
    reader: { enabled: false },
    policy: { allowRanges: [] },
    ...defaultLimits,
    ...defaultGuards,
    ...overrides
  })
}
