import { Duration, Effect } from "effect"
import { LRUCache } from "lru-cache"
import { SearchSettings } from "../../config/SearchSettings.js"
import type { ReadRequest, ReadResponse, SearchRequest, SearchResponse } from "../../domain/Search.js"

/** Characters of cached replies held at most (about 64 MB of text), whatever the entry count allows. */
export const maxCachedChars = 64 * 1024 * 1024

/**
 * The cache key of a request: everything that changes the answer, nothing else (not the request id).
 * Capability first, so a web and a news search for the same words never share an entry.
 */
export const searchKey = (request: SearchRequest): string =>
  JSON.stringify([
    request.capability,
    request.query,
    request.language ?? null,
    request.region ?? null,
    request.freshness?.value ?? null,
    request.scope ?? null,
    request.limit
  ])

export const readKey = (request: ReadRequest): string =>
  JSON.stringify(["search.read", request.url, request.max_chars, request.include_metadata])

type Cached = SearchResponse | ReadResponse

const sizeOf = (value: Cached): number =>
  "content" in value
    ? value.content.length + 512
    : value.results.reduce((sum, result) => sum + result.title.length + result.snippet.length + result.url.length, 512)

/**
 * Successful hub replies by request, kept for a TTL in a bounded LRU, shared by every session of the
 * process: the second agent asking what the first asked gets the answer without a provider call. Errors
 * are never kept. Time is the Effect Clock's, so tests move it with the TestClock.
 */
export class SearchCache extends Effect.Service<SearchCache>()("vtree/SearchCache", {
  effect: Effect.gen(function*() {
    const { cache: config } = yield* SearchSettings
    const clock = yield* Effect.clock
    const ttl = Duration.toMillis(config.ttl)
    const enabled = ttl > 0
    const lru = new LRUCache<string, Cached>({
      max: config.maxEntries,
      maxSize: maxCachedChars,
      sizeCalculation: (value) => Math.min(sizeOf(value), maxCachedChars),
      ttl: enabled ? ttl : 1,
      // The clock the rest of the hub reads, checked on every get (no cached "now"). lru-cache takes a
      // start time of 0 for "no TTL", and a clock may stand at 0 (the TestClock does): hence the + 1.
      perf: { now: () => clock.unsafeCurrentTimeMillis() + 1 },
      ttlResolution: 0,
      // A hit does not extend its life: a reply is as fresh as when the provider gave it.
      updateAgeOnGet: false
    })
    return {
      enabled,
      get: (key: string) => Effect.sync(() => (enabled ? lru.get(key) : undefined)),
      set: (key: string, value: Cached) => Effect.sync(() => void (enabled ? lru.set(key, value) : undefined)),
      size: Effect.sync(() => lru.size)
    } as const
  })
}) {}
