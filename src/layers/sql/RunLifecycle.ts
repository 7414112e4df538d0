// A run's life in the store: started (claimed by its first owner), claimed by more owners or taken
// over, kept alive by heartbeats, released, finished.
import type { SqlError } from "@effect/sql/SqlError"
import type { ParseResult } from "effect"
import { Clock, Effect, Option, Schema } from "effect"
import * as os from "node:os"
import { StoredRunConfig } from "../../domain/RunConfig.js"
import type { RunClaim, RunRow } from "../../domain/RunRecord.js"
import { defaultLeaseMs, type RunStoreShape } from "../../services/RunStore.js"
import { readDatabaseNow } from "./DbClock.js"
import { toJsonValue } from "./JsonValue.js"
import type { QueueRepository } from "./QueueRepository.js"
import type { RunStored } from "./Rows.js"
import type { RunFailures } from "./RunFailures.js"
import type { RunReads } from "./RunReads.js"
import type { RunRepository } from "./RunRepository.js"
import type { StoreContext } from "./StoreContext.js"

// Never fails: every key of StoredRunConfig reads a value it refuses as absent, and the copy is an object.
const decodeStored = Schema.decodeUnknown(StoredRunConfig)

/**
 * Whether the claim's holder is a process of this host that no longer exists: its lease need not be
 * waited out (a run stopped by a full disk or a kill would otherwise be refused until it expires).
 * Signal 0 only probes: ESRCH means no such process; EPERM means one exists that is not ours. A pid
 * reused by another process reads as alive, and the lease then runs out as before.
 */
export const holderGoneHere = (claim: Pick<RunClaim, "host" | "pid">, host: string = os.hostname()): boolean => {
  if (claim.host !== host || claim.pid === process.pid || !Number.isSafeInteger(claim.pid) || claim.pid <= 0) {
    return false
  }
  try {
    process.kill(claim.pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
}

/** What each step of a run's life uses: the store, its statements and its one-line failures. */
interface Lifecycle {
  /** The database's time (epoch ms), for messages that say how long ago a heartbeat came. */
  readonly readNow: Effect.Effect<number, SqlError | ParseResult.ParseError>
  readonly ctx: StoreContext
  readonly runs: RunRepository
  readonly queue: QueueRepository
  readonly failures: RunFailures
  readonly readRun: RunReads["readRun"]
}

const startRunOf = ({ ctx, failures, readNow, readRun, runs }: Lifecycle): RunStoreShape["startRun"] =>
  Effect.fn("RunLifecycle.startRun")(function*(input) {
    const startedAt = input.startedAt ?? (yield* Clock.currentTimeMillis)
    const existing = yield* readRun(input.runId)
    if (Option.isSome(existing)) {
      return yield* failures.exists(input.runId, existing.value.claim, yield* readNow)
    }
    const row: RunStored = {
      runId: input.runId,
      startedAt,
      finishedAt: null,
      status: "running",
      config: yield* Effect.orDie(decodeStored(toJsonValue(input.config, true))),
      selection: input.selection ?? null
    }
    const owner = input.owner
    const created = yield* Effect.uninterruptible(ctx.sql.withTransaction(Effect.gen(function*() {
      if (Option.isNone(yield* runs.insertRun(row))) return undefined
      // The lease is the database's: from its clock, for leaseMs.
      return owner === undefined
        ? null
        : (yield* runs.insertClaim({ runId: input.runId, ...owner, leaseMs: input.leaseMs ?? defaultLeaseMs }))[0] ??
          null
    })))
    if (created === undefined) return yield* failures.exists(input.runId, null, yield* readNow)
    const run: RunRow = { ...row, claim: created, claims: created === null ? [] : [created], progress: null }
    return run
  }, ctx.guarded("starting the run"))

const claimRunOf = ({ ctx, failures, queue, readNow, readRun, runs }: Lifecycle): RunStoreShape["claimRun"] =>
  Effect.fn("RunLifecycle.claimRun")(
    function*({ leaseMs, owner, runId }) {
      const outcome = yield* Effect.uninterruptible(ctx.sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* runs.lockRun(runId))) return { _tag: "Missing" as const }
        const others = (yield* runs.liveClaims(runId)).filter((claim) => claim.ownerId !== owner.ownerId)
        // Holders that died on this host are gone now, not when their lease runs out.
        const dead = others.filter((claim) => holderGoneHere(claim))
        for (const claim of dead) {
          yield* runs.dropClaim({ runId, ownerId: claim.ownerId })
          if (ctx.facts.queue) yield* queue.releaseQuestions({ runId, ownerId: claim.ownerId })
        }
        const live = others.filter((claim) => !dead.includes(claim))
        if (ctx.owners === "one" && live[0] !== undefined) {
          return { _tag: "Leased" as const, holder: live[0], now: yield* readNow }
        }
        // Owners whose lease expired (by the database's clock) are gone: their rows go, and their
        // questions are open again.
        yield* runs.dropStaleClaims({ runId, ownerId: owner.ownerId })
        yield* runs.insertClaim({ runId, ...owner, leaseMs })
        yield* runs.reopenRun(runId)
        return { _tag: "Claimed" as const }
      })))
      if (outcome._tag === "Missing") return yield* failures.notFound(runId)
      if (outcome._tag === "Leased") return yield* failures.leased(runId, outcome.holder, outcome.now)
      const run = yield* readRun(runId)
      return Option.isSome(run) ? run.value : yield* failures.notFound(runId)
    },
    (effect, { runId }) => ctx.rideOut("claiming the run", runId)(ctx.guarded("claiming the run")(effect))
  )

