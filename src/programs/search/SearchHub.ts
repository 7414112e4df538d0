import { Clock, type Context, Duration, Effect } from "effect"
import { randomUUID } from "node:crypto"
import {
  anyCapabilityEnabled,
  capabilityEnabled,
  SearchSettings,
  type SearchSettingsShape
} from "../../config/SearchSettings.js"
import {
  type Capability,
  type Citation,
  decodeReadRequest,
  decodeSearchRequest,
  errorResponse,
  type ReadOutcome,
  type ReadRequest,
  type ReadResponse,
  SearchError,
  type SearchOutcome,
  type SearchRequest,
  type SearchResponse,
  type SearchResultItem
} from "../../domain/Search.js"
import { dedupeByCanonicalUrl } from "../../domain/SearchUrl.js"
import { SearchMetrics, type SearchRequestMetrics } from "../../services/SearchMetrics.js"
import {
  type CodeQuery,
  CodeSearch,
  type PageContent,
  PageReader,
  type ProviderPage,
  type SearchPort,
  type WebQuery,
  WebSearch
} from "../../services/SearchProviders.js"
import { contentHash } from "./ContentHash.js"
import { ProviderGuards } from "./ProviderGuards.js"
import { readKey, SearchCache, searchKey } from "./SearchCache.js"

const howToEnable: Record<Capability, string> = {
  "search.web": "set VTREE_SEARCH_ENABLED=true, VTREE_SEARCH_SEARXNG_ENABLED=true and VTREE_SEARCH_SEARXNG_URL",
  "search.news": "set VTREE_SEARCH_ENABLED=true, VTREE_SEARCH_SEARXNG_ENABLED=true and VTREE_SEARCH_SEARXNG_URL",
  "search.code": "set VTREE_SEARCH_ENABLED=true and VTREE_SEARCH_GITHUB_ENABLED=true",
  "search.read": "set VTREE_SEARCH_ENABLED=true and VTREE_SEARCH_READER_ENABLED=true"
}

const disabled = (capability: Capability) =>
  new SearchError({
    reason: "CAPABILITY_DISABLED",
    message: `${capability} is switched off — ${howToEnable[capability]}`
  })

const unexpected = () =>
  new SearchError({
    reason: "PROVIDER_ERROR",
    message: "an unexpected failure inside the Search Hub — please report it"
  })

const capabilityOf = (input: unknown): Capability | undefined => {
  const value = typeof input === "object" && input !== null ? (input as Record<string, unknown>).capability : undefined
  return value === "search.web" || value === "search.news" || value === "search.code" ? value : undefined
}

/** Results in provider order, one per canonical URL, with ids, ranks and citations added. */
export const assembleResults = (
  page: ProviderPage,
  limit: number,
  retrievedAt: string
): { results: Array<SearchResultItem>; citations: Array<Citation> } => {
  const ranked = page.hits.map((hit, index) => ({ hit, rank: index + 1 }))
  const kept = dedupeByCanonicalUrl(ranked, (entry) => entry.hit.url).slice(0, limit)
  const results = kept.map(({ hit, rank }, index): SearchResultItem => ({
    id: `r${index + 1}`,
    type: hit.type,
    title: hit.title,
    url: hit.url,
    snippet: hit.snippet,
    published_at: hit.publishedAt,
    retrieved_at: retrievedAt,
    source_name: hit.sourceName,
    ...(hit.language === undefined ? {} : { language: hit.language }),
    provider_rank: rank,
    metadata: hit.metadata
  }))
  const citations = results.map((result, index): Citation => ({
    citation_id: `c${index + 1}`,
    result_id: result.id,
    url: result.url,
    title: result.title
  }))
  return { results, citations }
}

/** Bounds a provider call by the request timeout; a defect inside becomes a PROVIDER_ERROR. */
const requestBudget = (requestTimeout: Duration.Duration) => <A>(effect: Effect.Effect<A, SearchError>) =>
  effect.pipe(
    Effect.timeoutFail({
      duration: requestTimeout,
      onTimeout: () =>
        new SearchError({
          reason: "PROVIDER_TIMEOUT",
          message: `the request took longer than ${Duration.format(requestTimeout)} — try again or narrow it`
        })
    }),
    Effect.catchAllDefect(() => Effect.fail(unexpected()))
  )

type Guard = <A>(provider: string, call: Effect.Effect<A, SearchError>) => Effect.Effect<A, SearchError>

