import { Config, ConfigError, Context, Duration, Effect, Either, Layer, Option, Redacted } from "effect"
import { type Capability } from "../../domain/Search.js"
import { hasUrlCredentials, urlCredentialsMessage } from "../../domain/Secret.js"
import { parseAllowRanges, type UrlPolicy } from "./UrlSafety.js"

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

const flag = (name: string) => Config.boolean(name).pipe(Config.withDefault(false))

const httpUrl = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((text) => {
      if (hasUrlCredentials(text)) return Either.left(ConfigError.InvalidData([], urlCredentialsMessage(name)))
      try {
        const url = new URL(text.trim())
        if (url.protocol === "http:" || url.protocol === "https:") return Either.right(url.toString().replace(/\/+$/, ""))
      } catch {
        // fall through to the error below
      }
      return Either.left(ConfigError.InvalidData([], `${name}: "${text}" is not an http(s) URL — set it to the server's base URL`))
    })
  )

const fromConfig = Effect.gen(function*() {
  const enabled = yield* flag("VTREE_SEARCH_ENABLED")
  const searxngEnabled = yield* flag("VTREE_SEARCH_SEARXNG_ENABLED")
  const githubEnabled = yield* flag("VTREE_SEARCH_GITHUB_ENABLED")
  const readerEnabled = yield* flag("VTREE_SEARCH_READER_ENABLED")
  // Disabled capabilities read nothing further: no URL to validate and, above all, no secret.
  const searxngUrl = enabled && searxngEnabled
    ? yield* Effect.mapError(httpUrl("VTREE_SEARCH_SEARXNG_URL"), (error) =>
      ConfigError.isMissingData(error)
        ? ConfigError.MissingData([], "VTREE_SEARCH_SEARXNG_URL is unset but SearXNG search is on — set it to the instance's base URL or turn VTREE_SEARCH_SEARXNG_ENABLED off")
        : error)
    : null
  const githubOn = enabled && githubEnabled
  const githubUrl = githubOn
    ? yield* httpUrl("VTREE_SEARCH_GITHUB_URL").pipe(Config.withDefault("https://api.github.com"))
    : "https://api.github.com"
  const token = githubOn ? yield* Config.option(Config.redacted("VTREE_SEARCH_GITHUB_TOKEN")) : Option.none()
  const rangesText = enabled && readerEnabled
    ? yield* Config.array(Config.string(), "VTREE_SEARCH_ALLOW_RANGES").pipe(Config.withDefault([] as Array<string>))
    : []
  const parsed = parseAllowRanges(rangesText)
  if ("error" in parsed) {
    return yield* Effect.fail(
      ConfigError.InvalidData([], `VTREE_SEARCH_ALLOW_RANGES: ${parsed.error} — fix the comma-separated list or unset it`)
    )
  }
  return {
    enabled,
    searxng: { enabled: searxngEnabled, baseUrl: searxngUrl },
    github: { enabled: githubEnabled, baseUrl: githubUrl, token: Option.filter(token, (t) => Redacted.value(t) !== "") },
    reader: { enabled: readerEnabled },
    policy: { allowRanges: parsed.ranges },
    ...defaultLimits
  } satisfies SearchSettingsShape
})

export class SearchSettings extends Context.Tag("vtree/SearchSettings")<SearchSettings, SearchSettingsShape>() {
  /** From the VTREE_SEARCH_* environment; everything off unless switched on. */
  static readonly fromEnv: Layer.Layer<SearchSettings, ConfigError.ConfigError> = Layer.effect(SearchSettings, fromConfig)

  /** Settings for embedding and tests: all off, default limits, then the given overrides. */
  static readonly make = (overrides: Partial<SearchSettingsShape> = {}): SearchSettingsShape => ({
    enabled: false,
    searxng: { enabled: false, baseUrl: null },
    github: { enabled: false, baseUrl: "https://api.github.com", token: Option.none() },
    reader: { enabled: false },
    policy: { allowRanges: [] },
    ...defaultLimits,
    ...overrides
  })
}