const renewClaimOf = ({ ctx, failures, runs }: Lifecycle): RunStoreShape["renewClaim"] =>
  Effect.fn("RunLifecycle.renewClaim")(
    function*(runId, ownerId, leaseMs) {
      // The heartbeat is what notices a database file replaced under a run that saves nothing for a while.
      yield* failures.sameDatabase(runId)
      const renewed = yield* runs.extendClaim({ runId, ownerId, leaseMs })
      return Option.isSome(renewed) ? renewed.value : yield* failures.claimLost(runId, ownerId)
    },
    (effect, runId) => ctx.rideOut("renewing the run's lease", runId)(ctx.guarded("renewing the run's lease")(effect))
  )

const releaseRunOf = ({ ctx, failures, queue, runs }: Lifecycle): RunStoreShape["releaseRun"] =>
  Effect.fn("RunLifecycle.releaseRun")(
    function*(runId, ownerId, status, finishedAt) {
      yield* failures.sameDatabase(runId)
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      const released = yield* Effect.uninterruptible(ctx.sql.withTransaction(Effect.gen(function*() {
        yield* runs.lockRun(runId)
        if (Option.isNone(yield* runs.dropClaim({ runId, ownerId }))) return undefined
        if (ctx.facts.queue) yield* queue.releaseQuestions({ runId, ownerId })
        const [progress] = yield* queue.progressOf(runId)
        // Every question saved: the run is complete, whoever saved them and whoever still waits.
        const complete = progress !== undefined && progress.total > 0 && progress.done >= progress.total
        if (!complete && (yield* runs.liveClaims(runId)).length > 0) return "running" as const
        const final = complete ? "completed" : status
        // Closed once: a worker that leaves after the run completed keeps its status and time.
        if (Option.isSome(yield* runs.closeRunning({ runId, status: final, at }))) return final
        const current = yield* runs.findRun(runId)
        return Option.isSome(current) ? current.value.status : final
      })))
      return released ?? (yield* failures.claimLost(runId, ownerId))
    },
    (effect, runId) => ctx.rideOut("closing the run", runId)(ctx.guarded("closing the run")(effect))
  )

const finishRunOf = ({ ctx, failures, runs }: Lifecycle): RunStoreShape["finishRun"] =>
  Effect.fn("RunLifecycle.finishRun")(
    function*(runId, status, finishedAt) {
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      if (Option.isNone(yield* runs.closeRun({ runId, status, at }))) return yield* failures.notFound(runId)
    },
    ctx.guarded("finishing the run")
  )

export const runLifecycle = (
  ctx: StoreContext,
  runs: RunRepository,
  queue: QueueRepository,
  failures: RunFailures,
  readRun: RunReads["readRun"]
) => {
  const readNow = readDatabaseNow(ctx.sql)
  const lifecycle: Lifecycle = { ctx, runs, queue, failures, readRun, readNow }
  return {
    startRun: startRunOf(lifecycle),
    claimRun: claimRunOf(lifecycle),
    renewClaim: renewClaimOf(lifecycle),
    releaseRun: releaseRunOf(lifecycle),
    finishRun: finishRunOf(lifecycle)
  }
}
