// Many workers on one run (issue 15), at the store: the question queue, claims under leases on the
// TestClock, a dead worker's questions taken over, a late save refused but its calls kept, the last
// worker out closing the run, and claims racing over real connections. Run against PostgreSQL (the
// shared store of the CLI) and against SQLite opened with `owners: "many"`: one contract.
import type * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, type Scope, TestClock } from "effect"
import * as path from "node:path"
import * as PgRunStore from "../../../src/layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore, type RunStoreError } from "../../../src/services/RunStore.js"
import { advanceDatabaseClock, sqlOf } from "../../support/harness/DatabaseClock.js"
import { call, prediction } from "../../support/harness/RunRows.js"
import { useCluster } from "../../support/postgres/vitest.js"
import { scopedTempDir } from "../../support/TempDir.js"

type Store = RunStore["Type"]
/** Opens `count` independent clients (own connections) on one fresh database. */
type OpenClients = (count: number) => Effect.Effect<
  { readonly clients: ReadonlyArray<Store>; readonly advance: (ms: number) => Effect.Effect<void> },
  RunStoreError,
  Scope.Scope
>

/** `count` stores of `layer` (each its own connection), and the database's clock moved on through the first. */
const build = (count: number, layer: () => Layer.Layer<RunStore | SqlClient.SqlClient, RunStoreError>) =>
  Effect.gen(function*() {
    const contexts = yield* Effect.forEach(Array.from({ length: count }), () => Layer.build(layer()))
    return {
      clients: contexts.map((context) => context.unsafeMap.get(RunStore.key) as Store),
      advance: (ms: number) => advanceDatabaseClock(sqlOf(contexts[0]!), ms)
    }
  })

const ownerA = { ownerId: "host-a:101:aaaa", host: "host-a", pid: 101 }
const ownerB = { ownerId: "host-b:202:bbbb", host: "host-b", pid: 202 }
const ownerC = { ownerId: "host-c:303:cccc", host: "host-c", pid: 303 }
const ids = (count: number) => Array.from({ length: count }, (_, i) => `q${String(i + 1).padStart(3, "0")}`)

const save = (store: Store, questionId: string, ownerId: string, calls = 1) =>
  store.saveQuestion("r", {
    prediction: prediction({ questionId }),
    steps: [],
    calls: Array.from({ length: calls }, () => call({ questionId }))
  }, { ownerId })

