// The refusals a run store gives, each one line naming the run and what to do.
import { Effect } from "effect"
import type { RunClaim } from "../../domain/RunRecord.js"
import { RunStoreError } from "../../services/RunStore.js"
import type { RunRepository } from "./RunRepository.js"
import type { StoreContext } from "./StoreContext.js"

/** "host:pid:abcd (heartbeat 3 s ago, lease until 10:31:02 UTC)", for messages. */
export const describeClaim = (claim: RunClaim, now: number): string => {
  const ago = Math.max(0, Math.round((now - claim.heartbeatAt) / 1000))
  const until = new Date(claim.expiresAt).toISOString().slice(11, 19)
  return `${claim.ownerId} (heartbeat ${ago} s ago, lease until ${until} UTC)`
}

export const runFailures = ({ name, owners }: StoreContext, runs: RunRepository) => ({
  /** `RunNotFound`, naming the runs there are. */
  notFound: (runId: string) =>
    Effect.flatMap(runs.allRuns(undefined), (all) => {
      const ids = all.map((run) => run.runId)
      const shown = ids.slice(0, 20).join(", ")
      const more = ids.length > 20 ? ` (and ${ids.length - 20} more)` : ""
      const message = ids.length === 0
        ? `${name}: no run "${runId}" — the database holds no runs yet; run \`vtree infer\` first`
        : `${name}: no run "${runId}" — available: ${shown}${more}; pass one of them with --run-id`
      return Effect.fail(new RunStoreError({ reason: "RunNotFound", message }))
    }),

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

  /** `ClaimLost`: the owner's claim was dropped (its lease expired and another owner took over). */
  claimLost: (runId: string, ownerId: string) =>
    Effect.flatMap(runs.claimsOf(runId), (claims) =>
      Effect.fail(
        new RunStoreError({
          reason: "ClaimLost",
          message: `run "${runId}": this process (${ownerId}) no longer holds the run${
            owners === "one" && claims[0] !== undefined
              ? ` — ${claims[0].ownerId} took it over after the lease expired`
              : " — its lease expired (no heartbeat in time) and another worker took its questions"
          }; it stopped writing (its finished questions are saved)`
        })
      ))
})

export type RunFailures = ReturnType<typeof runFailures>
