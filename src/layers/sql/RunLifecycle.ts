// A run's life in the store: started (claimed by its first owner), claimed by more owners or taken
// over, kept alive by heartbeats, released, finished.
import { Clock, Effect, Option, Schema } from "effect"
import * as os from "node:os"
import { StoredRunConfig } from "../../domain/RunConfig.js"
import type { RunClaim, RunRow } from "../../domain/RunRecord.js"
import { defaultLeaseMs, type RunStoreShape } from "../../services/RunStore.js"
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
  readonly ctx: StoreContext
  readonly runs: RunRepository
  readonly queue: QueueRepository
  readonly failures: RunFailures
  readonly readRun: RunReads["readRun"]
}

const startRunOf = ({ ctx, failures, readRun, runs }: Lifecycle): RunStoreShape["startRun"] =>
  Effect.fn("RunLifecycle.startRun")(function*(input) {
    const startedAt = input.startedAt ?? (yield* Clock.currentTimeMillis)
    const existing = yield* readRun(input.runId)
    if (Option.isSome(existing)) {
      return yield* failures.exists(input.runId, existing.value.claim, yield* Clock.currentTimeMillis)
    }
    const row: RunStored = {
      runId: input.runId,
      startedAt,
      finishedAt: null,
      status: "running",
      config: yield* Effect.orDie(decodeStored(toJsonValue(input.config, true))),
      selection: input.selection ?? null
    }
    const claim: RunClaim | null = input.owner === undefined ? null : {
      ...input.owner,
      claimedAt: startedAt,
      heartbeatAt: startedAt,
      expiresAt: startedAt + (input.leaseMs ?? defaultLeaseMs)
    }
    const created = yield* Effect.uninterruptible(ctx.sql.withTransaction(Effect.gen(function*() {
      if (Option.isNone(yield* runs.insertRun(row))) return false
      if (claim !== null) yield* runs.insertClaim({ runId: input.runId, ...claim })
      return true
    })))
    if (!created) return yield* failures.exists(input.runId, null, startedAt)
    const run: RunRow = { ...row, claim, claims: claim === null ? [] : [claim], progress: null }
    return run
  }, ctx.guarded("starting the run"))

const claimRunOf = ({ ctx, failures, queue, readRun, runs }: Lifecycle): RunStoreShape["claimRun"] =>
  Effect.fn("RunLifecycle.claimRun")(function*({ leaseMs, owner, runId }) {
    const now = yield* Clock.currentTimeMillis
    const outcome = yield* Effect.uninterruptible(ctx.sql.withTransaction(Effect.gen(function*() {
      if (Option.isNone(yield* runs.lockRun(runId))) return { _tag: "Missing" as const }
      const others = (yield* runs.liveClaims({ runId, now })).filter((claim) => claim.ownerId !== owner.ownerId)
      // Holders that died on this host are gone now, not when their lease runs out.
      const dead = others.filter((claim) => holderGoneHere(claim))
      for (const claim of dead) {
        yield* runs.dropClaim({ runId, ownerId: claim.ownerId })
        if (ctx.facts.queue) yield* queue.releaseQuestions({ runId, ownerId: claim.ownerId })
      }
      const live = others.filter((claim) => !dead.includes(claim))
      if (ctx.owners === "one" && live[0] !== undefined) return { _tag: "Leased" as const, holder: live[0] }
      // Owners whose lease expired are gone: their rows go, and their questions are open again.
      yield* runs.dropStaleClaims({ runId, ownerId: owner.ownerId, now })
      yield* runs.insertClaim({ runId, ...owner, claimedAt: now, heartbeatAt: now, expiresAt: now + leaseMs })
      yield* runs.reopenRun(runId)
      return { _tag: "Claimed" as const }
    })))
    if (outcome._tag === "Missing") return yield* failures.notFound(runId)
    if (outcome._tag === "Leased") return yield* failures.leased(runId, outcome.holder, now)
    const run = yield* readRun(runId)
    return Option.isSome(run) ? run.value : yield* failures.notFound(runId)
  }, ctx.guarded("claiming the run"))

const renewClaimOf = ({ ctx, failures, runs }: Lifecycle): RunStoreShape["renewClaim"] =>
  Effect.fn("RunLifecycle.renewClaim")(
    function*(runId, ownerId, leaseMs) {
      // The heartbeat is what notices a database file replaced under a run that saves nothing for a while.
      yield* failures.sameDatabase(runId)
      const now = yield* Clock.currentTimeMillis
      const renewed = yield* runs.extendClaim({ runId, ownerId, at: now, until: now + leaseMs })
      return Option.isSome(renewed) ? renewed.value : yield* failures.claimLost(runId, ownerId)
    },
    ctx.guarded("renewing the run's lease")
  )

const releaseRunOf = ({ ctx, failures, queue, runs }: Lifecycle): RunStoreShape["releaseRun"] =>
  Effect.fn("RunLifecycle.releaseRun")(
    function*(runId, ownerId, status, finishedAt) {
      yield* failures.sameDatabase(runId)
      const at = finishedAt ?? (yield* Clock.currentTimeMillis)
      const now = yield* Clock.currentTimeMillis
      const released = yield* Effect.uninterruptible(ctx.sql.withTransaction(Effect.gen(function*() {
        yield* runs.lockRun(runId)
        if (Option.isNone(yield* runs.dropClaim({ runId, ownerId }))) return undefined
        if (ctx.facts.queue) yield* queue.releaseQuestions({ runId, ownerId })
        const [progress] = yield* queue.progressOf({ runId, now })
        // Every question saved: the run is complete, whoever saved them and whoever still waits.
        const complete = progress !== undefined && progress.total > 0 && progress.done >= progress.total
        if (!complete && (yield* runs.liveClaims({ runId, now })).length > 0) return "running" as const
        const final = complete ? "completed" : status
        // Closed once: a worker that leaves after the run completed keeps its status and time.
        if (Option.isSome(yield* runs.closeRunning({ runId, status: final, at }))) return final
        const current = yield* runs.findRun(runId)
        return Option.isSome(current) ? current.value.status : final
      })))
      return released ?? (yield* failures.claimLost(runId, ownerId))
    },
    ctx.guarded("closing the run")
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
  const lifecycle: Lifecycle = { ctx, runs, queue, failures, readRun }
  return {
    startRun: startRunOf(lifecycle),
    claimRun: claimRunOf(lifecycle),
    renewClaim: renewClaimOf(lifecycle),
    releaseRun: releaseRunOf(lifecycle),
    finishRun: finishRunOf(lifecycle)
  }
}
