// Riding out a lost database (issue 42): which failures count as a lost connection, and the retry policy on
// the TestClock — asked again with growing delays while it lasts, told to the outage listener, given up
// past the bound with one line naming the database and --resume.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Ref, TestClock } from "effect"
import { connectionLost, rideOutOutage, unreachable } from "../../../src/layers/sql/OutageRetry.js"
import { RunStoreError } from "../../../src/services/RunStore.js"
import { storeOutageListener } from "../../../src/services/StoreOutage.js"

const shown = "postgres://vtree:***@db.example:5432/runs"
const errno = (code: string, message = code) => Object.assign(new Error(message), { code })
/** As @effect/sql wraps a driver's error: a SqlError whose cause is the driver's. */
const wrapped = (cause: unknown) => Object.assign(new Error("Failed to execute statement"), { cause })

describe("connectionLost", () => {
  it("counts a refused or reset socket, a server shutting down or starting, and a connection cut off as lost", () => {
    for (
      const code of ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "57P03", "08006", "08001"]
    ) {
      assert.isTrue(connectionLost("pg", wrapped(errno(code))), code)
    }
    assert.isTrue(connectionLost("pg", wrapped(new Error("Connection terminated unexpectedly"))))
    // node-postgres reports a refused connection to a host with several addresses as an AggregateError.
    assert.isTrue(connectionLost("pg", wrapped(new AggregateError([errno("ECONNREFUSED")], "connect failed"))))
  })

  it("never counts an error of the statement itself: a constraint, a syntax error, a full disk, a lock timeout", () => {
    for (const code of ["23505", "42601", "53100", "55P03", "40P01", "ENOSPC"]) {
      assert.isFalse(connectionLost("pg", wrapped(errno(code, `error ${code}`))), code)
    }
    assert.isFalse(connectionLost("pg", wrapped(new Error("relation \"runs\" does not exist"))))
  })

  it("on SQLite counts only a write lock held past the busy timeout", () => {
    assert.isTrue(connectionLost("sqlite", wrapped(errno("SQLITE_BUSY"))))
    for (
      const code of ["SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CORRUPT", "SQLITE_CONSTRAINT_PRIMARYKEY", "ECONNRESET"]
    ) {
      assert.isFalse(connectionLost("sqlite", wrapped(errno(code))), code)
    }
  })
})

/** A statement that fails with `failures` (in order), then succeeds with "saved"; counts its attempts. */
const scripted = (failures: ReadonlyArray<RunStoreError>) =>
  Effect.gen(function*() {
    const attempts = yield* Ref.make(0)
    const run = Effect.flatMap(Ref.getAndUpdate(attempts, (n) => n + 1), (n) =>
      n < failures.length ? Effect.fail(failures[n]!) : Effect.succeed("saved" as const))
    return { attempts, run }
  })

const lost = unreachable(
  shown,
  "saving question \"q1\" of run \"r\"",
  wrapped(errno("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.5:5432"))
)

describe("rideOutOutage", () => {
  it.effect("asks again with growing delays until the database is back, telling the listener each time", () =>
    Effect.gen(function*() {
      const { attempts, run } = yield* scripted([lost, lost, lost])
      const heard = yield* Ref.make<ReadonlyArray<string>>([])
      const guarded = rideOutOutage(shown, "120 seconds")("saving question \"q1\" of run \"r\"", "r")(run).pipe(
        Effect.locally(storeOutageListener, (notice) => Ref.update(heard, (all) => [...all, notice.database]))
      )
      const fiber = yield* Effect.fork(guarded)
      // Jittered exponential from 250 ms: the three retries fit well within 10 s of TestClock time, none at once.
      yield* TestClock.adjust("100 millis")
      assert.strictEqual(yield* Ref.get(attempts), 1)
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Fiber.join(fiber), "saved")
      assert.strictEqual(yield* Ref.get(attempts), 4)
      assert.deepStrictEqual(yield* Ref.get(heard), [shown, shown, shown])
    }))

  it.effect("waits at most 5 s between attempts however long the outage lasts", () =>
    Effect.gen(function*() {
      const { attempts, run } = yield* scripted(Array.from({ length: 30 }, () => lost))
      const fiber = yield* Effect.fork(rideOutOutage(shown, "10 minutes")("claiming questions", "r")(run))
      // Past the exponential's first minute the pace is one attempt per 5 s (jittered: 4 to 6 s).
      yield* TestClock.adjust("60 seconds")
      const atMinute = yield* Ref.get(attempts)
      yield* TestClock.adjust("60 seconds")
      const more = (yield* Ref.get(attempts)) - atMinute
      assert.isAtLeast(more, 10)
      assert.isAtMost(more, 15)
      yield* TestClock.adjust("5 minutes")
      assert.strictEqual(yield* Fiber.join(fiber), "saved")
    }))

  it.effect("past the bound ends with one line naming the database (no password) and --resume", () =>
    Effect.gen(function*() {
      const { run } = yield* scripted(Array.from({ length: 1_000 }, () => lost))
      const fiber = yield* Effect.fork(
        rideOutOutage(shown, "120 seconds")("saving question \"q1\" of run \"r\"", "r")(run)
      )
      yield* TestClock.adjust("119 seconds")
      assert.isTrue((yield* Fiber.poll(fiber))._tag === "None")
      yield* TestClock.adjust("10 seconds")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
      assert.instanceOf(error, RunStoreError)
      assert.strictEqual(error!.reason, "DbUnreachable")
      assert.notInclude(error!.message, "\n")
      assert.match(
        error!.message,
        /^postgres:\/\/vtree:\*\*\*@db\.example:5432\/runs: the database is unreachable \(connect ECONNREFUSED .*\) while saving question "q1" of run "r"; still unreachable after 120 s \(VTREE_DB_OUTAGE_SECONDS\) — .*vtree infer --resume --run-id r/
      )
    }))

  it.effect("never asks again after a failure that is not a lost connection", () =>
    Effect.gen(function*() {
      const refused = new RunStoreError({
        reason: "ClaimLost",
        message: "run \"r\": this process no longer holds the run"
      })
      const { attempts, run } = yield* scripted([refused])
      const exit = yield* Effect.exit(rideOutOutage(shown, "120 seconds")("claiming questions", "r")(run))
      assert.deepStrictEqual(exit, Exit.fail(refused))
      assert.strictEqual(yield* Ref.get(attempts), 1)
    }))

  it.effect("with a bound of 0 asks once, and says how to go on", () =>
    Effect.gen(function*() {
      const { attempts, run } = yield* scripted([lost])
      const exit = yield* Effect.exit(rideOutOutage(shown, 0)("claiming questions", "r")(run))
      assert.strictEqual(yield* Ref.get(attempts), 1)
      assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error.message.includes("--resume"))
    }))
})