/** Each capability to its fixed provider, through that provider's rate limit and breaker. */
const routeTo =
  (web: SearchPort<WebQuery>, code: SearchPort<CodeQuery>, guard: Guard) =>
  (request: SearchRequest): Effect.Effect<{ provider: string; page: ProviderPage }, SearchError> => {
    if (request.capability !== "search.code" && request.scope !== undefined) {
      return Effect.fail(
        new SearchError({
          reason: "INVALID_REQUEST",
          message: "external_search: scope: only search.code takes a scope — remove it"
        })
      )
    }
    const freshnessDays = request.freshness?.value
    switch (request.capability) {
      case "search.web":
      case "search.news":
        return guard(
          web.provider,
          web.search({
            query: request.query,
            category: request.capability === "search.news" ? "news" : "general",
            limit: request.limit,
            ...(request.language === undefined ? {} : { language: request.language }),
            ...(request.region === undefined ? {} : { region: request.region }),
            ...(freshnessDays === undefined ? {} : { freshnessDays })
          })
        ).pipe(Effect.map((page) => ({ provider: web.provider, page })))
      case "search.code":
        return guard(
          code.provider,
          code.search({
            query: request.query,
            scope: request.scope ?? "repositories",
            limit: request.limit,
            ...(freshnessDays === undefined ? {} : { freshnessDays })
          })
        ).pipe(Effect.map((page) => ({ provider: code.provider, page })))
    }
  }

/** What the hub's two entry points share: the settings, the providers, the cache and the request bounds. */
interface Hub {
  readonly settings: SearchSettingsShape
  readonly web: SearchPort<WebQuery>
  readonly code: SearchPort<CodeQuery>
  readonly reader: Context.Tag.Service<PageReader>
  readonly cache: SearchCache
  readonly guards: ProviderGuards
  readonly withinRequestBudget: ReturnType<typeof requestBudget>
}

/** What one request learnt on its way, for its metrics line even when it fails. */
interface RequestTrace {
  hit: boolean | undefined
  extractor: string | undefined
}

/** The provider a capability goes to, for the metrics line. */
const providerFor = (hub: Hub, capability: Capability | undefined): string =>
  capability === undefined
    ? "none"
    : capability === "search.code"
    ? hub.code.provider
    : capability === "search.read"
    ? hub.reader.provider
    : hub.web.provider

/** One metrics line of a request. */
const recordRequest = (
  hub: Hub,
  metrics: Omit<SearchRequestMetrics, "event" | "cache"> & { readonly hit: boolean | undefined }
) =>
  Effect.flatMap(SearchMetrics, (sink) => {
    const { hit, ...fields } = metrics
    return sink.record({
      event: "search.request",
      ...fields,
      cache: !hub.cache.enabled || hit === undefined ? "off" : hit ? "hit" : "miss"
    })
  })

/** A validated search request answered from the cache when it can, else by its provider (then cached). */
const answerSearch = (hub: Hub, input: unknown, requestId: string, started: number, trace: RequestTrace) =>
  Effect.gen(function*() {
    const request = yield* decodeSearchRequest(input)
    if (!capabilityEnabled(hub.settings, request.capability)) return yield* Effect.fail(disabled(request.capability))
    const key = searchKey(request)
    const cached = yield* hub.cache.get(key)
    trace.hit = cached !== undefined && "results" in cached
    if (cached !== undefined && "results" in cached) {
      const response: SearchResponse = {
        ...cached,
        request_id: requestId,
        timing: { duration_ms: (yield* Clock.currentTimeMillis) - started }
      }
      return response
    }
    const { page, provider } = yield* hub.withinRequestBudget(routeTo(hub.web, hub.code, hub.guards.guard)(request))
    const now = yield* Clock.currentTimeMillis
    const assembled = assembleResults(page, request.limit, new Date(now).toISOString())
    const response: SearchResponse = {
      request_id: requestId,
      status: "success",
      capability: request.capability,
      provider,
      query: request.query,
      ...assembled,
      metadata: page.metadata,
      timing: { duration_ms: now - started }
    }
    yield* hub.cache.set(key, response)
    return response
  })

/** The hub's `search`: the answer or the error object, and one metrics line either way. */
const makeSearch = (hub: Hub) =>
  Effect.fn("SearchHub.search")(function*(input: unknown) {
    const requestId = randomUUID()
    const started = yield* Clock.currentTimeMillis
    const trace: RequestTrace = { hit: undefined, extractor: undefined }
    const outcome = yield* Effect.either(answerSearch(hub, input, requestId, started, trace))
    const durationMs = (yield* Clock.currentTimeMillis) - started
    const capability = outcome._tag === "Right" ? outcome.right.capability : capabilityOf(input)
    yield* recordRequest(hub, {
      request_id: requestId,
      capability: capability ?? "unknown",
      provider: providerFor(hub, capability),
      status: outcome._tag === "Right" ? "success" : "error",
      ...(outcome._tag === "Left" ? { code: outcome.left.reason } : {}),
      duration_ms: durationMs,
      count: outcome._tag === "Right" ? outcome.right.results.length : 0,
      truncated: false,
      hit: trace.hit
    })
    const result: SearchOutcome = outcome._tag === "Right"
      ? outcome.right
      : errorResponse(requestId, outcome.left, capability)
    return result
  })

