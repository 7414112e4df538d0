// The refusals a run store gives, each one line naming the run and what to do.
import { Effect, Option } from "effect"
import type { RunClaim } from "../../domain/RunRecord.js"
import { RunStoreError } from "../../services/RunStore.js"
import type { RunRepository } from "./RunRepository.js"
import type { FileChange, StoreContext } from "./StoreContext.js"

/** "host:pid:abcd (heartbeat 3 s ago, lease until 10:31:02 UTC)", for messages. */
export const describeClaim = (claim: RunClaim, now: number): string => {
  const ago = Math.max(0, Math.round((now - claim.heartbeatAt) / 1000))
  const until = new Date(claim.expiresAt).toISOString().slice(11, 19)
  return `${claim.ownerId} (heartbeat ${ago} s ago, lease until ${until} UTC)`
}

/** `DbChanged`: the database file under the run was replaced or deleted. */
const databaseChanged = (name: string, runId: string, change: FileChange) =>
  new RunStoreError({
    reason: "DbChanged",
    message: change === "replaced"
      ? `${name}: the database file was replaced while run "${runId}" was going (another file has that path ` +
        `now) — this process stopped without writing to it; what it saved is in the file it had opened: put ` +
        `that file back, or continue with --resume --run-id ${runId} on the file there now`
      : `${name}: the database file was deleted while run "${runId}" was going — this process stopped; what ` +
        `it saved went with the file: restore it and continue with --resume --run-id ${runId}, or start again`
  })

/** `DbChanged`: the run's rows changed under this process while the file stayed the same. */
const rowsChanged = (name: string, runId: string, what: string) =>
  new RunStoreError({
    reason: "DbChanged",
    message: `${name}: ${what} — its rows changed under this process (another program wrote the database, or ` +
      `copied a file over it while vtree had it open); it stopped writing: stop whatever else writes there, ` +
      `check the run with \`vtree report --run-id ${runId}\`, then continue with --resume --run-id ${runId}`
  })

/** Fails with `DbChanged` once the database is not the one this process opened (a file replaced or deleted). */
const sameDatabaseOf = ({ fileChange, name }: StoreContext) => (runId: string) =>
  Effect.suspend(() => {
    const change = fileChange()
    return change === undefined ? Effect.void : Effect.fail(databaseChanged(name, runId, change))
  })

/** `RunNotFound`, naming the runs there are; a run listed there all the same was changed under this process. */
const notFoundOf = (ctx: StoreContext, runs: RunRepository) => {
  const sameDatabase = sameDatabaseOf(ctx)
  const { name } = ctx
  return (runId: string) =>
    Effect.zipRight(
      sameDatabase(runId),
      Effect.flatMap(runs.allRuns(undefined), (all) => {
        const ids = all.map((run) => run.runId)
        if (ids.includes(runId)) {
          return Effect.fail(rowsChanged(name, runId, `run "${runId}" read as missing, yet the database lists it`))
        }
        const shown = ids.slice(0, 20).join(", ")
        const more = ids.length > 20 ? ` (and ${ids.length - 20} more)` : ""
        const message = ids.length === 0
          ? `${name}: no run "${runId}" — the database holds no runs yet; run \`vtree infer\` first`
          : `${name}: no run "${runId}" — available: ${shown}${more}; pass one of them with --run-id`
        return Effect.fail(new RunStoreError({ reason: "RunNotFound", message }))
      })
    )
}

/**
 * `ClaimLost`: the owner's claim was dropped (its lease expired and another owner took over). vtree
 * never deletes a run, nor leaves one running without a claim: either is `DbChanged`.
 */
const claimLostOf = (ctx: StoreContext, runs: RunRepository) => {
  const sameDatabase = sameDatabaseOf(ctx)
  const { name, owners } = ctx
  return (runId: string, ownerId: string) =>
    Effect.gen(function*() {
      yield* sameDatabase(runId)
      const run = yield* runs.findRun(runId)
      if (Option.isNone(run)) {
        return yield* Effect.fail(
          new RunStoreError({
            reason: "DbChanged",
            message: `${name}: run "${runId}" was deleted from the database while this process was running it ` +
              `(not by vtree, which never deletes a run) — this process stopped; its saved questions went with ` +
              `it: start the run again`
          })
        )
      }
      const claims = yield* runs.claimsOf(runId)
      if (owners === "one" && claims[0] === undefined && run.value.status === "running") {
        return yield* Effect.fail(
          rowsChanged(name, runId, `run "${runId}" no longer has this process's claim, and no other owner took it`)
        )
      }
      return yield* Effect.fail(
        new RunStoreError({
          reason: "ClaimLost",
          message: `run "${runId}": this process (${ownerId}) no longer holds the run${
            owners === "one" && claims[0] !== undefined
              ? ` — ${claims[0].ownerId} took it over after the lease expired`
              : " — its lease expired (no heartbeat in time) and another worker took its questions"
          }; it stopped writing (its finished questions are saved)`
        })
      )
    })
}

export const runFailures = (ctx: StoreContext, runs: RunRepository) => {
  const { name } = ctx
  return {
    sameDatabase: sameDatabaseOf(ctx),

    notFound: notFoundOf(ctx, runs),

    leased: (runId: string, claim: RunClaim, now: number) =>
      new RunStoreError({
        reason: "RunLeased",
        message:
          `run "${runId}" is being run by ${describeClaim(claim, now)} — let it finish; if that process is gone, ` +
          `continue with --resume --takeover --run-id ${runId} once its lease has expired`
      }),

    exists: (runId: string, claim: RunClaim | null | undefined, now: number) =>
      new RunStoreError({
        reason: "RunExists",
        message: `${name}: run "${runId}" already exists${
          claim != null && claim.expiresAt > now ? ` and is being run by ${describeClaim(claim, now)}` : ""
        } — pass --resume to continue it, or another --run-id`
      }),

    claimLost: claimLostOf(ctx, runs)
  }
}

export type RunFailures = ReturnType<typeof runFailures>
