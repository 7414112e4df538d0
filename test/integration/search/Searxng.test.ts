import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gzipSync } from "node:zlib"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import type { SearchResponse } from "../../../src/domain/Search.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { fixtureServer, sendBody, sendJson } from "../../support/search/FixtureServer.js"
import { captureLogs, fixture, hubLayer } from "../../support/search/hub.js"

const searxngOn = (baseUrl: string) => SearchSettings.make({ enabled: true, searxng: { enabled: true, baseUrl } })

describe("SearXNG adapter (local server)", () => {
  it.scoped("a gzip reply that inflates past the cap is refused before it is decoded", () =>
    Effect.gen(function*() {
      // 64 MiB of JSON (valid: a results list padded with spaces) in about 64 KB of gzip.
      const inflated = Buffer.alloc(64 * 1024 * 1024, 0x20)
      Buffer.from("{\"results\": []").copy(inflated, 0)
      inflated[inflated.length - 1] = 0x7d
      const server = yield* fixtureServer({
        "/search": sendBody(200, gzipSync(inflated), { "content-type": "application/json", "content-encoding": "gzip" })
      })
      const outcome = yield* Effect.flatMap(SearchHub, (hub) => hub.search({ capability: "search.web", query: "x" }))
        .pipe(Effect.provide(hubLayer(searxngOn(server.origin))))
      assert.strictEqual(outcome.status, "error")
      if (outcome.status === "error") {
        assert.strictEqual(outcome.error.code, "CONTENT_TOO_LARGE")
        assert.include(outcome.error.message, "SearXNG sent more than 8 MiB")
      }
    }))

  it.scoped("maps news results: canonical de-duplication, nulls, dates, unresponsive engines", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search": sendJson(200, fixture("searxng-news.json")) })
      const outcome = yield* Effect.flatMap(
        SearchHub,
        (hub) =>
          hub.search({
            capability: "search.news",
            query: "bay of fundy tidal turbine",
            language: "en",
            region: "ca",
            freshness: { type: "days", value: 7 }
          })
      ).pipe(Effect.provide(hubLayer(searxngOn(server.origin))))
      assert.strictEqual(outcome.status, "success")
      const response = outcome as SearchResponse
      assert.strictEqual(response.provider, "searxng")
      assert.deepStrictEqual(response.results.map((r) => [r.id, r.provider_rank, r.type]), [["r1", 1, "news"], [
        "r2",
        3,
        "news"
      ], ["r3", 4, "news"]])
      const [first, second, third] = response.results
      assert.strictEqual(first!.published_at, "2024-05-14T09:30:00.000Z")
      assert.strictEqual(first!.metadata.published_at_assumed_utc, true)
      assert.deepStrictEqual(first!.metadata.engines, ["bing news", "duckduckgo news"])
      assert.strictEqual(first!.source_name, "www.cbc.ca")
      assert.strictEqual(second!.published_at, "2024-05-10T14:00:00.000Z")
      assert.isUndefined(second!.metadata.published_at_assumed_utc)
      assert.strictEqual(second!.snippet, "")
      assert.isNull(third!.published_at)
      assert.strictEqual(third!.title, "https://www.example-energy.org/blog/tides")
      assert.deepStrictEqual(response.metadata.unresponsive_engines, [
        { engine: "google news", reason: "timeout" },
        { engine: "qwant news", reason: "access denied" }
      ])
      assert.strictEqual(response.metadata.skipped_results, 1)
      assert.strictEqual(response.citations.length, 3)
      // Raw provider payloads never pass through.
      assert.notInclude(JSON.stringify(response), "parsed_url")
      const sent = new URL(server.requests[0]!.path, server.origin).searchParams
      assert.deepStrictEqual(Object.fromEntries(sent), {
        q: "bay of fundy tidal turbine",
        format: "json",
        categories: "news",
        pageno: "1",
        language: "en-CA",
        time_range: "week"
      })
    }))

  it.scoped("explains a disabled JSON format (403) and the limiter (429)", () =>
    Effect.gen(function*() {
      const forbidden = yield* fixtureServer({ "/search": sendJson(403, { error: "forbidden" }) })
      const limited = yield* fixtureServer({ "/search": sendJson(429, {}, { "retry-after": "30" }) })
      const search = (base: string) =>
        Effect.flatMap(SearchHub, (hub) => hub.search({ capability: "search.web", query: "q" })).pipe(
          Effect.provide(hubLayer(searxngOn(base)))
        )
      const refused = yield* search(forbidden.origin)
      assert.strictEqual(refused.status, "error")
      if (refused.status === "error") {
        assert.strictEqual(refused.error.code, "PROVIDER_ERROR")
        assert.include(refused.error.message, "search.formats")
      }
      const throttled = yield* search(limited.origin)
      if (throttled.status !== "error") return assert.fail("expected an error")
      assert.deepStrictEqual(throttled.error, {
        code: "PROVIDER_RATE_LIMITED",
        message:
          "SearXNG's limiter refused the request (HTTP 429) — wait, or allow this client in its limiter settings",
        retryable: true,
        retry_after_ms: 30000
      })
    }))

  it.scoped("a body that is no search answer is a provider error", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search": sendJson(200, { message: "maintenance" }) })
      const outcome = yield* Effect.flatMap(SearchHub, (hub) => hub.search({ capability: "search.web", query: "q" }))
        .pipe(
          Effect.provide(hubLayer(searxngOn(server.origin)))
        )
      if (outcome.status !== "error") return assert.fail("expected an error")
      assert.strictEqual(outcome.error.code, "PROVIDER_ERROR")
      assert.include(outcome.error.message, "SearXNG sent a reply of another shape (results: is missing)")
    }))

  it.scoped("logs one line per request without the query text", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search": sendJson(200, fixture("searxng-news.json")) })
      const logs = captureLogs()
      yield* Effect.flatMap(SearchHub, (hub) => hub.search({ capability: "search.web", query: "secret project zebra" }))
        .pipe(
          Effect.provide(Layer.provideMerge(hubLayer(searxngOn(server.origin)), logs.layer))
        )
      assert.strictEqual(logs.lines.length, 1)
      const line = logs.lines[0]!
      for (
        const field of [
          "request_id=",
          "capability=search.web",
          "provider=searxng",
          "status=success",
          "duration_ms=",
          "count=3",
          "truncated=false"
        ]
      ) {
        assert.include(line, field)
      }
      assert.notInclude(line, "zebra")
      assert.notInclude(line, "cbc.ca")
    }))
})
