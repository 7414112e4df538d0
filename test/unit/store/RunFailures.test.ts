// The store's refusals as a person reads them: a missing run names the runs there are, but never the
// very run it calls missing (issue 33: "no run "rp" — available: rp" after a database was replaced).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RunStored } from "../../../src/layers/sql/Rows.js"
import { runFailures } from "../../../src/layers/sql/RunFailures.js"
import type { RunRepository } from "../../../src/layers/sql/RunRepository.js"
import type { FileChange, StoreContext } from "../../../src/layers/sql/StoreContext.js"
import { RunStoreError } from "../../../src/services/RunStore.js"

const stored = (runId: string): RunStored => ({
  runId,
  startedAt: 0,
  finishedAt: null,
  status: "running",
  config: { protocol: "json", benchmark: "videomme", answers: null },
  selection: null
})

/** The failures over a database that lists `listed` whatever is asked, its file as `change` says. */
const failures = (listed: ReadonlyArray<string>, change?: FileChange) =>
  runFailures(
    { name: "runs.db", owners: "one", fileChange: () => change } as StoreContext,
    // Only the listing is read on this path.
    { allRuns: () => Effect.succeed(listed.map(stored)) } as unknown as RunRepository
  )

const failureOf = <E>(effect: Effect.Effect<never, E>): RunStoreError => {
  const error = Effect.runSync(Effect.flip(effect))
  if (!(error instanceof RunStoreError)) throw new Error(`expected a RunStoreError, got ${String(error)}`)
  return error
}

describe("RunFailures.notFound", () => {
  it("names the runs there are when the asked one is not among them", () => {
    const error = failureOf(failures(["alpha", "beta"]).notFound("gamma"))
    assert.strictEqual(error.reason, "RunNotFound")
    assert.strictEqual(
      error.message,
      "runs.db: no run \"gamma\" — available: alpha, beta; pass one of them with --run-id"
    )
  })

  it("a run read as missing that the listing holds changed under this process: said so, never 'available: rp'", () => {
    const error = failureOf(failures(["rp"]).notFound("rp"))
    assert.strictEqual(error.reason, "DbChanged")
    assert.match(error.message, /^runs\.db: run "rp" read as missing, yet the database lists it — its rows changed /)
    assert.include(error.message, "--resume --run-id rp")
    assert.notInclude(error.message, "available")
  })

  it("a database file replaced under the run is named as such before anything is read from it", () => {
    const error = failureOf(failures(["rp"], "replaced").notFound("rp"))
    assert.strictEqual(error.reason, "DbChanged")
    assert.match(error.message, /^runs\.db: the database file was replaced while run "rp" was going/)
  })
})