/** The success answer of a page the reader fetched. */
const readResponseOf = (
  request: ReadRequest,
  page: PageContent,
  requestId: string,
  started: number,
  now: number
): ReadResponse => ({
  request_id: requestId,
  status: "success",
  capability: "search.read",
  url: request.url,
  final_url: page.finalUrl,
  title: page.title,
  content: page.content,
  content_type: page.contentType,
  content_hash: contentHash(page.content),
  retrieved_at: new Date(now).toISOString(),
  trust_level: "untrusted_external_content",
  truncated: page.truncated,
  ...(request.include_metadata ? { metadata: page.metadata } : {}),
  timing: { duration_ms: now - started }
})

/** A validated read request answered from the cache when it can, else by the page reader (then cached). */
const answerRead = (hub: Hub, input: unknown, requestId: string, started: number, trace: RequestTrace) =>
  Effect.gen(function*() {
    const request = yield* decodeReadRequest(input)
    if (!capabilityEnabled(hub.settings, "search.read")) return yield* Effect.fail(disabled("search.read"))
    const key = readKey(request)
    const cached = yield* hub.cache.get(key)
    trace.hit = cached !== undefined && "content" in cached
    if (cached !== undefined && "content" in cached) {
      const response: ReadResponse = {
        ...cached,
        request_id: requestId,
        timing: { duration_ms: (yield* Clock.currentTimeMillis) - started }
      }
      return response
    }
    const page = yield* hub.withinRequestBudget(
      hub.guards.guard(hub.reader.provider, hub.reader.read({ url: request.url, maxChars: request.max_chars }))
    )
    trace.extractor = typeof page.metadata.extractor === "string" ? page.metadata.extractor : undefined
    const response = readResponseOf(request, page, requestId, started, yield* Clock.currentTimeMillis)
    yield* hub.cache.set(key, response)
    return response
  })

/** The hub's `read`: the answer or the error object, and one metrics line either way. */
const makeRead = (hub: Hub) =>
  Effect.fn("SearchHub.read")(function*(input: unknown) {
    const requestId = randomUUID()
    const started = yield* Clock.currentTimeMillis
    const trace: RequestTrace = { hit: undefined, extractor: undefined }
    const outcome = yield* Effect.either(answerRead(hub, input, requestId, started, trace))
    yield* recordRequest(hub, {
      request_id: requestId,
      capability: "search.read",
      provider: hub.reader.provider,
      status: outcome._tag === "Right" ? "success" : "error",
      ...(outcome._tag === "Left" ? { code: outcome.left.reason } : {}),
      duration_ms: (yield* Clock.currentTimeMillis) - started,
      count: outcome._tag === "Right" ? 1 : 0,
      truncated: outcome._tag === "Right" ? outcome.right.truncated : false,
      ...(trace.extractor === undefined ? {} : { reader: trace.extractor }),
      hit: trace.hit
    })
    const result: ReadOutcome = outcome._tag === "Right"
      ? outcome.right
      : errorResponse(requestId, outcome.left, "search.read")
    return result
  })

/**
 * The single entry point of the Search Hub for MCP and agent tools: validates untrusted input, enforces
 * the flags, answers from the shared cache when it can, routes each capability to its fixed provider
 * through that provider's rate limit and circuit breaker, bounds the time, and always answers with one
 * JSON shape, a result or an error with its code, so a client branches on the code and expected failures
 * never escape as errors. One metrics line per request goes to SearchMetrics.
 */
export class SearchHub extends Effect.Service<SearchHub>()("vtree/SearchHub", {
  effect: Effect.gen(function*() {
    const settings = yield* SearchSettings
    const guards = yield* ProviderGuards
    const hub: Hub = {
      settings,
      web: yield* WebSearch,
      code: yield* CodeSearch,
      reader: yield* PageReader,
      cache: yield* SearchCache,
      guards,
      withinRequestBudget: requestBudget(settings.requestTimeout)
    }
    const capabilities = (["search.web", "search.news", "search.code", "search.read"] as const).filter((capability) =>
      capabilityEnabled(settings, capability)
    )
    return {
      /** Runs an untrusted `external_search` request; always succeeds with a success or error object. */
      search: makeSearch(hub),
      /** Runs an untrusted `external_read` request; always succeeds with a success or error object. */
      read: makeRead(hub),
      /** Whether any capability is on: agent tools are offered only then. */
      enabled: anyCapabilityEnabled(settings),
      capabilities,
      /** Each provider's circuit breaker, as the process sees it now. */
      breakers: guards.breakerStates
    } as const
  }),
  dependencies: [SearchCache.Default, ProviderGuards.Default]
}) {}
