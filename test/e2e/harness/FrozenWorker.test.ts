// Issue 42: a worker frozen with SIGSTOP past its lease does not stall a shared PostgreSQL run — the other
// worker takes its questions over and completes the run while it is stopped — and once it wakes, its late
// saves are refused (the other worker's answers stand; its calls are kept as superseded run-level calls).
// The built CLI (the globalSetup builds dist/), each worker with its own openai-sim.
import { assert, describe, it } from "@effect/vitest"
import { samplesJsonl, samplesTrees, simEnv, start } from "../../support/harness/Cli.js"
import { policyScripts, sampleQuestions } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"
import { query, useCluster } from "../../support/postgres/vitest.js"

const pg = useCluster()

const until = async (check: () => Promise<boolean>, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("a frozen worker on a shared run (built CLI)", () => {
  it("SIGSTOP past its lease: the run completes without it, and its saves after SIGCONT are refused", async () => {
    const url = await pg.database("frozen")
    const questions = sampleQuestions()
    // The frozen worker's model is slow, so it holds questions in flight when it is stopped.
    const slow = await Sim.start({ chat: policyScripts({ questions, viewSteps: 1, agentDelayMs: 1_500 }) })
    const quick = await Sim.start({ chat: policyScripts({ questions, viewSteps: 1, agentDelayMs: 100 }) })
    const args = ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", url, "--run-id", "frozen"]
    // A lease of 4 s: generous beside a heartbeat every 1.3 s on a loaded machine, short beside the test.
    const lease = { VTREE_LEASE_MS: "4000" }
    const frozen = start([...args, "--concurrency", "2"], simEnv(slow.url, lease))
    const pid = frozen.child.pid!
    try {
      const held = async () =>
        Number(
          (await query<{ n: string }>(
            url,
            `SELECT count(*) AS n FROM run_questions WHERE claimed_by LIKE '%:${pid}:%'`
          ))[0]!.n
        )
      await until(async () => (await held()) >= 2)
      frozen.child.kill("SIGSTOP")
      const byFrozen = async () =>
        Number(
          (await query<{ n: string }>(url, `SELECT count(*) AS n FROM predictions WHERE worker LIKE '%:${pid}:%'`))[0]!
            .n
        )
      const savedBeforeFreeze = await byFrozen()

      const other = start([...args, "--concurrency", "2"], simEnv(quick.url, lease))
      const result = await other.done
      assert.strictEqual(result.code, 0, result.stderr)
      // Completed while the frozen worker was still stopped: it stalled nothing.
      const [run] = await query<{ status: string }>(url, "SELECT status FROM runs WHERE run_id = 'frozen'")
      assert.strictEqual(run?.status, "completed")

      frozen.child.kill("SIGCONT")
      const woke = await frozen.done
      // It finds nothing left to do and leaves the completed run as it was.
      assert.strictEqual(woke.code, 0, woke.stderr)
      // Whatever it finished after waking was not saved as its answer: the other worker's stand.
      assert.strictEqual(await byFrozen(), savedBeforeFreeze)
      const rows = await query<{ question_id: string }>(url, "SELECT question_id FROM predictions ORDER BY question_id")
      assert.deepStrictEqual(rows.map((row) => row.question_id), questions.map((q) => q.questionId).sort())
      const [after] = await query<{ status: string }>(url, "SELECT status FROM runs WHERE run_id = 'frozen'")
      assert.strictEqual(after?.status, "completed")
      // Every call the frozen worker's model served is stored once: with its answers saved before the freeze,
      // or, for the questions taken over meanwhile, superseded (tokens spent stay counted).
      const [stored] = await query<{ n: string; superseded: string }>(
        url,
        `SELECT count(*) AS n, COALESCE(SUM(superseded), 0) AS superseded FROM llm_calls WHERE endpoint = '${slow.url}'`
      )
      assert.strictEqual(Number(stored!.n), slow.requests.length)
      assert.isAtLeast(Number(stored!.superseded), 1)
    } finally {
      frozen.child.kill("SIGCONT")
      frozen.child.kill("SIGKILL")
      await Promise.all([slow.close(), quick.close()])
    }
  }, 240_000)
})
