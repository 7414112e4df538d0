// Who holds a run and for how long: this process as an owner, the heartbeat that renews its lease, the
// watch of a shared run's progress beside it, and letting go of the run at the end.
import { Cause, Clock, Effect, Exit, identity, Option, Random, Schedule } from "effect"
import * as os from "node:os"
import { type RunOwner, RunStore, RunStoreError } from "../../services/RunStore.js"
import type { BenchmarkEvent } from "./BenchmarkOptions.js"
import type { Budget } from "./Budget.js"

/** This process as a run owner: `<host>:<pid>:<random>`, readable in a refusal and unique across restarts. */
export const thisProcess = Effect.gen(function*() {
  const host = os.hostname()
  const pid = process.pid
  const suffix = (yield* Random.nextIntBetween(0, 36 ** 4)).toString(36).padStart(4, "0")
  const owner: RunOwner = { ownerId: `${host}:${pid}:${suffix}`, host, pid }
  return owner
})

const failedOnStore = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) && Option.exists(Cause.failureOption(exit.cause), (error) => error instanceof RunStoreError)

const unreachableAtExit = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) &&
  Option.exists(
    Cause.failureOption(exit.cause),
    (error) => error instanceof RunStoreError && error.reason === "DbUnreachable"
  )

const handBackLate = (runId: string) =>
  new RunStoreError({
    reason: "DbUnreachable",
    message: `run "${runId}": could not hand this worker's questions back (the database is still away); ` +
      "they open again when its lease runs out"
  })

/**
 * Lets go of the run, marking it by how this worker's questions ended when no other worker is still
 * at it; returns the run's status after that (`running` while others work on). A store that cannot
 * say so is logged, not raised (the lease then expires and the run reads as stale).
 */
export const releaseRun = (
  runId: string,
  ownerId: string,
  budget: Budget | undefined,
  exit: Exit.Exit<unknown, unknown>
) =>
  Effect.flatMap(RunStore, (store) =>
    store.releaseRun(
      runId,
      ownerId,
      Exit.isSuccess(exit)
        ? budget?.stopped === true ? "budget_stopped" : "completed"
        : Cause.isInterruptedOnly(exit.cause)
        ? "interrupted"
        : "failed"
    ).pipe(
      // A worker stopped by an outage past its bound hands its questions back if the database is there
      // now, but does not wait out a second outage: its lease lapses and the fence does the rest.
      unreachableAtExit(exit)
        ? Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => handBackLate(runId) })
        : identity
    )).pipe(
      Effect.map(Option.some),
      Effect.catchAll((error: RunStoreError) =>
        // Lost: the run is someone else's now. A run that failed on the store has said so already.
        error.reason === "ClaimLost" || failedOnStore(exit)
          ? Effect.succeedNone
          : Effect.as(Effect.logError(`could not mark run ${runId} as finished: ${error.message}`), Option.none())
      )
    )

/**
 * Renews the run's lease every third of its length, for as long as the run works; ends only by
 * failing: `ClaimLost` when another process took the run over (this one must stop writing), `DbChanged`
 * when the database is not the one the run was started in any more (its file replaced or deleted), or a
 * store that stays unwritable through a few retries.
 */
export const heartbeat = (runId: string, ownerId: string, leaseMs: number) =>
  Effect.flatMap(RunStore, (store) =>
    store.renewClaim(runId, ownerId, leaseMs).pipe(
      Effect.retry({
        schedule: Schedule.exponential(Math.max(1, Math.floor(leaseMs / 24))).pipe(
          Schedule.intersect(Schedule.recurs(3))
        ),
        // Neither a run taken over nor a database changed under it mends by asking again; an unreachable
        // one the store has asked again already, for as long as VTREE_DB_OUTAGE_SECONDS allows.
        while: (error) =>
          error.reason !== "ClaimLost" && error.reason !== "DbChanged" && error.reason !== "DbUnreachable"
      }),
      Effect.repeat(Schedule.spaced(Math.max(1, Math.floor(leaseMs / 3)))),
      Effect.zipRight(Effect.never)
    ))

/**
 * On a shared store, reports the whole run's progress every `everyMs` for this worker's display. A
 * failed read skips a report: the heartbeat, not this, is what notices a store that went away.
 */
export const watchRun = (runId: string, onEvent: (event: BenchmarkEvent) => Effect.Effect<void>, everyMs: number) =>
  Effect.flatMap(RunStore, (store) => {
    if (store.owners === "one") return Effect.void
    const report = Effect.gen(function*() {
      const run = yield* store.getRun(runId)
      const now = yield* Clock.currentTimeMillis
      if (Option.isNone(run) || run.value.progress == null) return
      const { progress } = run.value
      const live = (run.value.claims ?? []).filter((claim) => claim.expiresAt > now).length
      yield* onEvent({ _tag: "RunProgress", done: progress.done, total: progress.total, workers: Math.max(1, live) })
    }).pipe(Effect.ignore)
    return Effect.forever(Effect.delay(report, everyMs))
  })
