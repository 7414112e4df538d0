// Who answered a shared run: the questions each worker saved, and whether its lease is live.
import type { SummaryInput, WorkerSummary } from "./Summary.js"

/** One row per worker that saved a question or holds a claim, the busiest first. */
export const workersOf = (input: SummaryInput, now: number | undefined): ReadonlyArray<WorkerSummary> => {
  const counts = new Map<string, number>()
  for (const p of input.predictions) {
    if (p.worker != null) counts.set(p.worker, (counts.get(p.worker) ?? 0) + 1)
  }
  const claims = new Map((input.run.claims ?? []).map((claim) => [claim.ownerId, claim]))
  const names = [...new Set([...counts.keys(), ...claims.keys()])]
  return names
    .map((worker) => {
      const claim = claims.get(worker)
      return {
        worker,
        questions: counts.get(worker) ?? 0,
        live: claim === undefined ? false : now === undefined ? null : claim.expiresAt > now,
        heartbeatAt: claim === undefined ? null : new Date(claim.heartbeatAt).toISOString()
      }
    })
    .sort((a, b) => b.questions - a.questions || (a.worker < b.worker ? -1 : 1))
}