const contract = (name: string, open: OpenClients) =>
  describe(`${name}: many owners on one run`, () => {
    it.scoped("owners share the queue; a dead owner's questions go to the live; its late save is refused, its calls kept", () =>
      Effect.gen(function*() {
        const { advance, clients: [a, b, c] } = yield* open(3)
        assert.strictEqual(a!.owners, "many")
        yield* TestClock.setTime(1_000)
        yield* a!.startRun({ runId: "r", config: {}, owner: ownerA, leaseMs: 60_000 })
        assert.deepStrictEqual(yield* a!.planQuestions("r", ids(5)), { total: 5, done: 0, claimed: 0 })
        // A second owner joins a live run: no lease refusal on a shared store.
        const joined = yield* b!.claimRun({ runId: "r", owner: ownerB, leaseMs: 60_000 })
        assert.deepStrictEqual(joined.claims?.map((claim) => claim.ownerId).sort(), [ownerA.ownerId, ownerB.ownerId])
        assert.deepStrictEqual(yield* b!.planQuestions("r", ids(5)), { total: 5, done: 0, claimed: 0 })

        assert.deepStrictEqual(yield* a!.claimQuestions("r", ownerA.ownerId, 2), {
          questionIds: ["q001", "q002"],
          heldByOthers: 0
        })
        assert.deepStrictEqual(yield* b!.claimQuestions("r", ownerB.ownerId, 2), {
          questionIds: ["q003", "q004"],
          heldByOthers: 0
        })
        assert.deepStrictEqual(
          yield* c!.claimRun({ runId: "r", owner: ownerC, leaseMs: 60_000 }).pipe(
            Effect.zipRight(c!.claimQuestions("r", ownerC.ownerId, 1)),
            Effect.zipRight(c!.claimQuestions("r", ownerC.ownerId, 1))
          ),
          { questionIds: [], heldByOthers: 4 }
        )
        // C hands its one question back, leaves, and its claim goes with it.
        yield* c!.releaseRun("r", ownerC.ownerId, "interrupted")
        assert.strictEqual(yield* save(a!, "q001", ownerA.ownerId), "saved")
        assert.deepStrictEqual((yield* c!.listRuns)[0]?.progress, { total: 5, done: 1, claimed: 3 })

        // A stops beating (killed); B's heartbeat keeps it live. At A's expiry its open question is B's to take.
        // Leases are timed by the database's clock: it moves on with `advance`, the TestClock gives finishing times.
        yield* advance(50_000)
        yield* TestClock.setTime(9_000)
        yield* b!.renewClaim("r", ownerB.ownerId, 60_000)
        yield* advance(12_000)
        yield* TestClock.setTime(11_000)
        assert.deepStrictEqual(yield* b!.claimQuestions("r", ownerB.ownerId, 5), {
          questionIds: ["q002", "q005"],
          heldByOthers: 0
        })
        // A was only paused: its answer to q002 comes too late, and only its calls are kept.
        assert.strictEqual(yield* save(a!, "q002", ownerA.ownerId, 2), "taken")
        for (const id of ["q002", "q003", "q004", "q005"]) {
          assert.strictEqual(yield* save(b!, id, ownerB.ownerId), "saved")
        }

        // A third worker joining drops A's expired claim; the run stays running while B is live.
        yield* c!.claimRun({ runId: "r", owner: ownerC, leaseMs: 60_000 })
        assert.deepStrictEqual(
          (yield* c!.getRun("r")).pipe((run) =>
            run._tag === "Some"
              ? run.value.claims?.map((x) => x.ownerId).sort()
              : []
          ),
          [
            ownerB.ownerId,
            ownerC.ownerId
          ]
        )
        assert.deepStrictEqual(yield* c!.claimQuestions("r", ownerC.ownerId, 5), { questionIds: [], heldByOthers: 0 })
        const renewedA = yield* Effect.either(a!.renewClaim("r", ownerA.ownerId, 60_000))
        assert.isTrue(renewedA._tag === "Left" && renewedA.left.reason === "ClaimLost")
        // Every question saved: the first worker out completes the run though B is still live, and
        // B leaving later (even interrupted) changes neither its status nor its finishing time.
        assert.strictEqual(yield* c!.releaseRun("r", ownerC.ownerId, "completed"), "completed")
        yield* TestClock.setTime(12_000)
        assert.strictEqual(yield* b!.releaseRun("r", ownerB.ownerId, "interrupted"), "completed")
        assert.strictEqual(
          (yield* b!.getRun("r")).pipe((run) => run._tag === "Some" ? run.value.finishedAt : null),
          11_000
        )
        // A worker that joins the finished run finds nothing to do and leaves it as it was.
        yield* TestClock.setTime(13_000)
        const late = yield* c!.claimRun({ runId: "r", owner: ownerC, leaseMs: 60_000 })
        assert.deepStrictEqual([late.status, late.finishedAt], ["completed", 11_000])
        assert.deepStrictEqual(yield* c!.claimQuestions("r", ownerC.ownerId, 5), { questionIds: [], heldByOthers: 0 })
        assert.strictEqual(yield* c!.releaseRun("r", ownerC.ownerId, "completed"), "completed")
        assert.strictEqual(
          (yield* c!.getRun("r")).pipe((run) => run._tag === "Some" ? run.value.finishedAt : null),
          11_000
        )

        const loaded = yield* a!.loadRun("r")
        assert.strictEqual(loaded.run.status, "completed")
        assert.deepStrictEqual(loaded.run.progress, { total: 5, done: 5, claimed: 0 })
        assert.deepStrictEqual(loaded.predictions.map((p) => [p.questionId, p.worker]), [
          ["q001", ownerA.ownerId],
          ["q002", ownerB.ownerId],
          ["q003", ownerB.ownerId],
          ["q004", ownerB.ownerId],
          ["q005", ownerB.ownerId]
        ])
        // Every call made is stored once: 5 answers' calls, plus A's late two, superseded and run-level.
        assert.deepStrictEqual(
          loaded.calls.map((row) => [row.questionId, row.superseded === true]).filter(([, s]) => s),
          [[null, true], [null, true]]
        )
        assert.strictEqual(loaded.calls.length, 7)
      }))

    it.scoped("the last owner out marks the run; an interrupted owner hands its questions back at once", () =>
      Effect.gen(function*() {
        const { clients: [a, b] } = yield* open(2)
        yield* TestClock.setTime(1_000)
        yield* a!.startRun({ runId: "r", config: {}, owner: ownerA, leaseMs: 10_000 })
        yield* a!.planQuestions("r", ids(4))
        yield* b!.claimRun({ runId: "r", owner: ownerB, leaseMs: 10_000 })
        assert.deepStrictEqual((yield* a!.claimQuestions("r", ownerA.ownerId, 3)).questionIds, ["q001", "q002", "q003"])
        assert.strictEqual(yield* a!.releaseRun("r", ownerA.ownerId, "interrupted"), "running")
        // Handed back: claimable now, not at the end of A's lease.
        assert.deepStrictEqual((yield* b!.claimQuestions("r", ownerB.ownerId, 10)).questionIds, [
          "q001",
          "q002",
          "q003",
          "q004"
        ])
        yield* save(b!, "q001", ownerB.ownerId)
        assert.strictEqual(yield* b!.releaseRun("r", ownerB.ownerId, "interrupted"), "interrupted")
        const run = yield* b!.getRun("r")
        assert.deepStrictEqual(run._tag === "Some" ? [run.value.status, run.value.progress] : [], ["interrupted", {
          total: 4,
          done: 1,
          claimed: 0
        }])
      }))

    it.scoped("planning is idempotent, knows what a run saved before it had a queue, reopens errors on request, and takes an empty set", () =>
      Effect.gen(function*() {
        const { clients: [a] } = yield* open(1)
        yield* a!.startRun({ runId: "r", config: {}, owner: ownerA })
        // Saved without a queue (a run from before it, or a tool): planning counts it done.
        yield* a!.saveQuestion("r", { prediction: prediction({ questionId: "q002" }), steps: [], calls: [] })
        yield* a!.saveQuestion("r", {
          prediction: prediction({ questionId: "q003", stopReason: "error", error: "boom" }),
          steps: [],
          calls: []
        })
        assert.deepStrictEqual(yield* a!.planQuestions("r", ids(3)), { total: 3, done: 2, claimed: 0 })
        assert.deepStrictEqual(yield* a!.planQuestions("r", ids(3)), { total: 3, done: 2, claimed: 0 })
        assert.deepStrictEqual(yield* a!.planQuestions("r", ids(3), { retryErrors: true }), {
          total: 3,
          done: 1,
          claimed: 0
        })
        assert.deepStrictEqual((yield* a!.claimQuestions("r", ownerA.ownerId, 10)).questionIds, ["q001", "q003"])
        const missing = yield* Effect.either(a!.planQuestions("nope", ids(1)))
        assert.isTrue(missing._tag === "Left" && missing.left.reason === "RunNotFound")
        // A run with no questions has an empty queue: it is there all the same (once "no run e — available: e").
        yield* a!.startRun({ runId: "e", config: {}, owner: ownerB })
        assert.deepStrictEqual(yield* a!.planQuestions("e", []), { total: 0, done: 0, claimed: 0 })
      }))

    it.scoped("owners claiming at once over their own connections never get the same question", () =>
      Effect.gen(function*() {
        const { clients } = yield* open(6)
        const owners = clients.map((_, i) => ({ ownerId: `host:${i}:w${i}`, host: "host", pid: i }))
        yield* clients[0]!.startRun({ runId: "r", config: {}, owner: owners[0]!, leaseMs: 600_000 })
        yield* clients[0]!.planQuestions("r", ids(120))
        yield* Effect.forEach(owners.slice(1), (owner, i) =>
          clients[i + 1]!.claimRun({ runId: "r", owner, leaseMs: 600_000 }), {
          concurrency: "unbounded"
        })
        const drain = (store: Store, ownerId: string) =>
          Effect.gen(function*() {
            const got: Array<string> = []
            while (true) {
              const claim = yield* store.claimQuestions("r", ownerId, 3)
              if (claim.questionIds.length === 0) {
                return got
              }
              for (const id of claim.questionIds) {
                got.push(id)
              }
            }
          })
        const got = yield* Effect.forEach(clients, (store, i) =>
          drain(store, owners[i]!.ownerId), {
          concurrency: "unbounded"
        })
        const all = got.flat()
        assert.strictEqual(all.length, 120)
        assert.strictEqual(new Set(all).size, 120)
      }), 60_000)
  })

const tempDir = scopedTempDir("shared")

contract("SQLite, owners: many", (count) =>
  Effect.gen(function*() {
    const file = path.join(yield* tempDir, "vtree.db")
    return yield* build(count, () => SqliteRunStore.layer({ filename: file, owners: "many" }))
  }))

const pg = useCluster()

contract("PostgreSQL", (count) =>
  Effect.gen(function*() {
    const url = yield* Effect.promise(() => pg.database("shared"))
    return yield* build(count, () => PgRunStore.layer({ url: Redacted.make(url), maxConnections: 2 }))
  }))
