// One owner per run (issue 11), at the store: claims, leases on the TestClock, fenced writes, stale
// runs, two store clients racing on one file, and what a database that is not (or no longer) ours gets.
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Layer, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { migrations } from "../../../src/layers/sql/Migrations.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore, type RunStoreError } from "../../../src/services/RunStore.js"
import { advanceDatabaseClock, sqlOf } from "../../support/harness/DatabaseClock.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("owner")

const failureOf = <A>(exit: Exit.Exit<A, RunStoreError>): RunStoreError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure === undefined) throw new Error(`expected a typed failure, got ${exit.cause._tag}`)
  return failure
}

/** The store of one client over `file`, built in the caller's scope. */
const client = (file: string, options: Partial<SqliteRunStore.SqliteRunStoreOptions> = {}) =>
  Effect.map(
    Layer.build(SqliteRunStore.layer({ filename: file, ...options })),
    (context) => context.unsafeMap.get(RunStore.key) as RunStore["Type"]
  )

/** Moves the database's clock of `file` on by `ms` (see DatabaseClock.ts), over a connection of its own. */
const databaseClock = (file: string) =>
  Effect.map(
    Layer.build(SqliteClient.layer({ filename: file })),
    (context) => (ms: number) => advanceDatabaseClock(sqlOf(context), ms)
  )

const ownerA = { ownerId: "host-a:101:aaaa", host: "host-a", pid: 101 }
const ownerB = { ownerId: "host-b:202:bbbb", host: "host-b", pid: 202 }

