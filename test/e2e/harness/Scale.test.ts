// End to end: the built CLI writing its run to a throwaway PostgreSQL cluster (`VTREE_DB_URL`), with two
// openai-sims behind every role; one is stopped mid-run and brought back at its URL. The globalSetup
// builds dist/ first.
import { assert, describe, it } from "@effect/vitest"
import { run, samplesJsonl, samplesTrees, simEnv, start } from "../../support/harness/Cli.js"
import { policyScripts, sampleQuestions } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"
import { query, useCluster } from "../../support/postgres/vitest.js"

const questions = sampleQuestions()

const pg = useCluster()

describe("vtree infer / report on PostgreSQL, two endpoints per role", () => {
  it(
    "one endpoint stopped mid-run: no question fails; back at its URL, it serves again; report reads the run",
    async () => {
      const url = await pg.database("e2e")
      // Slow enough agent replies that the run outlives the outage.
      const policy = { questions, viewSteps: 2, agentDelayMs: 500 }
      const a = await Sim.start({ chat: policyScripts(policy) })
      const b = await Sim.start({ chat: policyScripts(policy) })
      const port = Number(new URL(b.url).port)
      let back: Sim.OpenAiSim | undefined
      try {
        const env = simEnv(`${a.url},${b.url}`, {
          VTREE_DB_URL: url,
          VTREE_PROVIDER_EJECT_SECONDS: "0.2",
          VTREE_PROVIDER_RETRIES: "4"
        })
        const running = start([
          "infer",
          "--trees",
          samplesTrees,
          "--questions",
          samplesJsonl,
          "--run-id",
          "pg-1",
          "--concurrency",
          "2"
        ], env)
        await b.waitFor(() => b.requests.length >= 3, 30_000)
        await b.close()
        const served = a.requests.length
        await a.waitFor(() => a.requests.length >= served + 4, 30_000)
        back = await Sim.start({ chat: policyScripts(policy), port })
        const result = await running.done
        assert.strictEqual(result.code, 0, result.stderr)

        const rows = await query<{ question_id: string; stop_reason: string }>(
          url,
          "SELECT question_id, stop_reason FROM predictions ORDER BY question_id"
        )
        assert.deepStrictEqual(rows.map((row) => row.question_id), questions.map((q) => q.questionId).sort())
        assert.isTrue(rows.every((row) => row.stop_reason === "finished"), JSON.stringify(rows))
        assert.isAbove(back.requests.length, 0, "the endpoint that came back was used again")
        const endpoints = await query<{ endpoint: string }>(
          url,
          "SELECT DISTINCT endpoint FROM llm_calls ORDER BY endpoint"
        )
        assert.deepStrictEqual(endpoints.map((row) => row.endpoint), [a.url, b.url].sort())
        const [status] = await query<{ status: string }>(url, "SELECT status FROM runs WHERE run_id = 'pg-1'")
        assert.strictEqual(status?.status, "completed")

        const report = await run(["report", "--db", url], {})
        assert.strictEqual(report.code, 0, report.stderr)
        assert.match(report.stdout, /Run pg-1 · completed/)
      } finally {
        await a.close()
        await back?.close()
      }
    },
    120_000
  )

  it("a server that is not there is one line naming the URL without its password", async () => {
    const url = `postgres://vtree:hunter2@127.0.0.1:${pg.port() + 1}/none`
    const result = await run(["report"], { VTREE_DB_URL: url })
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stderr.trim().split("\n").length, 1, result.stderr)
    assert.include(result.stderr, "cannot open the run database")
    assert.notInclude(result.stderr, "hunter2")
  }, 60_000)
})
