import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted, TestClock } from "effect"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import type { SearchResponse } from "../../../src/domain/Search.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { fixtureServer, sendJson } from "../../support/search/FixtureServer.js"
import { captureLogs, fixture, hubLayer } from "../../support/search/hub.js"

const githubOn = (baseUrl: string, token?: string) =>
  SearchSettings.make({
    enabled: true,
    github: { enabled: true, baseUrl, token: token === undefined ? Option.none() : Option.some(Redacted.make(token)) }
  })

const search = (settings: ReturnType<typeof githubOn>, input: unknown) =>
  Effect.flatMap(SearchHub, (hub) => hub.search(input)).pipe(Effect.provide(hubLayer(settings)))

describe("GitHub adapter (local server)", () => {
  it.scoped("repositories: nulls kept as absent, no invented dates, activity in metadata", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({
        "/search/repositories": sendJson(200, fixture("github-repositories.json"))
      })
      const outcome = (yield* search(githubOn(server.origin), {
        capability: "search.code",
        query: "effect typescript",
        limit: 5
      })) as SearchResponse
      assert.strictEqual(outcome.status, "success")
      assert.strictEqual(outcome.provider, "github")
      const [effect, empty] = outcome.results
      assert.deepStrictEqual([effect!.type, effect!.title, effect!.language, effect!.published_at], [
        "repository",
        "Effect-TS/effect",
        "TypeScript",
        null
      ])
      assert.strictEqual(effect!.metadata.pushed_at, "2024-05-15T07:59:00.000Z")
      assert.strictEqual(empty!.snippet, "")
      assert.isUndefined(empty!.language)
      assert.isNull(empty!.metadata.pushed_at)
      assert.deepStrictEqual(outcome.metadata, { scope: "repositories", total_count: 2, incomplete_results: false })
      const request = server.requests[0]!
      assert.strictEqual(request.path, "/search/repositories?q=effect+typescript&per_page=5&page=1")
      assert.isUndefined(request.headers.authorization)
    }))

  it.scoped("code search sends the token and text-match header, flags incomplete results", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search/code": sendJson(200, fixture("github-code.json")) })
      const outcome = (yield* search(githubOn(server.origin, "ghp_test_token"), {
        capability: "search.code",
        scope: "code",
        query: "layerStdio"
      })) as SearchResponse
      assert.strictEqual(outcome.status, "success")
      assert.strictEqual(outcome.results[0]!.snippet, "export const layerStdio = <EIn, RIn, EOut, ROut>(options: {")
      assert.strictEqual(outcome.results[0]!.title, "Effect-TS/effect: packages/ai/ai/src/McpServer.ts")
      assert.strictEqual(outcome.metadata.incomplete_results, true)
      assert.strictEqual(server.requests[0]!.headers.authorization, "Bearer ghp_test_token")
      assert.strictEqual(server.requests[0]!.headers.accept, "application/vnd.github.text-match+json")
      assert.notInclude(JSON.stringify(outcome), "ghp_test_token")
    }))

  it.scoped("code search without a token is refused before anything is sent", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search/code": sendJson(200, fixture("github-code.json")) })
      const outcome = yield* search(githubOn(server.origin), { capability: "search.code", scope: "code", query: "x" })
      assert.strictEqual(outcome.status === "error" ? outcome.error.code : "success", "INVALID_REQUEST")
      assert.strictEqual(server.requests.length, 0)
    }))

  it.scoped("issues: created_at is the date, pull requests marked, freshness becomes a qualifier", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2024-05-01T00:00:00Z"))
      const server = yield* fixtureServer({ "/search/issues": sendJson(200, fixture("github-issues.json")) })
      const outcome = (yield* search(githubOn(server.origin), {
        capability: "search.code",
        scope: "issues",
        query: "stdio",
        freshness: { type: "days", value: 30 }
      })) as SearchResponse
      assert.deepStrictEqual(outcome.results.map((r) => [r.type, r.published_at, r.metadata.is_pull_request]), [
        ["issue", "2024-04-01T10:00:00.000Z", false],
        ["issue", "2024-04-03T10:00:00.000Z", true]
      ])
      assert.strictEqual(outcome.results[0]!.snippet, "When stdin ends the server exits before flushing.")
      assert.strictEqual(outcome.results[0]!.metadata.repository, "Effect-TS/effect")
      const q = new URL(server.requests[0]!.path, server.origin).searchParams.get("q")
      assert.strictEqual(q, "stdio updated:>=2024-04-01")
    }))

  it.scoped("a rate-limit 403 with headers becomes PROVIDER_RATE_LIMITED with the retry time", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_700_000_000_000)
      const server = yield* fixtureServer({
        "/search/repositories": sendJson(403, { message: "API rate limit exceeded for 203.0.113.9." }, {
          "x-ratelimit-limit": "10",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-used": "10",
          "x-ratelimit-reset": "1700000042",
          "x-ratelimit-resource": "search"
        })
      })
      const logs = captureLogs()
      const outcome = yield* search(githubOn(server.origin), { capability: "search.code", query: "effect" }).pipe(
        Effect.provide(logs.layer)
      )
      if (outcome.status !== "error") return assert.fail("expected an error")
      assert.strictEqual(outcome.error.code, "PROVIDER_RATE_LIMITED")
      assert.strictEqual(outcome.error.retry_after_ms, 42_000)
      assert.isTrue(outcome.error.retryable)
      assert.include(outcome.error.message, "retry after 42 s")
      assert.strictEqual(logs.lines.length, 1)
      assert.include(logs.lines[0]!, "code=PROVIDER_RATE_LIMITED")
    }))

  it.scoped("a reply without an items list is a provider error naming the field", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search/repositories": sendJson(200, { total_count: 1, items: "none" }) })
      const outcome = yield* search(githubOn(server.origin), { capability: "search.code", query: "x" })
      if (outcome.status !== "error") return assert.fail("expected an error")
      assert.strictEqual(outcome.error.code, "PROVIDER_ERROR")
      assert.include(
        outcome.error.message,
        "GitHub sent a reply of another shape (items: Expected ReadonlyArray<unknown>"
      )
    }))

  it.scoped("a rejected token is named without being shown", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/search/repositories": sendJson(401, { message: "Bad credentials" }) })
      const logs = captureLogs()
      const outcome = yield* search(githubOn(server.origin, "ghp_wrong_secret"), {
        capability: "search.code",
        query: "x"
      }).pipe(
        Effect.provide(logs.layer)
      )
      assert.strictEqual(outcome.status === "error" ? outcome.error.code : "success", "PROVIDER_ERROR")
      assert.notInclude(JSON.stringify(outcome), "ghp_wrong_secret")
      assert.notInclude(logs.lines.join("\n"), "ghp_wrong_secret")
    }))
})