describe("run ownership", () => {
  it.scoped("a lease holds until it expires; then another owner takes the run over and the first is fenced out", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "vtree.db")
      const a = yield* client(file)
      const b = yield* client(file)
      const clock = yield* databaseClock(file)
      yield* TestClock.setTime(1_000)
      yield* a.startRun({ runId: "r", config: {}, owner: ownerA, leaseMs: 10_000 })

      // Live lease: refused with one line that names the owner and the way to take over.
      yield* clock(8_000)
      const refused = failureOf(yield* Effect.exit(b.claimRun({ runId: "r", owner: ownerB, leaseMs: 10_000 })))
      assert.strictEqual(refused.reason, "RunLeased")
      assert.include(refused.message, ownerA.ownerId)
      assert.include(refused.message, "--takeover")
      assert.notInclude(refused.message, "\n")
      assert.strictEqual((yield* b.listRuns)[0]?.status, "running")

      // A heartbeat pushes the expiry on, by the lease from the database's now.
      const renewed = yield* a.renewClaim("r", ownerA.ownerId, 10_000)
      assert.strictEqual(renewed.expiresAt - renewed.heartbeatAt, 10_000)
      yield* clock(8_000)
      assert.strictEqual(
        failureOf(yield* Effect.exit(b.claimRun({ runId: "r", owner: ownerB, leaseMs: 10_000 }))).reason,
        "RunLeased"
      )

      // The owner died: at expiry the run reads stale, and a resume takes it over.
      yield* clock(2_500)
      assert.strictEqual((yield* b.listRuns)[0]?.status, "stale")
      const taken = yield* b.claimRun({ runId: "r", owner: ownerB, leaseMs: 10_000 })
      assert.deepStrictEqual([taken.status, taken.claim?.ownerId], ["running", ownerB.ownerId])

      // The old owner, back from a pause, can no longer write, renew or close the run.
      const record = { prediction: prediction({ questionId: "q1" }), steps: [step(1)], calls: [call()] }
      const fenced = failureOf(yield* Effect.exit(a.saveQuestion("r", record, { ownerId: ownerA.ownerId })))
      assert.strictEqual(fenced.reason, "ClaimLost")
      assert.include(fenced.message, ownerB.ownerId)
      assert.strictEqual((yield* b.loadRun("r")).predictions.length, 0)
      assert.strictEqual(failureOf(yield* Effect.exit(a.renewClaim("r", ownerA.ownerId, 10_000))).reason, "ClaimLost")
      assert.strictEqual(failureOf(yield* Effect.exit(a.releaseRun("r", ownerA.ownerId, "failed"))).reason, "ClaimLost")
      assert.strictEqual(
        (yield* b.getRun("r")).pipe((run) => run._tag === "Some" ? run.value.status : "none"),
        "running"
      )

      // The new owner writes and closes; a closed run holds no claim and is no longer stale.
      yield* b.saveQuestion("r", record, { ownerId: ownerB.ownerId })
      yield* b.releaseRun("r", ownerB.ownerId, "completed")
      const closed = yield* a.loadRun("r")
      assert.deepStrictEqual([closed.run.status, closed.run.claim ?? null, closed.predictions.length], [
        "completed",
        null,
        1
      ])
    }))

  it.scoped("a lease held on this host by a process that no longer exists is taken over at once", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "vtree.db")
      const a = yield* client(file)
      const b = yield* client(file)
      const here = os.hostname()
      // Above the kernel's highest pid (2^22), so no process can have it: the holder is gone.
      const dead = { ownerId: `${here}:99999999:dead`, host: here, pid: 99_999_999 }
      const resumer = { ownerId: `${here}:${process.pid}:next`, host: here, pid: process.pid }
      yield* TestClock.setTime(1_000)
      yield* a.startRun({ runId: "r", config: {}, owner: dead, leaseMs: 60_000 })
      yield* TestClock.setTime(2_000)
      const taken = yield* b.claimRun({ runId: "r", owner: resumer, leaseMs: 60_000 })
      assert.deepStrictEqual([taken.status, taken.claims?.map((c) => c.ownerId)], ["running", [resumer.ownerId]])
      // The dead holder, were it somehow back, is fenced out.
      assert.strictEqual(failureOf(yield* Effect.exit(a.renewClaim("r", dead.ownerId, 60_000))).reason, "ClaimLost")

      // A live process of this host (this one) keeps its lease, and so does a same-pid holder of another host.
      yield* a.startRun({ runId: "s", config: {}, owner: resumer, leaseMs: 60_000 })
      const other = { ownerId: `${here}:99999999:other`, host: here, pid: 99_999_999 }
      assert.strictEqual(
        failureOf(yield* Effect.exit(b.claimRun({ runId: "s", owner: other, leaseMs: 60_000 }))).reason,
        "RunLeased"
      )
      const elsewhere = { ownerId: `not-${here}:99999999:far`, host: `not-${here}`, pid: 99_999_999 }
      yield* a.startRun({ runId: "t", config: {}, owner: elsewhere, leaseMs: 60_000 })
      assert.strictEqual(
        failureOf(yield* Effect.exit(b.claimRun({ runId: "t", owner: resumer, leaseMs: 60_000 }))).reason,
        "RunLeased"
      )
    }))

  it.scoped("of two clients claiming one run at once, exactly one gets it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "vtree.db")
      const first = yield* client(file)
      yield* first.startRun({ runId: "r", config: {} })
      yield* first.finishRun("r", "interrupted")
      const clients = yield* Effect.all([client(file), client(file), client(file), client(file)])
      const owners = clients.map((_, i) => ({ ownerId: `h:${i}:x`, host: "h", pid: i }))
      const results = yield* Effect.all(
        clients.map((store, i) => Effect.either(store.claimRun({ runId: "r", owner: owners[i]!, leaseMs: 60_000 }))),
        { concurrency: "unbounded" }
      )
      const winners = results.filter((r) => r._tag === "Right")
      assert.strictEqual(winners.length, 1)
      for (const r of results) if (r._tag === "Left") assert.strictEqual(r.left.reason, "RunLeased")
      const holder = (yield* first.getRun("r")).pipe((run) =>
        run._tag === "Some" ? run.value.claim?.ownerId : undefined
      )
      assert.strictEqual(holder, winners[0]!._tag === "Right" ? winners[0]!.right.claim?.ownerId : "none")
    }))

  it.scoped("a re-asked question's earlier calls stay in the accounting", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const store = yield* client(path.join(dir, "vtree.db"))
      yield* store.startRun({ runId: "r", config: {}, owner: ownerA })
      const failed = {
        prediction: prediction({ questionId: "q1", stopReason: "error", prediction: null, correct: false }),
        steps: [step(1)],
        calls: [call({ promptTokens: 500 })]
      }
      yield* store.saveQuestion("r", failed, { ownerId: ownerA.ownerId })
      yield* store.saveQuestion("r", {
        prediction: prediction({ questionId: "q1" }),
        steps: [step(1)],
        calls: [call({ promptTokens: 70 })]
      }, { ownerId: ownerA.ownerId })
      const loaded = yield* store.loadRun("r")
      assert.deepStrictEqual(loaded.calls.map((c) => [c.promptTokens, c.superseded]), [[500, true], [70, false]])
      assert.deepStrictEqual(loaded.predictions.map((p) => p.stopReason), ["finished"])
    }))
})

