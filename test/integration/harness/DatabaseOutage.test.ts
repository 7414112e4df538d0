// Issue 42: two `vtree infer` workers (in-process, each with its own openai-sim so every model call is counted
// where it was made) on one PostgreSQL run ride out a 20 s stop of the server mid-run: claims, heartbeats and
// saves ask again until it is back, the run ends completed, and every question is saved once with every call
// stored once. A throwaway cluster of its own: the shared one must not go down under other files' tests.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { samplesJsonl, samplesTrees, simEnv, tempDir } from "../../support/harness/Cli.js"
import { policyScripts, type SampleQuestion, sampleQuestions } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"
import { type PgCluster, query, start } from "../../support/postgres/index.js"

/** The sample questions, each asked `copies` times under its own id and wording: a run long enough to stop midway. */
const writeQuestions = (dir: string, copies: number) => {
  const rows = readFileSync(samplesJsonl, "utf8").split("\n").filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  const out = Array.from({ length: copies }, (_, c) =>
    rows.map((row) => ({
      ...row,
      question_id: `${row["question_id"]}-c${c + 1}`,
      question: `${row["question"]} (copy ${c + 1})`
    }))).flat()
  const file = join(dir, "questions.jsonl")
  writeFileSync(file, out.map((row) => JSON.stringify(row)).join("\n") + "\n")
  const base = new Map(sampleQuestions().map((q) => [q.questionId, q]))
  const questions: Array<SampleQuestion> = out.map((row) => ({
    ...base.get(String(row["question_id"]).replace(/-c\d+$/, ""))!,
    questionId: String(row["question_id"]),
    question: String(row["question"])
  }))
  return { file, questions }
}

const until = async (check: () => Promise<boolean>, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

let cluster: PgCluster
beforeAll(async () => {
  cluster = await start()
}, 60_000)
afterAll(async () => {
  await cluster.stop()
})

describe("a PostgreSQL outage under a shared run", () => {
  it(
    "two workers survive a 20 s stop of the server: completed, every question saved once, every call stored once",
    async () => {
      const url = await cluster.createDatabase("outage")
      const { cleanup, dir } = tempDir()
      const { file, questions } = writeQuestions(dir, 10)
      const sims = await Promise.all(
        [0, 1].map(() => Sim.start({ chat: policyScripts({ questions, viewSteps: 1, agentDelayMs: 200 }) }))
      )
      try {
        const args = ["infer", "--trees", samplesTrees, "--questions", file, "--db", url, "--run-id", "shared"]
        const workers = sims.map((sim) => runCli([...args, "--concurrency", "2"], simEnv(sim.url)))
        const saved = async () =>
          Number((await query<{ n: string }>(url, "SELECT count(*) AS n FROM predictions"))[0]!.n)
        await until(async () => (await saved()) >= 6)
        await cluster.stopServer()
        await new Promise((resolve) => setTimeout(resolve, 20_000))
        await cluster.startServer()
        const results = await Promise.all(workers)
        for (const result of results) assert.strictEqual(result.code, 0, result.stderr)
        // While the server was down each worker said so on its progress line (plain lines: not a terminal).
        assert.isTrue(results.some((result) => result.stderr.includes("database unreachable, retrying")))

        const [run] = await query<{ status: string }>(url, "SELECT status FROM runs WHERE run_id = 'shared'")
        assert.strictEqual(run?.status, "completed")
        const rows = await query<{ question_id: string }>(
          url,
          "SELECT question_id FROM predictions WHERE run_id = 'shared' ORDER BY question_id"
        )
        assert.deepStrictEqual(rows.map((row) => row.question_id), questions.map((q) => q.questionId).sort())
        // No save inserted twice: every call a sim served is stored once, none superseded by a retried save.
        const [calls] = await query<{ n: string; superseded: string }>(
          url,
          "SELECT count(*) AS n, COALESCE(SUM(superseded), 0) AS superseded FROM llm_calls WHERE run_id = 'shared'"
        )
        assert.strictEqual(Number(calls!.n), sims[0]!.requests.length + sims[1]!.requests.length)
        assert.strictEqual(Number(calls!.superseded), 0)
        const [counts] = await query<{ question_count: number; done_count: number }>(
          url,
          "SELECT question_count, done_count FROM run_queues WHERE run_id = 'shared'"
        )
        assert.deepStrictEqual(counts, { question_count: questions.length, done_count: questions.length })
      } finally {
        await Promise.all(sims.map((sim) => sim.close()))
        cleanup()
      }
    },
    240_000
  )
})
