// The build queue (`vtree build --db`) on SQLite: claims longest first, leases on the database's clock,
// takeover of a lapsed lease, the fence on "done", handing back, and the progress counts.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import * as path from "node:path"
import * as BuildQueueRepository from "../../../src/layers/sql/BuildQueueRepository.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { BuildQueue, type VideoClaim } from "../../../src/services/BuildQueue.js"
import { queueSettings } from "../../support/build/QueueSettings.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("build-queue")

const settings = queueSettings

const videos = [
  { videoId: "short", durationSeconds: 60 },
  { videoId: "long", durationSeconds: 3600 },
  { videoId: "middle", durationSeconds: 600 }
]

/** A fresh SQLite database with one build of `videos`; the queue over it. */
const withQueue = <A, E>(use: (queue: typeof BuildQueue.Service) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const filename = path.join(yield* tempDir, "builds.db")
    const layer = Layer.provideMerge(BuildQueueRepository.layer(filename), SqliteRunStore.layer({ filename }))
    return yield* Effect.gen(function*() {
      const queue = yield* BuildQueue
      yield* queue.joinBuild({ buildId: "b1", settings, settingsHash: "h", videosHash: "v", videos })
      return yield* use(queue)
    }).pipe(Effect.provide(layer))
  })

const claimOf = (outcome: { readonly claim: Option.Option<VideoClaim> }) => Option.getOrThrow(outcome.claim)

describe("build queue (SQLite)", () => {
  it.scoped("hands out the longest video first, each to one worker, then says who still holds videos", () =>
    withQueue((queue) =>
      Effect.gen(function*() {
        const a = claimOf(yield* queue.claimVideo("b1", "a", 60_000))
        const b = claimOf(yield* queue.claimVideo("b1", "b", 60_000))
        const c = claimOf(yield* queue.claimVideo("b1", "a", 60_000))
        assert.deepStrictEqual([a.videoId, b.videoId, c.videoId], ["long", "middle", "short"])
        assert.deepStrictEqual([a.fence, a.resumed], [1, false])
        const none = yield* queue.claimVideo("b1", "c", 60_000)
        assert.isTrue(Option.isNone(none.claim))
        assert.strictEqual(none.heldByOthers, 3)
        yield* queue.finishVideo("b1", "a", a, { status: "done" })
        yield* queue.finishVideo("b1", "b", b, { status: "failed", error: "does not decode" })
        const progress = Option.getOrThrow(yield* queue.progress("b1"))
        assert.deepInclude(progress, {
          buildId: "b1",
          videos: 3,
          done: 1,
          failed: 1,
          building: 1,
          workers: 1,
          totalSeconds: 4260,
          doneSeconds: 3600
        })
        yield* queue.finishVideo("b1", "a", c, { status: "done" })
        assert.deepStrictEqual(yield* queue.claimVideo("b1", "c", 60_000), { claim: Option.none(), heldByOthers: 0 })
      })
    ))

  it.scoped("a worker whose clock is decades off changes nothing: leases are timed by the database's clock", () =>
    withQueue((queue) =>
      Effect.gen(function*() {
        // The TestClock starts at 1970; jump it a century ahead: a lease on the worker's clock would have lapsed.
        yield* TestClock.adjust("36500 days")
        claimOf(yield* queue.claimVideo("b1", "a", 60_000))
        const other = yield* queue.claimVideo("b1", "b", 60_000)
        assert.strictEqual(other.heldByOthers, 0)
        assert.strictEqual(claimOf(other).videoId, "middle")
        const progress = Option.getOrThrow(yield* queue.progress("b1"))
        // Started now on the database's clock, not at the worker's 2070.
        assert.isBelow(Math.abs(progress.startedAt - Date.now()), 60_000)
        assert.strictEqual(progress.building, 2)
      })
    ))

  it.scoped("a lapsed lease is taken over; the first holder's heartbeat and done are refused by the fence", () =>
    withQueue((queue) =>
      Effect.gen(function*() {
        // A lease of 0 ms has lapsed as soon as it is given.
        const first = claimOf(yield* queue.claimVideo("b1", "a", 0))
        const taken = claimOf(yield* queue.claimVideo("b1", "b", 60_000))
        assert.deepStrictEqual([taken.videoId, taken.fence, taken.resumed], ["long", 2, true])
        const renewed = yield* Effect.flip(queue.renewVideo("b1", "a", first, 60_000))
        const done = yield* Effect.flip(queue.finishVideo("b1", "a", first, { status: "done" }))
        for (const error of [renewed, done]) {
          assert.strictEqual(error.reason, "ClaimLost")
          assert.match(
            error.message,
            /: video long of build b1 was taken over by another worker \(this worker's lease lapsed\)/
          )
        }
        yield* queue.renewVideo("b1", "b", taken, 60_000)
        yield* queue.finishVideo("b1", "b", taken, { status: "done" })
        assert.strictEqual(Option.getOrThrow(yield* queue.progress("b1")).done, 1)
      })
    ))

  it.scoped("a video handed back is claimable at once, as resumed", () =>
    withQueue((queue) =>
      Effect.gen(function*() {
        const first = claimOf(yield* queue.claimVideo("b1", "a", 60_000))
        yield* queue.releaseVideo("b1", "a", first)
        const again = claimOf(yield* queue.claimVideo("b1", "b", 60_000))
        assert.deepStrictEqual([again.videoId, again.resumed], ["long", true])
      })
    ))

  it.scoped("joining returns the build as its creator stored it, and adds no video", () =>
    withQueue((queue) =>
      Effect.gen(function*() {
        const joined = yield* queue.joinBuild({
          buildId: "b1",
          settings: { ...settings, frameInterval: 1 },
          settingsHash: "other",
          videosHash: "v2",
          videos: [{ videoId: "extra", durationSeconds: 9999 }]
        })
        assert.isFalse(joined.created)
        assert.deepInclude(joined.build, { settingsHash: "h", videosHash: "v", videoCount: 3, settings })
        assert.strictEqual(claimOf(yield* queue.claimVideo("b1", "a", 60_000)).videoId, "long")
        const [listed] = yield* queue.listBuilds
        assert.strictEqual(listed?.videos, 3)
      })
    ))
})
