import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import type { ReadResponse } from "../../../src/domain/Search.js"
import { parseAllowRanges } from "../../../src/domain/UrlSafety.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { fixtureServer, sendBody, sendJson } from "../../support/search/FixtureServer.js"
import { captureLogs, fixture, hubLayer } from "../../support/search/hub.js"
import { articlePage } from "../../support/search/pages.js"

/** A config provider over a fixed env that remembers every key it was asked for. */
const recordingEnv = (env: Record<string, string>) => {
  const asked: Array<string> = []
  const provider = ConfigProvider.fromMap(new Map(Object.entries(env))).pipe(
    ConfigProvider.mapInputPath((key) => {
      asked.push(key)
      return key
    })
  )
  return { asked, provider }
}

const loadSettings = (env: Record<string, string>) => {
  const recorded = recordingEnv(env)
  return SearchSettings.pipe(
    Effect.provide(SearchSettings.layerConfig),
    Effect.withConfigProvider(recorded.provider),
    Effect.map((settings) => ({ settings, asked: recorded.asked }))
  )
}

const loopback = (() => {
  const parsed = parseAllowRanges(["127.0.0.0/8"])
  if (!("ranges" in parsed)) throw new Error(parsed.error)
  return parsed.ranges
})()

describe("flags", () => {
  it.effect("everything is off by default", () =>
    Effect.gen(function*() {
      const { settings } = yield* loadSettings({})
      assert.isFalse(settings.enabled)
      const hub = yield* SearchHub.pipe(Effect.provide(hubLayer(settings)))
      assert.isFalse(hub.enabled)
      assert.deepStrictEqual(hub.capabilities, [])
    }))

  it.effect("a disabled GitHub capability never reads the token", () =>
    Effect.gen(function*() {
      const off = yield* loadSettings({
        VTREE_SEARCH_GITHUB_ENABLED: "true",
        VTREE_SEARCH_GITHUB_TOKEN: "ghp_never_read"
      })
      assert.notInclude(off.asked, "VTREE_SEARCH_GITHUB_TOKEN")
      assert.isTrue(Option.isNone(off.settings.github.token))
      const on = yield* loadSettings({
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_GITHUB_ENABLED: "true",
        VTREE_SEARCH_GITHUB_TOKEN: "ghp_read_now"
      })
      assert.include(on.asked, "VTREE_SEARCH_GITHUB_TOKEN")
      assert.strictEqual(Option.map(on.settings.github.token, Redacted.value).pipe(Option.getOrNull), "ghp_read_now")
      assert.notInclude(String(on.settings.github.token), "ghp_read_now")
    }))

  it.effect("bad configuration is reported with the variable and the fix", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(
        loadSettings({ VTREE_SEARCH_ENABLED: "true", VTREE_SEARCH_SEARXNG_ENABLED: "true" })
      )
      assert.include(String(missing), "VTREE_SEARCH_SEARXNG_URL")
      const badUrl = yield* Effect.flip(loadSettings({
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_SEARXNG_ENABLED: "true",
        VTREE_SEARCH_SEARXNG_URL: "ftp://x"
      }))
      assert.include(String(badUrl), "VTREE_SEARCH_SEARXNG_URL=\"ftp://x\": expected an http(s) URL")
      const badRange = yield* Effect.flip(loadSettings({
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_READER_ENABLED: "true",
        VTREE_SEARCH_ALLOW_RANGES: "127.0.0.0/8,nope"
      }))
      assert.include(String(badRange), "VTREE_SEARCH_ALLOW_RANGES")
      const badTtl = yield* Effect.flip(loadSettings({ VTREE_SEARCH_CACHE_TTL: "ten minutes" }))
      assert.include(
        String(badTtl),
        "VTREE_SEARCH_CACHE_TTL=\"ten minutes\": expected seconds (0 switches the cache off)"
      )
      const badRate = yield* Effect.flip(loadSettings({ VTREE_SEARCH_GITHUB_RATE: "1.5" }))
      assert.include(String(badRate), "VTREE_SEARCH_GITHUB_RATE")
    }))

  it.effect("the sidecar's guards read their variables; GitHub's limit follows whether a token is set", () =>
    Effect.gen(function*() {
      const { settings } = yield* loadSettings({
        VTREE_SEARCH_CACHE_TTL: "0",
        VTREE_SEARCH_CACHE_ENTRIES: "50",
        VTREE_SEARCH_SEARXNG_RATE: "120",
        VTREE_SEARCH_BREAKER_FAILURES: "3",
        VTREE_SEARCH_BREAKER_COOLDOWN: "5"
      })
      assert.strictEqual(Duration.toMillis(settings.cache.ttl), 0)
      assert.strictEqual(settings.cache.maxEntries, 50)
      assert.deepStrictEqual(settings.rateLimits, { searxng: 120, github: 10, reader: 120 })
      assert.strictEqual(settings.breaker.failures, 3)
      assert.strictEqual(Duration.toMillis(settings.breaker.cooldown), 5000)
      const withToken = yield* loadSettings({
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_GITHUB_ENABLED: "true",
        VTREE_SEARCH_GITHUB_TOKEN: "ghp_x"
      })
      assert.strictEqual(withToken.settings.rateLimits.github, 30)
      assert.strictEqual(Duration.toMillis(withToken.settings.cache.ttl), 600_000)
    }))

  it.scoped("a capability switched off answers CAPABILITY_DISABLED and sends nothing", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({
        "/search": sendJson(200, fixture("searxng-news.json")),
        "/search/repositories": sendJson(200, fixture("github-repositories.json")),
        "/page": sendBody(200, articlePage(1), { "content-type": "text/html" })
      })
      // Providers configured, master flag off: nothing may leave the process.
      const settings = SearchSettings.make({
        enabled: false,
        searxng: { enabled: true, baseUrl: server.origin },
        github: { enabled: true, baseUrl: server.origin, token: Option.none() },
        reader: { enabled: true },
        policy: { allowRanges: loopback }
      })
      const hub = yield* SearchHub.pipe(Effect.provide(hubLayer(settings)))
      const outcomes = [
        yield* hub.search({ capability: "search.web", query: "a" }),
        yield* hub.search({ capability: "search.news", query: "a" }),
        yield* hub.search({ capability: "search.code", query: "a" }),
        yield* hub.read({ url: `${server.origin}/page` })
      ]
      for (const outcome of outcomes) {
        assert.strictEqual(outcome.status === "error" ? outcome.error.code : "success", "CAPABILITY_DISABLED")
      }
      assert.strictEqual(server.requests.length, 0)
      // Master flag on, reader flag off: the reader stays off.
      const readerOff = yield* SearchHub.pipe(
        Effect.provide(hubLayer({ ...settings, enabled: true, reader: { enabled: false } }))
      )
      const read = yield* readerOff.read({ url: `${server.origin}/page` })
      assert.strictEqual(
        read.status === "error" ? read.error.message : "",
        "search.read is switched off — set VTREE_SEARCH_ENABLED=true and VTREE_SEARCH_READER_ENABLED=true"
      )
      assert.strictEqual(server.requests.length, 0)
    }))
})

