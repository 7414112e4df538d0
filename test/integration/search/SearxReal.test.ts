// The Search Hub against the real Debian `searx` server (test/support/search/Searx.ts), whose every
// engine fails here: the hub must answer ALL_ENGINES_FAILED naming them, never an empty success.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import type { ErrorResponse } from "../../../src/domain/Search.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { hubLayer } from "../../support/search/hub.js"
import { searxEngines, searxServer } from "../../support/search/Searx.js"

describe("SearXNG adapter against the real searx server", () => {
  it.scoped(
    "every engine failing is ALL_ENGINES_FAILED naming the engines, for web and news",
    () =>
      Effect.gen(function*() {
        const searx = yield* searxServer
        const layer = hubLayer(
          SearchSettings.make({ enabled: true, searxng: { enabled: true, baseUrl: searx.origin } })
        )
        for (
          const [capability, engines] of [["search.web", searxEngines.general], [
            "search.news",
            searxEngines.news
          ]] as const
        ) {
          const outcome = yield* Effect.flatMap(SearchHub, (hub) =>
            hub.search({ capability, query: "tidal turbine", language: "en" })).pipe(
              Effect.provide(layer)
            )
          assert.strictEqual(
            outcome.status,
            "error",
            `${capability}: ${JSON.stringify(outcome)}\n${searx.log().slice(-1500)}`
          )
          const { error } = outcome as ErrorResponse
          assert.strictEqual(error.code, "ALL_ENGINES_FAILED")
          assert.isTrue(error.retryable)
          assert.deepStrictEqual(
            error.failed_engines?.map((failed) =>
              failed.engine
            ).sort(),
            [...engines].sort()
          )
          for (const engine of engines) assert.include(error.message, `${engine}: `)
          assert.match(
            error.message,
            /^every SearXNG engine failed for this query \(.*\) — the empty result says nothing; retry later/
          )
        }
      }),
    { timeout: 60_000 }
  )
})
