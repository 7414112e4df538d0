import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import { makeSearchTools } from "../../../src/programs/mcp/SearchTools.js"
import { httpServer } from "../../support/mcp/HttpServer.js"
import { type CallResult, eras } from "../../support/mcp/SdkClient.js"
import { fixtureServer, type Handler, sendJson } from "../../support/search/FixtureServer.js"
import { captureLogs, fixture, hubLayer } from "../../support/search/hub.js"

// One `vtree mcp --http` process is the Search Hub sidecar of many agents: what the hub keeps (its
// cache, its breakers, its rate limits) belongs to the process, so every session sees the same.

const searchCall = (query: string) => ({
  name: "external_search",
  arguments: { capability: "search.web", query, limit: 3 }
})

const served = (searxngOrigin: string, breaker = { failures: 5, cooldown: Duration.seconds(30) }) => {
  const settings = SearchSettings.make({
    enabled: true,
    searxng: { enabled: true, baseUrl: searxngOrigin },
    breaker
  })
  return hubLayer(settings)
}

describe.each(eras)("vtree mcp --http as the Search Hub sidecar (%s clients)", (era) => {
  it.scoped("a second session asking what the first asked is answered from the shared cache", () =>
    Effect.gen(function*() {
      const searxng = yield* fixtureServer({ "/search": sendJson(200, fixture("searxng-news.json")) })
      const logs = captureLogs()
      yield* Effect.gen(function*() {
        const server = yield* httpServer({ name: "vtree-search", version: "0", tools: yield* makeSearchTools })
        const first = yield* server.connect({}, era)
        const second = yield* server.connect({}, era)
        // Two sessions in the 2025 era; in 2026-07-28 two clients, each request on its own.
        if (era === "2025-11-25") assert.notStrictEqual(first.transport.sessionId, second.transport.sessionId)
        const a = (yield* Effect.promise(() => first.client.callTool(searchCall("tidal turbine")))) as CallResult
        const b = (yield* Effect.promise(() => second.client.callTool(searchCall("tidal turbine")))) as CallResult
        assert.strictEqual(a.structuredContent!.status, "success")
        assert.strictEqual(b.structuredContent!.status, "success")
        assert.deepStrictEqual(b.structuredContent!.results, a.structuredContent!.results)
        assert.notStrictEqual(b.structuredContent!.request_id, a.structuredContent!.request_id)
        // Another query is another entry.
        yield* Effect.promise(() => second.client.callTool(searchCall("wave energy")))
      }).pipe(Effect.provide(Layer.provideMerge(served(searxng.origin), logs.layer)))
      assert.strictEqual(searxng.requests.length, 2, "SearXNG was asked twice for three calls")
      assert.deepStrictEqual(logs.metrics.map((line) => line.cache), ["miss", "hit", "miss"])
      assert.notInclude(logs.lines.join("\n"), "tidal")
    }))

  it.scoped("a provider failing N times in a row opens one breaker for every session; a probe closes it", () =>
    Effect.gen(function*() {
      let healthy = false
      const flaky: Handler = (req, res, url) =>
        healthy
          ? sendJson(200, fixture("searxng-news.json"))(req, res, url)
          : sendJson(502, { error: "bad gateway" })(req, res, url)
      const searxng = yield* fixtureServer({ "/search": flaky })
      const logs = captureLogs()
      yield* Effect.gen(function*() {
        const server = yield* httpServer({ name: "vtree-search", version: "0", tools: yield* makeSearchTools })
        const first = yield* server.connect({}, era)
        const second = yield* server.connect({}, era)
        for (const query of ["a", "b"]) {
          const failed = (yield* Effect.promise(() => first.client.callTool(searchCall(query)))) as CallResult
          assert.isTrue(failed.isError)
          assert.strictEqual(failed.structuredContent!.error.code, "PROVIDER_ERROR")
        }
        // The other session meets the open breaker: refused at once, named, and SearXNG is not asked.
        const refused = (yield* Effect.promise(() => second.client.callTool(searchCall("c")))) as CallResult
        assert.isTrue(refused.isError)
        assert.include(refused.structuredContent!.error.message, "searxng circuit breaker is open after 2 failures")
        assert.isTrue(refused.structuredContent!.error.retryable)
        assert.strictEqual(searxng.requests.length, 2)

        healthy = true
        yield* TestClock.adjust("30 seconds")
        const probe = (yield* Effect.promise(() => second.client.callTool(searchCall("d")))) as CallResult
        assert.strictEqual(probe.structuredContent!.status, "success")
        const after = (yield* Effect.promise(() => first.client.callTool(searchCall("e")))) as CallResult
        assert.strictEqual(after.structuredContent!.status, "success")
        assert.strictEqual(searxng.requests.length, 4)
      }).pipe(
        Effect.provide(
          Layer.provideMerge(served(searxng.origin, { failures: 2, cooldown: Duration.seconds(30) }), logs.layer)
        )
      )
      assert.deepStrictEqual(logs.metrics.map((line) => line.code ?? line.status), [
        "PROVIDER_ERROR",
        "PROVIDER_ERROR",
        "PROVIDER_ERROR",
        "success",
        "success"
      ])
    }))
})