describe("databases that are not vtree's, or not this vtree's", () => {
  const sha = (file: string) => fs.readFileSync(file).toString("base64")

  it.scoped("a foreign SQLite file with its own runs table is refused and left untouched, by writers and readers", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "foreign.db")
      const db = new Database(file)
      db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO runs (note) VALUES ('mine')")
      db.close()
      const before = sha(file)
      for (const options of [{}, { readOnly: true }]) {
        const error = failureOf(yield* Effect.exit(Effect.scoped(client(file, options))))
        assert.strictEqual(error.reason, "DbForeign")
        assert.include(error.message, "not a vtree database")
      }
      assert.strictEqual(sha(file), before)
    }))

  it.scoped("a database from a newer vtree is refused; one from an older vtree reads as it is and migrates only when written", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // An older vtree's database: migrations 0001 and 0002 only, one run left running.
      const old = path.join(dir, "old.db")
      yield* SqliteMigrator.make({})({
        loader: SqliteMigrator.fromRecord({
          "0001_initial": migrations["0001_initial"],
          "0002_reply_shapes": migrations["0002_reply_shapes"]
        })
      }).pipe(Effect.provide(SqliteClient.layer({ filename: old })), Effect.scoped)
      const raw = new Database(old)
      raw.exec(`INSERT INTO runs VALUES ('legacy', 1, NULL, 'running', '{}')`)
      raw.pragma("wal_checkpoint(TRUNCATE)")
      raw.close()
      const before = sha(old)
      const reader = yield* Effect.scoped(
        Effect.flatMap(client(old, { readOnly: true }), (store) => store.loadRun("legacy"))
      )
      // Left running by a process that never said who it was: stale.
      assert.deepStrictEqual([reader.run.status, reader.run.selection ?? null, reader.calls.length], ["stale", null, 0])
      assert.strictEqual(sha(old), before)
      const writer = yield* Effect.scoped(Effect.flatMap(client(old), (store) => store.getRun("legacy")))
      assert.strictEqual(writer._tag === "Some" ? writer.value.status : "none", "stale")
      assert.notStrictEqual(sha(old), before)

      const newer = path.join(dir, "newer.db")
      yield* Effect.scoped(client(newer))
      const handle = new Database(newer)
      handle.exec(`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (99, 'future')`)
      handle.close()
      for (const options of [{}, { readOnly: true }]) {
        const error = failureOf(yield* Effect.exit(Effect.scoped(client(newer, options))))
        assert.strictEqual(error.reason, "DbTooNew")
        assert.include(error.message, "schema 99")
      }
    }))

  it.scoped("a truncated database is one DbCorrupt line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "vtree.db")
      yield* Effect.scoped(Effect.flatMap(client(file), (store) =>
        Effect.forEach([1, 2, 3, 4, 5, 6, 7, 8], (i) =>
          store.startRun({ runId: `r${i}`, config: { prompts: "x".repeat(4000) } }))))
      const handle = new Database(file)
      handle.pragma("wal_checkpoint(TRUNCATE)")
      handle.close()
      fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2))
      for (const options of [{}, { readOnly: true }]) {
        const exit = yield* Effect.exit(Effect.scoped(Effect.flatMap(client(file, options), (store) =>
          store.listRuns)))
        const error = failureOf(exit)
        assert.strictEqual(error.reason, "DbCorrupt")
        assert.notInclude(error.message, "\n")
      }
    }))
})

describe("a database changed under an open store", () => {
  const started = Effect.gen(function*() {
    const dir = yield* tempDir
    const file = path.join(dir, "vtree.db")
    const store = yield* client(file)
    yield* store.startRun({ runId: "r", config: {}, owner: ownerA })
    yield* store.planQuestions("r", ["q1", "q2"])
    return { dir, file, store }
  })
  const save = (store: RunStore["Type"], questionId: string) =>
    store.saveQuestion("r", { prediction: prediction({ questionId }), steps: [], calls: [] }, {
      ownerId: ownerA.ownerId
    })

  it.scoped("a file moved over it: the heartbeat, saves and the release refuse to write, naming the file and the run", () =>
    Effect.gen(function*() {
      const { dir, file, store } = yield* started
      yield* save(store, "q1")
      const other = path.join(dir, "other.db")
      const copy = new Database(other)
      copy.exec("CREATE TABLE t (x INTEGER)")
      copy.close()
      const bytes = fs.readFileSync(other)
      fs.renameSync(other, file)
      const attempts: ReadonlyArray<Effect.Effect<unknown, RunStoreError>> = [
        store.renewClaim("r", ownerA.ownerId, 60_000),
        save(store, "q2"),
        store.claimQuestions("r", ownerA.ownerId, 1),
        store.releaseRun("r", ownerA.ownerId, "interrupted")
      ]
      for (const attempt of attempts) {
        const error = failureOf(yield* Effect.exit(attempt))
        assert.strictEqual(error.reason, "DbChanged")
        assert.strictEqual(
          error.message,
          `${file}: the database file was replaced while run "r" was going (another file has that path now) — ` +
            `this process stopped without writing to it; what it saved is in the file it had opened: put that ` +
            `file back, or continue with --resume --run-id r on the file there now`
        )
      }
      assert.isTrue(fs.readFileSync(file).equals(bytes))
    }))

  it.scoped("the file deleted: DbChanged saying so, where a lost lease was said before", () =>
    Effect.gen(function*() {
      const { file, store } = yield* started
      for (const name of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(name, { force: true })
      const error = failureOf(yield* Effect.exit(store.renewClaim("r", ownerA.ownerId, 60_000)))
      assert.strictEqual(error.reason, "DbChanged")
      assert.match(error.message, /: the database file was deleted while run "r" was going — /)
      assert.isFalse(fs.existsSync(file))
    }))

  it.scoped("its lease row removed by another program: DbChanged, not a takeover that never happened", () =>
    Effect.gen(function*() {
      const { file, store } = yield* started
      const other = new Database(file)
      other.prepare("DELETE FROM run_claims").run()
      other.close()
      const error = failureOf(yield* Effect.exit(store.renewClaim("r", ownerA.ownerId, 60_000)))
      assert.strictEqual(error.reason, "DbChanged")
      assert.match(error.message, /run "r" no longer has this process's claim, and no other owner took it — /)
      assert.notInclude(error.message, "took it over")
    }))
})
