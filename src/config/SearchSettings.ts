import { Config, ConfigError, Context, Duration, Effect, Either, Layer, Option, type Redacted } from "effect"
import type { Capability } from "../domain/Search.js"
import { type Cidr, parseAllowRanges, type UrlPolicy } from "../domain/UrlSafety.js"
import type { ConfigurationError } from "./ConfigurationError.js"
import { flag, load, secret, text, url } from "./ConfigVariables.js"

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
}

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
  return {
    enabled,
    searxng: { enabled: searxngEnabled, baseUrl: Option.getOrNull(searxngUrl) },
    github: { enabled: githubEnabled, baseUrl: githubUrl, token },
    reader: { enabled: readerEnabled },
    policy: { allowRanges: ranges },
    ...defaultLimits
  } satisfies SearchSettingsShape
})

/** Reads VTREE_SEARCH_*: everything off unless switched on; an error names the variable and the fix. */
export const loadSearchSettings: Effect.Effect<SearchSettingsShape, ConfigurationError> = load(searchSettings)

export class SearchSettings extends Context.Tag("vtree/SearchSettings")<SearchSettings, SearchSettingsShape>() {
  /** From the VTREE_SEARCH_* environment; everything off unless switched on. */
  static readonly layerConfig: Layer.Layer<SearchSettings, ConfigurationError> = Layer.effect(
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
    ...overrides
  })
}
