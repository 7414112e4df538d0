// Issue 11 through the built CLI: one owner per run — two processes resuming at once, kill -9 then a
// stale run taken over. The e2e globalSetup builds dist/ first. The question set and storage failures
// run in-process: test/integration/harness/RunStorage.test.ts.
import { assert, describe, it } from "@effect/vitest"
import {
  countPredictions,
  leasesExpired,
  predictions,
  readDb,
  run,
  runs,
  simEnv,
  start,
  waitUntil
} from "../../support/harness/Cli.js"
import { firstAsks, inferArgs, resumeArgs, simRuns, vtreeLines } from "../../support/harness/SimRuns.js"

const { questions, setup } = simRuns()

const reportStatus = async (db: string): Promise<string> => {
  const result = await run(["report", "--db", db, "--format", "json"], {})
  return result.code === 0
    ? (JSON.parse(result.stdout) as { status: string }).status
    : `exit ${result.code}: ${result.stderr}`
}

describe("one owner per run (built CLI)", () => {
  it("two resumes started at once: exactly one runs, the other is refused with one line naming the owner", async () => {
    const { db, sim } = await setup({ agentDelayMs: 250 })
    const first = start(inferArgs(db, "--concurrency", "1", "--run-id", "r1"), simEnv(sim.url))
    await waitUntil(() => countPredictions(db) >= 2)
    first.child.kill("SIGINT")
    await first.done
    assert.strictEqual(runs(db)[0]!.status, "interrupted")
    const saved = predictions(db).length
    sim.reset()

    const [one, two] = await Promise.all([
      run(resumeArgs(db, "--run-id", "r1"), simEnv(sim.url)),
      run(resumeArgs(db, "--run-id", "r1"), simEnv(sim.url))
    ])
    const codes = [one.code, two.code].sort()
    assert.deepStrictEqual(codes, [0, 1], `${one.stderr}\n---\n${two.stderr}`)
    const loser = one.code === 1 ? one : two
    const lines = vtreeLines(loser.stderr)
    assert.strictEqual(lines.length, 1, loser.stderr)
    assert.match(
      lines[0]!,
      /^vtree: run "r1" is being run by \S+:\d+:\S+ \(heartbeat \d+ s ago, lease until .* UTC\) — .*--takeover/
    )
    assert.notInclude(loser.stderr, "    at ")

    // Every remaining question was asked once, by the winner alone.
    const asked = firstAsks(sim, questions)
    assert.strictEqual(asked.size, questions.length - saved)
    for (const [id, count] of asked) assert.strictEqual(count, 1, `question ${id} asked ${count} times`)
    assert.deepStrictEqual(predictions(db).map((r) => r.question_id), questions.map((q) => q.questionId))
    assert.strictEqual(runs(db)[0]!.status, "completed")
  }, 90_000)

  it(
    "kill -9: resume is refused while the lease lives, the run then reads stale, and --resume takes it over",
    async () => {
      const { db, sim } = await setup({ agentDelayMs: 150 })
      const lease = { VTREE_LEASE_MS: "2000" }
      const first = start(inferArgs(db, "--concurrency", "1"), simEnv(sim.url, lease))
      await waitUntil(() => countPredictions(db) >= 2)
      first.child.kill("SIGKILL")
      assert.strictEqual((await first.done).signal, "SIGKILL")
      const before = predictions(db)
      assert.strictEqual(runs(db)[0]!.status, "running")

      // The lease may or may not have run out while the refused process started; both answers are one line.
      const early = await run(resumeArgs(db, "--takeover"), simEnv(sim.url, lease))
      if (early.code !== 0) {
        assert.strictEqual(vtreeLines(early.stderr).length, 1, early.stderr)
        assert.match(early.stderr, /is being run by .* --takeover/)
        await waitUntil(() => leasesExpired(db), 10_000)
        assert.strictEqual(await reportStatus(db), "stale")
        const resumed = await run(resumeArgs(db), simEnv(sim.url, lease))
        assert.strictEqual(resumed.code, 0, resumed.stderr)
      }
      const after = predictions(db)
      assert.deepStrictEqual(
        after.map((r) => r.question_id),
        questions.map((q) => q.questionId)
      )
      for (const row of before) assert.deepStrictEqual(after.find((r) => r.question_id === row.question_id), row)
      assert.strictEqual(await reportStatus(db), "completed")
      assert.strictEqual(
        readDb(db, (h) => (h.prepare("SELECT count(*) AS n FROM run_claims").get() as { n: number }).n),
        0
      )
    },
    90_000
  )
})
