// The built CLI (`node dist/bin.js infer`) against openai-sim, stopped by signals: kill -9 then --resume,
// Ctrl-C (SIGINT) → exit 130. The e2e globalSetup builds dist/ first.
import { assert, describe, it } from "@effect/vitest"
import {
  countPredictions,
  predictions,
  readDb,
  run,
  runs,
  simEnv,
  start,
  waitUntil
} from "../../support/harness/Cli.js"
import { agentModel, sampleQuestions } from "../../support/harness/Policy.js"
import { inferArgs, simRuns } from "../../support/harness/SimRuns.js"

const questions = sampleQuestions()

const { setup } = simRuns(questions)

describe("vtree infer (built CLI against openai-sim, signals)", () => {
  it("after kill -9 mid-run, --resume answers every question exactly once", async () => {
    const { db, sim } = await setup({ agentDelayMs: 150 })
    // A short lease, so the dead owner's claim expires within the test (test/e2e/harness/RunOwnership.test.ts covers the refusal).
    const lease = { VTREE_LEASE_MS: "1500" }
    const first = start(inferArgs(db, "--concurrency", "1"), simEnv(sim.url, lease))
    await waitUntil(() => countPredictions(db) >= 2)
    first.child.kill("SIGKILL")
    const killed = await first.done
    assert.strictEqual(killed.signal, "SIGKILL")
    const before = predictions(db)
    assert.isBelow(before.length, questions.length)
    assert.strictEqual(runs(db)[0]!.status, "running")
    await waitUntil(() =>
      readDb(db, (h) => (h.prepare("SELECT max(expires_at) AS t FROM run_claims").get() as { t: number }).t) <
        Date.now()
    )

    const agentRequestsBefore = sim.requests.length
    const resumed = await run(inferArgs(db, "--resume"), simEnv(sim.url, lease))
    assert.strictEqual(resumed.code, 0, resumed.stderr)
    const after = predictions(db)
    assert.deepStrictEqual(after.map((r) => r.question_id), questions.map((q) => q.questionId))
    assert.strictEqual(new Set(after.map((r) => r.run_id)).size, 1)
    // Saved questions were skipped, not re-asked: their rows are untouched.
    for (const row of before) assert.deepStrictEqual(after.find((r) => r.question_id === row.question_id), row)
    const askedAgain = sim.requests.slice(agentRequestsBefore).filter((r) => r.model === "agent-model").map((r) =>
      JSON.stringify(r.body)
    )
    for (const row of before) {
      const text = questions.find((q) => q.questionId === row.question_id)!.question
      assert.isFalse(askedAgain.some((body) => body.includes(text)), `question ${row.question_id} was asked again`)
    }
    assert.strictEqual(runs(db)[0]!.status, "completed")
    assert.match(resumed.stdout, /\(\d\/7\)/)
  }, 60_000)

  it("on SIGINT exits quickly, marks the run interrupted and keeps finished questions", async () => {
    // Four agent calls are answered (two workers: at least one question finishes), then every call
    // stalls, so the signal lands with two calls open that only cancelling can end.
    const { db, sim } = await setup({ stallAgentAfter: 4 })
    const running = start(inferArgs(db, "--concurrency", "2"), simEnv(sim.url))
    const stalled = () => sim.requests.filter((r) => r.model === agentModel).slice(4)
    await waitUntil(() => countPredictions(db) >= 1)
    await sim.waitFor(() => stalled().length === 2, 20_000)
    const saved = countPredictions(db)
    running.child.kill("SIGINT")
    const result = await running.done
    assert.strictEqual(result.code, 130)
    assert.strictEqual(runs(db)[0]!.status, "interrupted")
    const kept = predictions(db)
    assert.isAtLeast(kept.length, saved)
    assert.isBelow(kept.length, questions.length)
    assert.isTrue(kept.every((row) => row.stop_reason === "finished"))
    assert.match(result.stderr, /interrupted — finished questions of run .* continue with --resume --run-id/)
    // The model calls in flight were cancelled, not left running (a stalled call never ends otherwise).
    await sim.waitFor(() => sim.inFlight === 0, 3_000)
    assert.isTrue(stalled().every((r) => r.aborted))
  }, 60_000)
})
