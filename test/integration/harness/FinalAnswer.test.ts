// A final answer at the budget (issue 28): `vtree infer` run in-process against openai-sim, whose scripted
// agent wants two looks before it answers but answers at once when told its steps are spent.
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { runCli } from "../../support/cli/InProcess.js"
import { predictions, readDb, runs, simEnv } from "../../support/harness/Cli.js"
import { agentModel, sampleQuestions } from "../../support/harness/Policy.js"
import { inferArgs, resumeArgs, simRuns, vtreeLines } from "../../support/harness/SimRuns.js"
import * as Sim from "../../support/openai-sim/index.js"

const questions = sampleQuestions()
const { cleanups, setup } = simRuns(questions)

const forcedColumn = (db: string) =>
  new Map(
    readDb(db, (h) =>
      h.prepare("SELECT question_id, forced FROM predictions").all() as Array<
        { question_id: string; forced: number }
      >).map((row) => [row.question_id, row.forced])
  )

const agentBodies = (sim: Sim.OpenAiSim) => sim.requests.filter((r) => r.model === agentModel).map((r) => r.body)

const storedConfig = (db: string) => JSON.parse(runs(db)[0]!.config_json) as Record<string, unknown>

describe("vtree infer: a final answer when the steps run out", () => {
  it(
    "asks once more at the budget: the answer counts, forced, in the database, the summary and the export",
    async () => {
      const wrong = new Set(["001-2"])
      const { db, dir, sim } = await setup({ viewSteps: 2, wrong })
      const result = await runCli(
        inferArgs(db, "--max-steps", "1", "--run-id", "fa-1", "--concurrency", "3"),
        simEnv(sim.url)
      )
      assert.strictEqual(result.code, 0, result.stderr)

      const rows = predictions(db)
      assert.strictEqual(rows.length, questions.length)
      for (const row of rows) {
        const question = questions.find((q) => q.questionId === row.question_id)!
        assert.strictEqual(row.stop_reason, "budget_exceeded", row.question_id)
        assert.strictEqual(
          row.prediction,
          wrong.has(row.question_id) ? "ABCD"[("ABCD".indexOf(question.answer) + 1) % 4] : question.answer
        )
        assert.strictEqual(row.steps_used, 2)
      }
      assert.isTrue([...forcedColumn(db).values()].every((forced) => forced === 1))
      assert.strictEqual(storedConfig(db)["finalAnswer"], true)
      // One look and one final call per question; the final call went out after the look's output.
      assert.strictEqual(agentBodies(sim).length, 2 * questions.length)

      const n = questions.length
      assert.include(
        result.stdout,
        `Final answer at the budget on · forced answers ${n}, accuracy ${((100 * (n - 1)) / n).toFixed(1)}%`
      )
      assert.include(result.stdout, `accuracy without them 0.0% (0/${n})`)

      const exported = await runCli([
        "export",
        "--db",
        db,
        "--run-id",
        "fa-1",
        "--format",
        "jsonl",
        "--out",
        `${dir}/out.jsonl`
      ])
      assert.strictEqual(exported.code, 0, exported.stderr)
      const lines = readFileSync(`${dir}/out.jsonl`, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      assert.deepStrictEqual(new Set(lines.map((line) => line.forced)), new Set([true]))
      const report = await runCli(["report", "--db", db, "--run-id", "fa-1", "--format", "json"])
      assert.strictEqual(report.code, 0, report.stderr)
      assert.strictEqual(JSON.parse(report.stdout).forced.answers.total, n)
    },
    60_000
  )

  it("with --protocol tools the final call offers submit_answer alone", async () => {
    const { db, sim } = await setup({ viewSteps: 2, protocol: "tools" })
    const result = await runCli(
      inferArgs(db, "--max-steps", "1", "--protocol", "tools", "--n-samples", "2"),
      simEnv(sim.url)
    )
    assert.strictEqual(result.code, 0, result.stderr)
    const offered = agentBodies(sim).map((body) =>
      (body["tools"] as ReadonlyArray<{ function: { name: string } }>).map((tool) => tool.function.name)
    )
    assert.strictEqual(offered.length, 4)
    assert.strictEqual(offered.filter((names) => names.length === 1 && names[0] === "submit_answer").length, 2)
    assert.isTrue(predictions(db).every((row) => row.prediction !== null && row.stop_reason === "budget_exceeded"))
    assert.isTrue([...forcedColumn(db).values()].every((forced) => forced === 1))
  }, 60_000)

  it("--no-final-answer keeps the reference behaviour: unanswered, no extra call, the mode stored", async () => {
    const { db, sim } = await setup({ viewSteps: 2 })
    const result = await runCli(inferArgs(db, "--max-steps", "1", "--no-final-answer"), simEnv(sim.url))
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isTrue(predictions(db).every((row) => row.prediction === null && row.stop_reason === "budget_exceeded"))
    assert.isTrue([...forcedColumn(db).values()].every((forced) => forced === 0))
    assert.strictEqual(agentBodies(sim).length, questions.length)
    assert.strictEqual(storedConfig(db)["finalAnswer"], false)
    assert.include(result.stdout, "Final answer at the budget off (--no-final-answer) · no forced answers")
  }, 60_000)

  it(
    "--resume asks with the run's own mode, and refuses --no-final-answer on a run that has the final answer",
    async () => {
      // Every agent call fails: each question ends in error, to be asked again on --resume --retry-errors.
      const down = await Sim.start({ chat: { "*": () => ({ fault: "status", status: 500 }) } })
      cleanups.push(() => down.close())
      const { db, sim } = await setup({ viewSteps: 2 })
      const first = await runCli(
        inferArgs(db, "--max-steps", "1", "--no-final-answer", "--run-id", "off-1"),
        simEnv(down.url)
      )
      assert.isTrue(predictions(db).every((row) => row.stop_reason === "error"), first.stderr)

      const resumed = await runCli(resumeArgs(db, "--max-steps", "1", "--retry-errors"), simEnv(sim.url))
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      assert.isTrue(predictions(db).every((row) => row.prediction === null && row.stop_reason === "budget_exceeded"))
      assert.strictEqual(agentBodies(sim).length, questions.length)

      const { db: onDb, sim: onSim } = await setup({ viewSteps: 2 })
      const on = await runCli(inferArgs(onDb, "--n-samples", "1", "--run-id", "on-1"), simEnv(onSim.url))
      assert.strictEqual(on.code, 0, on.stderr)
      const refused = await runCli(resumeArgs(onDb, "--no-final-answer"), simEnv(onSim.url))
      assert.strictEqual(refused.code, 1)
      assert.deepStrictEqual(vtreeLines(refused.stderr), [
        "vtree: --no-final-answer: run on-1 was started with the final answer at the budget on — resume it without --no-final-answer, or start a new run"
      ])
    },
    90_000
  )
})
