// The build queue (`vtree build --db`) on PostgreSQL: each claim takes exactly one video, longest first, and
// workers claiming at once never share one; leases are timed by the server's clock.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, TestClock } from "effect"
import * as BuildQueueRepository from "../../../src/layers/sql/BuildQueueRepository.js"
import * as PgRunStore from "../../../src/layers/sql/postgres/PgRunStore.js"
import { BuildQueue } from "../../../src/services/BuildQueue.js"
import { queueSettings } from "../../support/build/QueueSettings.js"
import { query, useCluster } from "../../support/postgres/vitest.js"

const pg = useCluster()

const settings = queueSettings
const videos = Array.from({ length: 20 }, (_, i) => ({ videoId: `v${i}`, durationSeconds: 100 + (i * 37) % 20 * 10 }))

const queueOn = (url: string) =>
  Layer.provideMerge(BuildQueueRepository.layer("pg"), PgRunStore.layer({ url: Redacted.make(url) }))

describe("build queue (PostgreSQL)", () => {
  it.scoped("each claim takes exactly one video, longest first", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg.database("bq_one"))
      yield* Effect.gen(function*() {
        const queue = yield* BuildQueue
        yield* queue.joinBuild({ buildId: "b", settings, settingsHash: "h", videosHash: "v", videos })
        const order: Array<string> = []
        for (let i = 1; i <= videos.length; i++) {
          const claim = yield* queue.claimVideo("b", "w", 60_000)
          order.push(Option.getOrThrow(claim.claim).videoId)
          const rows = yield* Effect.promise(() =>
            query<{ n: string }>(url, "SELECT count(*) AS n FROM build_videos WHERE claimed_by = 'w'")
          )
          assert.strictEqual(Number(rows[0]!.n), i)
        }
        const byLength = [...videos].sort((a, b) =>
          b.durationSeconds - a.durationSeconds || Number(a.videoId.slice(1)) - Number(b.videoId.slice(1))
        )
        assert.deepStrictEqual(order, byLength.map((v) => v.videoId))
      }).pipe(Effect.provide(queueOn(url)))
    }))

  it.scoped("workers claiming at once never share a video; a worker's clock far ahead takes nothing live", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => pg.database("bq_many"))
      yield* Effect.gen(function*() {
        const queue = yield* BuildQueue
        yield* queue.joinBuild({ buildId: "b", settings, settingsHash: "h", videosHash: "v", videos })
        const claims = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) => queue.claimVideo("b", `w${i % 4}`, 60_000)),
          { concurrency: 8 }
        )
        const taken = claims.map((c) => Option.getOrThrow(c.claim).videoId)
        assert.strictEqual(new Set(taken).size, 20)
        yield* TestClock.adjust("36500 days")
        assert.deepStrictEqual(yield* queue.claimVideo("b", "late", 60_000), { claim: Option.none(), heldByOthers: 20 })
      }).pipe(Effect.provide(queueOn(url)))
    }))
})
