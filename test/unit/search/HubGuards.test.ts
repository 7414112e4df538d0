import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Ref, TestClock } from "effect"
import { SearchSettings, type SearchSettingsShape } from "../../../src/config/SearchSettings.js"
import { SearchError, type SearchOutcome } from "../../../src/domain/Search.js"
import { admit, closed, settle } from "../../../src/programs/search/CircuitBreaker.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { SearchMetrics, type SearchRequestMetrics } from "../../../src/services/SearchMetrics.js"
import { CodeSearch, PageReader, type ProviderPage, WebSearch } from "../../../src/services/SearchProviders.js"

const page = (n: number): ProviderPage => ({
  hits: Array.from({ length: n }, (_, i) => ({
    type: "web" as const,
    title: `Result ${i}`,
    url: `https://example.org/${i}`,
    snippet: "a snippet",
    publishedAt: null,
    sourceName: "example.org",
    metadata: {}
  })),
  metadata: {}
})

type Script = (query: string) => Effect.Effect<ProviderPage, SearchError>

/** The real hub over a scripted web provider that counts its calls; metrics lines are kept. */
const harness = (overrides: Partial<SearchSettingsShape>, script: Script) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make(0)
    const metrics: Array<SearchRequestMetrics> = []
    const settings = SearchSettings.make({
      enabled: true,
      searxng: { enabled: true, baseUrl: "http://searx.test" },
      ...overrides
    })
    const providers = Layer.mergeAll(
      Layer.succeed(
        WebSearch,
        WebSearch.of({
          provider: "searxng",
          search: (query) => Effect.zipRight(Ref.update(calls, (n) => n + 1), script(query.query))
        })
      ),
      Layer.succeed(CodeSearch, CodeSearch.of({ provider: "github", search: () => Effect.succeed(page(0)) })),
      Layer.succeed(PageReader, PageReader.of({ provider: "reader", read: () => Effect.dieMessage("not read here") }))
    )
    const hub = yield* Layer.build(
      SearchHub.Default.pipe(Layer.provide(providers), Layer.provide(Layer.succeed(SearchSettings, settings)))
    ).pipe(Effect.map(Context.get(SearchHub)))
    const search = (query: string, extra: Record<string, unknown> = {}) =>
      hub.search({ capability: "search.web", query, ...extra }).pipe(
        Effect.provideService(SearchMetrics, { record: (line) => Effect.sync(() => void metrics.push(line)) })
      )
    return { hub, search, calls: Ref.get(calls), metrics }
  })

const codeOf = (outcome: SearchOutcome) => (outcome.status === "error" ? outcome.error.code : "success")
const messageOf = (outcome: SearchOutcome) => (outcome.status === "error" ? outcome.error.message : "")

const providerDown: Script = () =>
  Effect.fail(new SearchError({ reason: "PROVIDER_ERROR", message: "SearXNG answered HTTP 502" }))

describe("the circuit breaker's transitions", () => {
  const policy = { failures: 3, cooldownMs: 30_000 }

  it("opens after the threshold of provider failures in a row, and a success resets the count", () => {
    let state = closed
    state = settle(state, "failed", false, 0, policy)
    state = settle(state, "failed", false, 0, policy)
    assert.deepStrictEqual(state, { _tag: "Closed", failures: 2 })
    assert.deepStrictEqual(settle(state, "ok", false, 0, policy), closed)
    state = settle(state, "failed", false, 10, policy)
    assert.deepStrictEqual(state, { _tag: "Open", failures: 3, until: 30_010 })
  })

  it("refuses until the cool-down, then admits exactly one probe", () => {
    const open = { _tag: "Open", failures: 3, until: 30_000 } as const
    const [early] = admit(open, 29_000)
    assert.deepStrictEqual(early, { _tag: "Refused", retryAfterMs: 1000, failures: 3 })
    const [probe, halfOpen] = admit(open, 30_000)
    assert.deepStrictEqual(probe, { _tag: "Admitted", probe: true })
    assert.strictEqual(halfOpen._tag, "HalfOpen")
    assert.strictEqual(admit(halfOpen, 30_001)[0]._tag, "Refused")
    assert.deepStrictEqual(settle(halfOpen, "ok", true, 30_500, policy), closed)
    assert.deepStrictEqual(settle(halfOpen, "failed", true, 30_500, policy), {
      _tag: "Open",
      failures: 4,
      until: 60_500
    })
    // A probe that never reached the provider (cancelled) lets the next request probe at once.
    assert.deepStrictEqual(settle(halfOpen, "abandoned", true, 30_500, policy), {
      _tag: "Open",
      failures: 3,
      until: 30_500
    })
  })
})

