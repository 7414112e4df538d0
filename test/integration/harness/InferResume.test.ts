// `vtree infer --resume --run-id R --db D` with nothing else: the trees, questions and settings come from the run's
// record (issue 44); a missing required option and `--log-level` anywhere on the line. In-process, against openai-sim.
import { assert, describe, it } from "@effect/vitest"
import { copyFileSync, cpSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { predictions, runs, samplesJsonl, samplesTrees, simEnv } from "../../support/harness/Cli.js"
import { simRuns, vtreeLines } from "../../support/harness/SimRuns.js"

const { setup } = simRuns()

/** A port nothing listens on: taken, then let go. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** A run `r` started with `args` against a closed port: it stops failed with nothing saved, ready to resume. */
const deadRun = async (db: string, args: ReadonlyArray<string>) => {
  const port = await closedPort()
  const dead = await runCli(
    ["infer", "--db", db, "--run-id", "r", "--concurrency", "8", ...args],
    simEnv(`http://127.0.0.1:${port}/v1`, { VTREE_PROVIDER_RETRIES: "0", VTREE_BREAKER_CALLS: "2" })
  )
  assert.strictEqual(dead.code, 1, dead.stderr)
  assert.strictEqual(runs(db)[0]!.status, "failed")
}

describe("vtree infer --resume from the run's record", () => {
  it("needs only --run-id and --db: trees, questions, selection and --protocol tools come from the run", async () => {
    const { db, sim } = await setup({ protocol: "tools" })
    await deadRun(db, ["--trees", samplesTrees, "--questions", samplesJsonl, "--protocol", "tools", "--n-samples", "3"])
    const resumed = await runCli(["infer", "--resume", "--run-id", "r", "--db", db], simEnv(sim.url))
    assert.strictEqual(resumed.code, 0, resumed.stderr)
    const rows = predictions(db)
    assert.strictEqual(rows.length, 3)
    assert.isTrue(rows.every((row) => row.stop_reason === "finished"))
    assert.strictEqual(runs(db)[0]!.status, "completed")
    // The agent was asked with native tools, as the run was started.
    assert.isTrue(sim.requests.some((request) => request.body["tools"] !== undefined))
  }, 60_000)

  it("keeps today's refusal of an explicit value that differs from the run's", async () => {
    const { db, sim } = await setup({ protocol: "tools" })
    await deadRun(db, ["--trees", samplesTrees, "--questions", samplesJsonl, "--protocol", "tools", "--n-samples", "3"])
    const refused = await runCli(
      ["infer", "--resume", "--run-id", "r", "--db", db, "--protocol", "json"],
      simEnv(sim.url)
    )
    assert.strictEqual(refused.code, 1, refused.stderr)
    assert.match(
      vtreeLines(refused.stderr).join("\n"),
      /^vtree: --protocol json: run r was started with --protocol tools/
    )
  }, 60_000)

  it(
    "names the stored trees folder or question file that is gone, and the option to pass; the option then works",
    async () => {
      const { db, dir, sim } = await setup()
      const trees = join(dir, "trees")
      const questions = join(dir, "questions.jsonl")
      cpSync(samplesTrees, trees, { recursive: true })
      copyFileSync(samplesJsonl, questions)
      await deadRun(db, ["--trees", trees, "--questions", questions, "--n-samples", "2"])
      rmSync(trees, { recursive: true })
      const noTrees = await runCli(["infer", "--resume", "--run-id", "r", "--db", db], simEnv(sim.url))
      assert.strictEqual(noTrees.code, 1, noTrees.stderr)
      assert.deepStrictEqual(vtreeLines(noTrees.stderr), [
        `vtree: --resume: run r's trees folder ${trees} no longer exists — pass --trees with where it is now`
      ])
      rmSync(questions)
      const noQuestions = await runCli(
        ["infer", "--resume", "--run-id", "r", "--db", db, "--trees", samplesTrees],
        simEnv(sim.url)
      )
      assert.strictEqual(noQuestions.code, 1, noQuestions.stderr)
      assert.deepStrictEqual(vtreeLines(noQuestions.stderr), [
        `vtree: --resume: run r's question file ${questions} no longer exists — pass --questions with where it is now`
      ])
      // The same questions elsewhere are the same question set.
      const moved = await runCli(
        ["infer", "--resume", "--run-id", "r", "--db", db, "--trees", samplesTrees, "--questions", samplesJsonl],
        simEnv(sim.url)
      )
      assert.strictEqual(moved.code, 0, moved.stderr)
      assert.strictEqual(predictions(db).length, 2)
    },
    60_000
  )
})

describe("vtree's command line", () => {
  it("a missing required option is one vtree: line naming it and the fix", async () => {
    const { db, sim } = await setup()
    const result = await runCli(["infer", "--questions", samplesJsonl, "--db", db], simEnv(sim.url))
    assert.strictEqual(result.code, 1, result.stderr)
    assert.deepStrictEqual(result.stderr.trim().split("\n"), [
      "vtree: --trees is required (the folder holding one <videoID>/tree.json per video) — pass --trees DIR, or --resume to continue a run"
    ])
  })

  it("a missing required option of another command is one vtree: line too", async () => {
    const result = await runCli(["tree", "import", "--videos", "x"], {})
    assert.strictEqual(result.code, 1, result.stderr)
    const lines = result.stderr.trim().split("\n")
    assert.strictEqual(lines.length, 1, result.stderr)
    assert.match(lines[0]!, /^vtree: --\S+ is required — pass it \(`vtree tree import --help` lists the options\)$/)
  })

  for (const where of ["before", "after"] as const) {
    it(`accepts --log-level debug ${where} the subcommand`, async () => {
      const { db, sim } = await setup()
      const command = ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db, "--n-samples", "1"]
      const args = where === "before" ? ["--log-level", "debug", ...command] : [...command, "--log-level", "debug"]
      const result = await runCli(args, simEnv(sim.url))
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stderr, /level=DEBUG .*infer providers/)
    }, 60_000)
  }
})
