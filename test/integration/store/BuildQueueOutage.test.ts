// The build queue through a PostgreSQL outage: a claim, a heartbeat or a "done" that loses its connection is
// asked again until the server is back (VTREE_DB_OUTAGE_SECONDS), and a "done" asked again after its COMMIT went
// through is no claim lost. A throwaway cluster of its own: the shared one must not go down under other files.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Redacted } from "effect"
import * as BuildQueueRepository from "../../../src/layers/sql/BuildQueueRepository.js"
import * as PgRunStore from "../../../src/layers/sql/postgres/PgRunStore.js"
import { BuildQueue } from "../../../src/services/BuildQueue.js"
import { queueSettings } from "../../support/build/QueueSettings.js"
import { type PgCluster, query, start } from "../../support/postgres/index.js"

let cluster: PgCluster
beforeAll(async () => {
  cluster = await start()
}, 60_000)
afterAll(async () => {
  await cluster.stop()
})

const settings = queueSettings
const videos = [{ videoId: "long", durationSeconds: 300 }, { videoId: "short", durationSeconds: 60 }]

const queueOn = (url: string, outageSeconds: number) =>
  Layer.provideMerge(
    BuildQueueRepository.layer("pg", outageSeconds),
    PgRunStore.layer({ url: Redacted.make(url), outageSeconds })
  )

describe("build queue through a PostgreSQL outage", () => {
  it.live(
    "claims and a finish wait for the server to come back; a finish asked again is no claim lost",
    () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => cluster.createDatabase("bq_outage"))
        yield* Effect.gen(function*() {
          const queue = yield* BuildQueue
          yield* queue.joinBuild({ buildId: "b", settings, settingsHash: "h", videosHash: "v", videos })
          const first = Option.getOrThrow((yield* queue.claimVideo("b", "w", 60_000)).claim)
          assert.strictEqual(first.videoId, "long")

          yield* Effect.promise(() => cluster.stopServer())
          // Both asked while the server is down: they retry rather than fail.
          const finishing = yield* Effect.fork(queue.finishVideo("b", "w", first, { status: "done" }))
          const claiming = yield* Effect.fork(queue.claimVideo("b", "w", 60_000))
          yield* Effect.sleep("3 seconds")
          assert.isNull(yield* Fiber.poll(finishing).pipe(Effect.map(Option.getOrNull)))
          yield* Effect.promise(() => cluster.startServer())
          yield* Fiber.join(finishing)
          const second = Option.getOrThrow((yield* Fiber.join(claiming)).claim)
          assert.strictEqual(second.videoId, "short")

          // The same "done" again (as after a COMMIT whose answer was lost) finds its own work, not a lost claim.
          yield* queue.finishVideo("b", "w", first, { status: "done" })
          const rows = yield* Effect.promise(() =>
            query<{ video_id: string; status: string; fence: number }>(
              url,
              "SELECT video_id, status, fence FROM build_videos ORDER BY video_id"
            )
          )
          assert.deepStrictEqual(rows.map((r) => [r.video_id, r.status, Number(r.fence)]), [
            ["long", "done", 1],
            ["short", "open", 1]
          ])
        }).pipe(Effect.provide(queueOn(url, 60)))
      }),
    120_000
  )

  it.live(
    "past VTREE_DB_OUTAGE_SECONDS the worker stops with one line naming the database and the way on",
    () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => cluster.createDatabase("bq_gone"))
        const error = yield* Effect.gen(function*() {
          const queue = yield* BuildQueue
          yield* queue.joinBuild({ buildId: "b", settings, settingsHash: "h", videosHash: "v", videos })
          yield* Effect.promise(() => cluster.stopServer())
          return yield* Effect.flip(queue.claimVideo("b", "w", 60_000))
        }).pipe(
          Effect.provide(queueOn(url, 2)),
          Effect.ensuring(Effect.promise(() => cluster.startServer()))
        )
        assert.strictEqual(error.reason, "DbUnreachable")
        assert.include(error.message, "still unreachable after 2 s (VTREE_DB_OUTAGE_SECONDS)")
        assert.include(error.message, "run the same vtree build command again")
        assert.notInclude(error.message, "--resume")
      }),
    120_000
  )
})
