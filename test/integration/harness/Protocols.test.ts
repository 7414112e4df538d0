// The CLI run in-process against openai-sim: a run with native function calling, and a JSON-protocol
// run whose replies come in every shape open models send.
import { afterEach, assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { predictions, readDb, runs, samplesJsonl, samplesTrees, simEnv, tempDir } from "../../support/harness/Cli.js"
import {
  agentModel,
  policyScripts,
  type ReplyStyle,
  replyStyles,
  sampleQuestions,
  wrongLetter
} from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"

const questions = sampleQuestions()

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const setup = async (policy: Omit<Parameters<typeof policyScripts>[0], "questions">) => {
  const sim = await Sim.start({ chat: policyScripts({ questions, ...policy }) })
  const temp = tempDir()
  cleanups.push(() => sim.close(), temp.cleanup)
  return { sim, db: join(temp.dir, "runs.db") }
}

const inferArgs = (
  db: string,
  ...more: Array<string>
) => ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db, ...more]

interface StepRow {
  readonly question_id: string
  readonly step: number
  readonly tool: string
  readonly reply_shapes: string
}

const stepRows = (db: string) =>
  readDb(
    db,
    (h) => h.prepare("SELECT question_id, step, tool, reply_shapes FROM steps ORDER BY question_id, step").all()
  ) as Array<StepRow>

const shapeCounts = (db: string) =>
  new Map(
    readDb(db, (h) =>
      h.prepare("SELECT question_id, reply_shapes_json FROM predictions").all() as Array<
        { question_id: string; reply_shapes_json: string }
      >)
      .map((row) => [row.question_id, JSON.parse(row.reply_shapes_json) as Record<string, number>])
  )

interface ToolMessage {
  readonly role: string
  readonly tool_call_id?: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { readonly name: string } }>
}

describe("vtree infer --protocol (in-process CLI against openai-sim)", () => {
  it("tools: every question finishes through native calls with the expected answer and step count", async () => {
    const wrong = new Set(["001-3"])
    const { db, sim } = await setup({ protocol: "tools", viewSteps: 2, wrong })
    const result = await runCli(
      inferArgs(db, "--protocol", "tools", "--run-id", "tools-1", "--concurrency", "3"),
      simEnv(sim.url)
    )
    assert.strictEqual(result.code, 0, result.stderr)

    const rows = predictions(db)
    assert.deepStrictEqual(rows.map((r) => r.question_id), questions.map((q) => q.questionId))
    for (const row of rows) {
      const question = questions.find((q) => q.questionId === row.question_id)!
      assert.strictEqual(row.stop_reason, "finished", row.question_id)
      assert.strictEqual(row.steps_used, 3, row.question_id)
      assert.strictEqual(row.prediction, wrong.has(row.question_id) ? wrongLetter(question.answer) : question.answer)
    }
    const steps = stepRows(db)
    assert.deepStrictEqual(
      steps.filter((s) => s.question_id === "001-1").map((s) => s.tool),
      ["view_node", "view_node", "submit_answer"]
    )
    assert.isTrue(steps.every((s) => s.reply_shapes === "function-call"))
    for (const counts of shapeCounts(db).values()) assert.deepStrictEqual(counts, { "function-call": 3 })

    // Each agent request offered the tools; each later one answered the previous call by its id.
    const agentRequests = sim.requests.filter((r) => r.model === agentModel)
    assert.strictEqual(agentRequests.length, 3 * questions.length)
    for (const request of agentRequests) {
      const tools = request.body["tools"] as ReadonlyArray<
        { type: string; function: { name: string; parameters: { type: string } } }
      >
      assert.deepStrictEqual(tools.map((t) => t.function.name), [
        "view_node",
        "search_similar",
        "observe_frame",
        "submit_answer"
      ])
      assert.isTrue(tools.every((t) => t.type === "function" && t.function.parameters.type === "object"))
      const messages = request.body["messages"] as ReadonlyArray<ToolMessage>
      const calls = messages.filter((m) => m.tool_calls !== undefined)
      const answers = messages.filter((m) => m.role === "tool")
      assert.deepStrictEqual(answers.map((m) => m.tool_call_id), calls.map((m) => m.tool_calls![0]!.id))
    }
    assert.strictEqual(JSON.parse(runs(db)[0]!.config_json).protocol, "tools")
    assert.include(result.stdout.split("\n"), "Protocol tools")
    assert.match(result.stdout, /Accuracy 85\.7% \[[\d.]+–[\d.]+\] 95% CI \(6\/7\)/)
  }, 60_000)

  it(
    "json: replies in every shape of the corpus are read, each question finishes as expected, the shapes are counted",
    async () => {
      const styles = Object.keys(replyStyles) as Array<ReplyStyle>
      const order = questions.map((q) => q.questionId)
      // Two replies per question, so seven questions walk the eight styles and start over.
      const styleOf = (questionId: string, step: number): ReplyStyle =>
        styles[(order.indexOf(questionId) * 2 + step) % styles.length]!
      const { db, sim } = await setup({ replyStyle: styleOf })
      const result = await runCli(inferArgs(db, "--run-id", "shapes-1", "--concurrency", "2"), simEnv(sim.url))
      assert.strictEqual(result.code, 0, result.stderr)

      const rows = predictions(db)
      assert.deepStrictEqual(rows.map((r) => r.question_id), order)
      for (const row of rows) {
        const question = questions.find((q) => q.questionId === row.question_id)!
        assert.strictEqual(row.stop_reason, "finished", row.question_id)
        assert.strictEqual(row.steps_used, 2, row.question_id)
        assert.strictEqual(row.prediction, question.answer, row.question_id)
      }
      // No reply was refused: one agent call per step.
      assert.strictEqual(sim.requests.filter((r) => r.model === agentModel).length, 2 * questions.length)

      const steps = stepRows(db)
      assert.strictEqual(steps.length, 2 * questions.length)
      for (const step of steps) {
        const style = styleOf(step.question_id, step.step - 1)
        assert.strictEqual(step.tool, step.step === 1 ? "view_node" : "submit_answer", `${step.question_id} ${style}`)
        assert.strictEqual(
          step.reply_shapes,
          replyStyles[style].shapes.join(","),
          `${step.question_id} step ${step.step} (${style})`
        )
      }
      const totals = new Map<string, number>()
      for (const [questionId, counts] of shapeCounts(db)) {
        const expected: Record<string, number> = {}
        for (const step of [0, 1]) {
          for (const shape of replyStyles[styleOf(questionId, step)].shapes) {
            expected[shape] = (expected[shape] ?? 0) + 1
            totals.set(shape, (totals.get(shape) ?? 0) + 1)
          }
        }
        assert.deepStrictEqual(counts, expected, questionId)
      }
      assert.deepStrictEqual(
        [...totals.keys()].sort(),
        ["clean", "fenced", "first-of-several", "function-call", "repaired", "think-stripped"]
      )

      // The report says which protocol, and shows the same counts.
      const report = await runCli(["report", "--db", db, "--format", "json"], {})
      assert.strictEqual(report.code, 0, report.stderr)
      const summary = JSON.parse(report.stdout) as {
        protocol: string
        replyShapes: { model: string; shapes: Array<{ shape: string; steps: number }> }
      }
      assert.strictEqual(summary.protocol, "json")
      assert.strictEqual(summary.replyShapes.model, agentModel)
      assert.deepStrictEqual(new Map(summary.replyShapes.shapes.map((s) => [s.shape, s.steps])), totals)
      assert.include(result.stdout.split("\n"), "Protocol json")
      assert.match(result.stdout, /Reply shapes of agent-model/)
    },
    60_000
  )
})