describe("the hub's guards", () => {
  it.scoped("the breaker opens after N failures, refuses naming itself, probes after the cool-down and closes", () =>
    Effect.gen(function*() {
      const healthy = yield* Ref.make(false)
      const { calls, hub, search } = yield* harness(
        { breaker: { failures: 3, cooldown: Duration.seconds(30) } },
        (query) => Effect.flatMap(Ref.get(healthy), (up) => (up ? Effect.succeed(page(2)) : providerDown(query)))
      )
      for (const query of ["a", "b", "c"]) assert.strictEqual(codeOf(yield* search(query)), "PROVIDER_ERROR")
      assert.strictEqual(yield* calls, 3)

      const refused = yield* search("d")
      assert.strictEqual(yield* calls, 3, "an open breaker does not call the provider")
      assert.include(messageOf(refused), "searxng circuit breaker is open after 3 failures")
      assert.strictEqual(refused.status === "error" ? refused.error.retry_after_ms : 0, 30_000)
      assert.strictEqual((yield* hub.breakers).searxng!._tag, "Open")

      // The probe after the cool-down fails: open again for another cool-down.
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(codeOf(yield* search("e")), "PROVIDER_ERROR")
      assert.strictEqual(yield* calls, 4)
      assert.include(messageOf(yield* search("f")), "circuit breaker is open")
      assert.strictEqual(yield* calls, 4)

      // The next probe succeeds: closed, and requests flow again.
      yield* Ref.set(healthy, true)
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(codeOf(yield* search("g")), "success")
      assert.deepStrictEqual(yield* hub.breakers, {
        searxng: { _tag: "Closed", failures: 0 },
        github: { _tag: "Closed", failures: 0 },
        reader: { _tag: "Closed", failures: 0 }
      })
      assert.strictEqual(codeOf(yield* search("h")), "success")
      assert.strictEqual(yield* calls, 6)
    }))

  it.scoped("a refusal by the provider's own rules (a bad request) does not count against it", () =>
    Effect.gen(function*() {
      const { calls, search } = yield* harness(
        { breaker: { failures: 2, cooldown: Duration.seconds(30) } },
        () => Effect.fail(new SearchError({ reason: "INVALID_REQUEST", message: "SearXNG refused the query" }))
      )
      for (const query of ["a", "b", "c", "d"]) assert.strictEqual(codeOf(yield* search(query)), "INVALID_REQUEST")
      assert.strictEqual(yield* calls, 4)
    }))

  it.scoped("the rate limit is a token bucket per provider: past it a request waits, and past half its budget it is refused", () =>
    Effect.gen(function*() {
      const { calls, search } = yield* harness(
        { rateLimits: { searxng: 2, github: 10, reader: 10 } },
        () => Effect.succeed(page(1))
      )
      const first = yield* Effect.fork(Effect.all([search("a"), search("b"), search("c")], { concurrency: 3 }))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* calls, 2, "two tokens: the third request waits")
      // One token comes back every 30 s; the 12 s request budget allows 6 s of waiting.
      yield* TestClock.adjust("6 seconds")
      const outcomes = yield* Fiber.join(first)
      assert.deepStrictEqual(outcomes.map(codeOf).sort(), ["PROVIDER_RATE_LIMITED", "success", "success"])
      const limited = outcomes.find((outcome) => outcome.status === "error")!
      assert.include(messageOf(limited), "rate limit for searxng (2 requests a minute, shared by every session)")
      assert.strictEqual(yield* calls, 2)

      yield* TestClock.adjust("30 seconds")
      const later = yield* Effect.fork(search("d"))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(codeOf(yield* Fiber.join(later)), "success")
      assert.strictEqual(yield* calls, 3)
    }))

  it.scoped("answers a repeated request from the cache until its TTL, keyed by everything that changes the answer", () =>
    Effect.gen(function*() {
      const { calls, metrics, search } = yield* harness({
        cache: { ttl: Duration.minutes(5), maxEntries: 10 }
      }, () => Effect.succeed(page(3)))
      const first = yield* search("tidal turbine")
      const second = yield* search("tidal turbine")
      assert.strictEqual(yield* calls, 1)
      assert.strictEqual(codeOf(second), "success")
      assert.notStrictEqual(first.request_id, second.request_id)
      assert.deepStrictEqual(
        second.status === "success" ? second.results : [],
        first.status === "success" ? first.results : []
      )
      yield* search("tidal turbine", { limit: 2 })
      yield* search("tidal turbine", { capability: "search.news" })
      assert.strictEqual(yield* calls, 3)
      yield* TestClock.adjust("4 minutes")
      yield* search("tidal turbine")
      assert.strictEqual(yield* calls, 3, "a hit does not extend the entry's life")
      yield* TestClock.adjust("61 seconds")
      yield* search("tidal turbine")
      assert.strictEqual(yield* calls, 4)
      assert.deepStrictEqual(metrics.map((line) => line.cache), ["miss", "hit", "miss", "miss", "hit", "miss"])
    }))

  it.scoped("errors are not cached, and a TTL of 0 switches the cache off", () =>
    Effect.gen(function*() {
      const failing = yield* harness({}, providerDown)
      yield* failing.search("a")
      yield* failing.search("a")
      assert.strictEqual(yield* failing.calls, 2)
      const off = yield* harness({ cache: { ttl: Duration.zero, maxEntries: 10 } }, () => Effect.succeed(page(1)))
      yield* off.search("a")
      yield* off.search("a")
      assert.strictEqual(yield* off.calls, 2)
      assert.deepStrictEqual(off.metrics.map((line) => line.cache), ["off", "off"])
    }))

  it.scoped("the metrics line carries the design's fields and never the query", () =>
    Effect.gen(function*() {
      const { metrics, search } = yield* harness({}, () => Effect.succeed(page(2)))
      yield* search("confidential merger plans")
      yield* search("", {})
      const [ok, bad] = metrics
      assert.deepStrictEqual(Object.keys(ok!).sort(), [
        "cache",
        "capability",
        "count",
        "duration_ms",
        "event",
        "provider",
        "request_id",
        "status",
        "truncated"
      ])
      assert.include(ok!, { capability: "search.web", provider: "searxng", status: "success", count: 2 })
      assert.include(bad!, { status: "error", code: "INVALID_REQUEST" })
      assert.notInclude(JSON.stringify(metrics), "confidential")
      assert.notInclude(JSON.stringify(metrics), "merger")
    }))
})
