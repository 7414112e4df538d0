// Issue 42: leases are timed by the database's clock. A worker whose own clock runs ten minutes ahead (its
// TestClock set there) finds the questions another worker holds under a live lease still live: it takes
// none, the holder's save goes through, and the skewed worker's own lease lasts its length at the database.
// PostgreSQL (the shared store) and SQLite opened with `owners: "many"`: one contract.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, type Scope, TestClock } from "effect"
import * as path from "node:path"
import * as PgRunStore from "../../../src/layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore, type RunStoreError } from "../../../src/services/RunStore.js"
import { prediction } from "../../support/harness/RunRows.js"
import { useCluster } from "../../support/postgres/vitest.js"
import { scopedTempDir } from "../../support/TempDir.js"

type Store = RunStore["Type"]
type Open = () => Effect.Effect<readonly [Store, Store], RunStoreError, Scope.Scope>

const build = (layer: Layer.Layer<RunStore, RunStoreError>) =>
  Effect.map(Layer.build(layer), (context) => context.unsafeMap.get(RunStore.key) as Store)

const ownerA = { ownerId: "host-a:101:aaaa", host: "host-a", pid: 101 }
const ahead = { ownerId: "host-z:909:zzzz", host: "host-z", pid: 909 }
const ids = ["q1", "q2", "q3", "q4"]
const tenMinutes = 10 * 60_000

const contract = (name: string, open: Open) =>
  describe(`${name}: a worker whose clock is minutes off`, () => {
    it.scoped("takes nothing another worker holds under a live lease, and its own lease is the database's", () =>
      Effect.gen(function*() {
        const [a, z] = yield* open()
        const now = Date.now()
        yield* TestClock.setTime(now)
        yield* a.startRun({ runId: "r", config: {}, owner: ownerA, leaseMs: 60_000 })
        yield* a.planQuestions("r", ids)
        assert.deepStrictEqual((yield* a.claimQuestions("r", ownerA.ownerId, 2)).questionIds, ["q1", "q2"])

        // The other worker's clock is ten minutes ahead: by it, A's 60 s lease ran out long ago.
        yield* TestClock.setTime(now + tenMinutes)
        const joined = yield* z.claimRun({ runId: "r", owner: ahead, leaseMs: 60_000 })
        assert.deepStrictEqual(joined.claims?.map((claim) => claim.ownerId).sort(), [ownerA.ownerId, ahead.ownerId])
        // Its lease runs from the database's now, not from its own.
        const own = joined.claims!.find((claim) => claim.ownerId === ahead.ownerId)!
        assert.strictEqual(own.expiresAt - own.claimedAt, 60_000)
        assert.isBelow(own.expiresAt, now + tenMinutes)
        assert.deepStrictEqual(yield* z.claimQuestions("r", ahead.ownerId, 10), {
          questionIds: ["q3", "q4"],
          heldByOthers: 0
        })
        assert.deepStrictEqual(yield* z.claimQuestions("r", ahead.ownerId, 10), { questionIds: [], heldByOthers: 2 })
        // Neither the run nor A's claim reads stale to it.
        const run = yield* z.getRun("r")
        assert.strictEqual(run._tag === "Some" ? run.value.status : "none", "running")
        assert.deepStrictEqual(run._tag === "Some" ? run.value.progress : null, { total: 4, done: 0, claimed: 4 })

        // A's saves go through: nobody took its questions.
        yield* TestClock.setTime(now + 1_000)
        for (const id of ["q1", "q2"]) {
          assert.strictEqual(
            yield* a.saveQuestion("r", { prediction: prediction({ questionId: id }), steps: [], calls: [] }, {
              ownerId: ownerA.ownerId
            }),
            "saved"
          )
        }
        // A worker whose clock runs behind does not make its own lease shorter or longer either.
        yield* TestClock.setTime(now - tenMinutes)
        const renewed = yield* a.renewClaim("r", ownerA.ownerId, 60_000)
        assert.strictEqual(renewed.expiresAt - renewed.heartbeatAt, 60_000)
        assert.isAbove(renewed.expiresAt, now)
      }))
  })

const tempDir = scopedTempDir("skew")

contract("SQLite, owners: many", () =>
  Effect.gen(function*() {
    const file = path.join(yield* tempDir, "vtree.db")
    const a = yield* build(SqliteRunStore.layer({ filename: file, owners: "many" }))
    const z = yield* build(SqliteRunStore.layer({ filename: file, owners: "many" }))
    return [a, z] as const
  }))

const pg = useCluster()

contract("PostgreSQL", () =>
  Effect.gen(function*() {
    const url = yield* Effect.promise(() => pg.database("skew"))
    const a = yield* build(PgRunStore.layer({ url: Redacted.make(url), maxConnections: 2 }))
    const z = yield* build(PgRunStore.layer({ url: Redacted.make(url), maxConnections: 2 }))
    return [a, z] as const
  }))