describe("hub requests", () => {
  it.scoped("read: the reader result with hash, trust level and optional metadata", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/story": sendBody(200, articlePage(2), { "content-type": "text/html" }) })
      const settings = SearchSettings.make({
        enabled: true,
        reader: { enabled: true },
        policy: { allowRanges: loopback }
      })
      const hub = yield* SearchHub.pipe(Effect.provide(hubLayer(settings)))
      const outcome = (yield* hub.read({ url: `${server.origin}/story`, include_metadata: true })) as ReadResponse
      assert.strictEqual(outcome.status, "success")
      assert.strictEqual(outcome.capability, "search.read")
      assert.strictEqual(outcome.trust_level, "untrusted_external_content")
      assert.match(outcome.content_hash, /^sha256:[0-9a-f]{64}$/)
      assert.strictEqual(outcome.content_type, "text/html")
      assert.strictEqual(outcome.metadata?.extractor, "readability")
      const plain = (yield* hub.read({ url: `${server.origin}/story` })) as ReadResponse
      assert.isUndefined(plain.metadata)
      assert.strictEqual(plain.content_hash, outcome.content_hash)
    }))

  it.scoped("invalid input and blocked URLs come back as error objects, logged without the URL", () =>
    Effect.gen(function*() {
      const settings = SearchSettings.make({ enabled: true, reader: { enabled: true } })
      const logs = captureLogs()
      const outcomes = yield* Effect.flatMap(SearchHub, (hub) =>
        Effect.all([
          hub.read({ url: "http://169.254.169.254/latest/meta-data/iam/security-credentials?token=abc" }),
          hub.read({ url: "https://example.com/x", max_chars: 5 }),
          hub.search({ capability: "search.web", query: "" }),
          hub.search({ capability: "search.code", query: "tokens", scope: 3 })
        ])).pipe(Effect.provide(Layer.provideMerge(hubLayer(settings), logs.layer)))
      assert.deepStrictEqual(outcomes.map((o) => (o.status === "error" ? o.error.code : o.status)), [
        "URL_BLOCKED",
        "INVALID_REQUEST",
        "INVALID_REQUEST",
        "INVALID_REQUEST"
      ])
      assert.strictEqual(logs.lines.length, 4)
      const text = logs.lines.join("\n")
      for (
        const secretish of ["latest", "meta-data", "security-credentials", "token=abc", "169.254", "example.com", "/x"]
      ) {
        assert.notInclude(text, secretish)
      }
      assert.include(logs.lines[0]!, "code=URL_BLOCKED")
      assert.include(logs.lines[3]!, "capability=search.code")
    }))
})
