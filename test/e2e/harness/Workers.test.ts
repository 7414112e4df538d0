// End to end: three `vtree infer` processes on one PostgreSQL run (issue 15), each against its own
// openai-sim so every model call can be traced to the worker that made it; one is killed with
// SIGKILL midway. The globalSetup builds dist/ first.
import { assert, describe, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { run, type Running, samplesJsonl, samplesTrees, simEnv, start, tempDir } from "../../support/harness/Cli.js"
import { policyScripts, type SampleQuestion, sampleQuestions } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"
import { query, useCluster } from "../../support/postgres/vitest.js"

const pg = useCluster()

const waitUntil = async (check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  // The workers create the tables: until then a query fails, which is "not yet".
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The sample questions, each asked `copies` times under its own id and wording: a run long enough to kill midway. */
const writeQuestions = (dir: string, copies: number) => {
  const rows = readFileSync(samplesJsonl, "utf8").split("\n").filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  const out: Array<Record<string, unknown>> = []
  for (let copy = 1; copy <= copies; copy++) {
    for (const row of rows) {
      out.push({ ...row, question_id: `${row["question_id"]}-c${copy}`, question: `${row["question"]} (copy ${copy})` })
    }
  }
  const file = join(dir, "questions.jsonl")
  writeFileSync(file, out.map((row) => JSON.stringify(row)).join("\n") + "\n")
  const base = new Map(sampleQuestions().map((q) => [q.questionId, q]))
  const questions: Array<SampleQuestion> = out.map((row) => {
    const original = base.get(String(row["question_id"]).replace(/-c\d+$/, ""))!
    return { ...original, questionId: String(row["question_id"]), question: String(row["question"]) }
  })
  return { file, questions }
}

// One view_node step, then the answer: 2 agent calls and 4 tool calls (extract + verify, twice) each.
const callsPerQuestion = 6

describe("many workers on one PostgreSQL run (built CLI)", () => {
  it(
    "three workers, one killed with SIGKILL midway: every question once, run completed, every served call stored once",
    async () => {
      const url = await pg.database("workers")
      const { cleanup, dir } = tempDir()
      const { file, questions } = writeQuestions(dir, 6)
      const policy = { questions, viewSteps: 1, agentDelayMs: 250 }
      const sims = await Promise.all([0, 1, 2].map(() => Sim.start({ chat: policyScripts(policy) })))
      const workers: Array<Running> = []
      try {
        const args = [
          "infer",
          "--trees",
          samplesTrees,
          "--questions",
          file,
          "--db",
          url,
          "--run-id",
          "shared",
          "--concurrency",
          "2"
        ]
        // A short lease, so the killed worker's questions open up within the test (long enough that a
        // loaded CI machine does not miss a heartbeat: they come every second).
        for (const sim of sims) workers.push(start(args, simEnv(sim.url, { VTREE_LEASE_MS: "3000" })))
        const [victim, ...survivors] = workers
        const victimPid = victim!.child.pid!
        const savedBy = async (pid: number) =>
          Number(
            (await query<{ n: string }>(url, `SELECT count(*) AS n FROM predictions WHERE worker LIKE '%:${pid}:%'`))[
              0
            ]!.n
          )
        await waitUntil(async () => (await savedBy(victimPid)) >= 2)

        // While it runs, the report shows the queue and who is at work.
        const live = await run(["report", "--db", url, "--run-id", "shared"], {})
        assert.strictEqual(live.code, 0, live.stderr)
        assert.match(live.stdout, /Run shared · running/)
        // Three workers run; on a machine loaded enough that a heartbeat comes later than the 3 s lease, the
        // report rightly counts that worker as not live at that moment (CI at load 22 saw it), so 1 to 3.
        assert.match(live.stdout, /Progress \d+\/42 saved .* in hand .* open · [1-3] live workers?/)
        assert.match(live.stdout, /Workers\n/)

        victim!.child.kill("SIGKILL")
        const killed = await victim!.done
        assert.strictEqual(killed.signal, "SIGKILL")
        const results = await Promise.all(survivors.map((worker) => worker.done))
        for (const result of results) assert.strictEqual(result.code, 0, result.stderr)
        // Each worker's progress line counted the whole run from the store, not only its own answers.
        for (const result of results) assert.match(result.stderr, /run shared: \d+\/42 · [23] workers \(\d+ here\)/)

        const rows = await query<{ question_id: string; worker: string; prompt_tokens: number; stop_reason: string }>(
          url,
          "SELECT question_id, worker, prompt_tokens, stop_reason FROM predictions WHERE run_id = 'shared' ORDER BY question_id"
        )
        assert.deepStrictEqual(rows.map((row) => row.question_id), questions.map((q) => q.questionId).sort())
        assert.isTrue(
          rows.every((row) => row.stop_reason === "finished"),
          JSON.stringify(rows.filter((row) => row.stop_reason !== "finished"))
        )
        const [status] = await query<{ status: string }>(url, "SELECT status FROM runs WHERE run_id = 'shared'")
        assert.strictEqual(status?.status, "completed")
        const byWorker = new Map<string, number>()
        for (const row of rows) byWorker.set(row.worker, (byWorker.get(row.worker) ?? 0) + 1)
        assert.strictEqual(byWorker.size, 3, JSON.stringify([...byWorker]))

        // Every call a worker made is stored once: the survivors' exactly; the killed worker's minus
        // those of the questions it held unsaved when it died (two at most, at concurrency 2).
        const stored = await query<{ endpoint: string; n: string }>(
          url,
          "SELECT endpoint, count(*) AS n FROM llm_calls WHERE run_id = 'shared' GROUP BY endpoint"
        )
        const storedAt = (sim: Sim.OpenAiSim) => Number(stored.find((row) => row.endpoint === sim.url)?.n ?? 0)
        assert.strictEqual(storedAt(sims[1]!), sims[1]!.requests.length)
        assert.strictEqual(storedAt(sims[2]!), sims[2]!.requests.length)
        const lost = sims[0]!.requests.length - storedAt(sims[0]!)
        assert.isAtLeast(lost, 0)
        assert.isAtMost(lost, 2 * callsPerQuestion)
        // No call counted twice: each saved question holds exactly its own calls, and its token total is theirs.
        const perQuestion = await query<{ question_id: string; n: string; tokens: string }>(
          url,
          "SELECT question_id, count(*) AS n, sum(prompt_tokens) AS tokens FROM llm_calls WHERE run_id = 'shared' AND superseded = 0 GROUP BY question_id"
        )
        assert.strictEqual(perQuestion.length, questions.length)
        for (const row of perQuestion) {
          assert.strictEqual(Number(row.n), callsPerQuestion, row.question_id)
          assert.strictEqual(
            Number(row.tokens),
            rows.find((p) => p.question_id === row.question_id)!.prompt_tokens,
            row.question_id
          )
        }

        const done = await run(["report", "--db", url, "--run-id", "shared"], {})
        assert.strictEqual(done.code, 0, done.stderr)
        assert.match(done.stdout, /Run shared · completed/)
        const table = done.stdout.slice(done.stdout.indexOf("Workers\n"))
        assert.strictEqual(
          [...table.matchAll(/:\d+:[0-9a-z]{4}\s+(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0),
          questions.length
        )
      } finally {
        for (const worker of workers) worker.child.kill("SIGKILL")
        await Promise.all(sims.map((sim) => sim.close()))
        cleanup()
      }
    },
    180_000
  )

  it("a reader never sets up a database that holds no runs", async () => {
    const url = await pg.database("empty")
    const result = await run(["report", "--db", url], {})
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "holds no vtree runs")
    const tables = await query<{ n: string }>(
      url,
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'"
    )
    assert.strictEqual(Number(tables[0]!.n), 0)
  }, 60_000)
})
