import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, Layer, Option, Schema } from "effect"
import { SearchSettings } from "../../config/SearchSettings.js"
import { type FailedEngine, SearchError } from "../../domain/Search.js"
import { type ProviderHit, type ProviderPage, type WebQuery, WebSearch } from "../../services/SearchProviders.js"
import { decodeReply, normalizeDate, providerGet, providerJson, retryAfterMs } from "../shared/ProviderHttp.js"

// Only the fields we read; SearXNG adds engine-specific ones freely and sends null for many.
const SearxngResult = Schema.Struct({
  url: Schema.String,
  title: Schema.optional(Schema.NullOr(Schema.String)),
  content: Schema.optional(Schema.NullOr(Schema.String)),
  engine: Schema.optional(Schema.NullOr(Schema.String)),
  engines: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  publishedDate: Schema.optional(Schema.NullOr(Schema.String)),
  category: Schema.optional(Schema.NullOr(Schema.String)),
  score: Schema.optional(Schema.NullOr(Schema.Number))
})

const SearxngResponse = Schema.Struct({
  results: Schema.Array(Schema.Unknown),
  number_of_results: Schema.optional(Schema.NullOr(Schema.Number)),
  /** `[engine, reason]` pairs. */
  unresponsive_engines: Schema.optional(
    Schema.NullOr(Schema.Array(Schema.Tuple([Schema.String], Schema.NullOr(Schema.String))))
  )
})

const decodeResponse = decodeReply("SearXNG", SearxngResponse)
const decodeResult = Schema.decodeUnknownOption(SearxngResult)

/** SearXNG's time ranges are coarse: the smallest one that covers the requested days. */
export const timeRangeFor = (days: number): "day" | "week" | "month" | "year" | undefined =>
  days <= 1 ? "day" : days <= 7 ? "week" : days <= 31 ? "month" : days <= 366 ? "year" : undefined

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname
  } catch {
    return ""
  }
}

/**
 * No results while engines report failure: SearXNG still answers 200 with an empty list, and an agent
 * would read "no hits" as a fact about the world. It is ALL_ENGINES_FAILED, naming the engines.
 */
const allEnginesFailed = (failed: ReadonlyArray<FailedEngine>): SearchError =>
  new SearchError({
    reason: "ALL_ENGINES_FAILED",
    message: `every SearXNG engine failed for this query (${
      failed.map(({ engine, reason }) => `${engine}: ${reason}`).join("; ")
    }) — the empty result says nothing; retry later, or check the engines in SearXNG's settings`,
    failedEngines: failed
  })

/** Payload → hits; a malformed single result is skipped (and counted), not fatal. */
export const parseSearxng = (
  payload: unknown,
  category: WebQuery["category"]
): Either.Either<ProviderPage, SearchError> =>
  Either.flatMap(decodeResponse(payload), (response) => {
    const failed = (response.unresponsive_engines ?? []).map(([engine, reason]) => ({
      engine,
      reason: reason ?? "unknown"
    }))
    if (response.results.length === 0 && failed.length > 0) return Either.left(allEnginesFailed(failed))
    const results = response.results.map((raw) => decodeResult(raw))
    const hits = results.filter(Option.isSome).map(({ value: result }): ProviderHit => {
      const date = normalizeDate(result.publishedDate)
      return {
        type: category === "news" ? "news" : "web",
        title: result.title?.trim() || result.url,
        url: result.url,
        snippet: result.content?.trim() ?? "",
        publishedAt: date.iso,
        sourceName: hostOf(result.url),
        metadata: {
          engines: result.engines ?? (result.engine ? [result.engine] : []),
          ...(result.score == null ? {} : { score: result.score }),
          ...(date.assumedUtc ? { published_at_assumed_utc: true } : {})
        }
      }
    })
    const skipped = results.length - hits.length
    return Either.right({
      hits,
      metadata: {
        unresponsive_engines: failed,
        ...(skipped > 0 ? { skipped_results: skipped } : {})
      }
    })
  })

/** Web and news search through a SearXNG instance's JSON API (the configured base URL is trusted). */
export const layer: Layer.Layer<WebSearch, never, SearchSettings | HttpClient.HttpClient> = Layer.effect(
  WebSearch,
  Effect.gen(function*() {
    const settings = yield* SearchSettings
    const client = yield* HttpClient.HttpClient
    const search = Effect.fn("SearxngSearch.search")(function*(query: WebQuery) {
      const base = settings.searxng.baseUrl
      if (base === null) {
        return yield* Effect.fail(
          new SearchError({
            reason: "CAPABILITY_DISABLED",
            message: "web search has no SearXNG URL — set VTREE_SEARCH_SEARXNG_URL"
          })
        )
      }
      const language = query.language === undefined
        ? undefined
        : query.region === undefined
        ? query.language
        : `${query.language}-${query.region.toUpperCase()}`
      const timeRange = query.freshnessDays === undefined ? undefined : timeRangeFor(query.freshnessDays)
      const response = yield* providerGet(client, "SearXNG", `${base}/search`, {
        urlParams: {
          q: query.query,
          format: "json",
          categories: query.category,
          pageno: "1",
          ...(language === undefined ? {} : { language }),
          ...(timeRange === undefined ? {} : { time_range: timeRange })
        },
        headers: { accept: "application/json" },
        timeout: settings.providerTimeout
      })
      if (response.status === 403) {
        return yield* Effect.fail(
          new SearchError({
            reason: "PROVIDER_ERROR",
            message: "SearXNG refused the JSON format (HTTP 403) — add `json` to search.formats in its settings.yml"
          })
        )
      }
      if (response.status === 429) {
        const after = yield* retryAfterMs(response.headers["retry-after"])
        return yield* Effect.fail(
          new SearchError({
            reason: "PROVIDER_RATE_LIMITED",
            message:
              "SearXNG's limiter refused the request (HTTP 429) — wait, or allow this client in its limiter settings",
            ...(after === undefined ? {} : { retryAfterMs: after })
          })
        )
      }
      if (response.status < 200 || response.status >= 300) {
        return yield* Effect.fail(
          new SearchError({ reason: "PROVIDER_ERROR", message: `SearXNG answered HTTP ${response.status}` })
        )
      }
      const payload = yield* providerJson("SearXNG", response, settings.providerTimeout)
      const parsed = yield* parseSearxng(payload, query.category)
      return {
        hits: parsed.hits,
        metadata: {
          ...parsed.metadata,
          ...(query.freshnessDays !== undefined && timeRange === undefined ? { freshness_ignored: true } : {}),
          ...(timeRange === undefined ? {} : { time_range: timeRange })
        }
      }
    })
    return WebSearch.of({ provider: "searxng", search })
  })
)
