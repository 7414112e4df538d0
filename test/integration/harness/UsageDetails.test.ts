// End to end: `vtree infer` (the CLI run in-process) over openai-sim, which counts cached prompt tokens as a
// prefix-caching server would and reasoning tokens for every reply that reasons; the numbers must land in
// llm_calls and predictions unchanged and come out of `vtree report` summed per role.
import { assert, describe, it } from "@effect/vitest"
import { runCli } from "../../support/cli/InProcess.js"
import { readDb, simEnv } from "../../support/harness/Cli.js"
import { agentModel, sampleQuestions, toolModel } from "../../support/harness/Policy.js"
import { inferArgs, simRuns } from "../../support/harness/SimRuns.js"
import * as Sim from "../../support/openai-sim/index.js"

const questions = sampleQuestions()
const viewSteps = 3

const { setup } = simRuns(questions)

/** The cached tokens the sim must have reported, per model: its requests replayed through a fresh cache. */
const replayCache = (requests: ReadonlyArray<Sim.SimRequest>) => {
  const cache = Sim.makePrefixCache()
  const sums = new Map<string, { prompt: number; cached: number }>()
  for (const request of requests.filter((r) => r.path === "/v1/chat/completions")) {
    const text = Sim.promptText(request.body)
    const prompt = Math.ceil(text.length / 4)
    const sum = sums.get(request.model!) ?? { prompt: 0, cached: 0 }
    sum.prompt += prompt
    sum.cached += Math.min(prompt, cache.lookup(request.model!, text))
    sums.set(request.model!, sum)
  }
  return sums
}

interface RoleSum {
  readonly role: string
  readonly prompt: number
  readonly cached: number | null
  readonly reasoning: number | null
}

describe("usage details, vtree infer → DB → vtree report (in-process CLI against openai-sim)", () => {
  it("stores cached and reasoning tokens per call and per question, and reports them per role", async () => {
    const { db, sim } = await setup({ viewSteps })
    // One question at a time, so each question's prompts reach the cache in the order of its steps.
    const inferred = await runCli(inferArgs(db, "--run-id", "u1", "--concurrency", "1"), simEnv(sim.url))
    assert.strictEqual(inferred.code, 0, inferred.stderr)

    const expected = replayCache(sim.requests)
    const byRole = readDb(db, (h) =>
      h.prepare(
        "SELECT role, sum(prompt_tokens) AS prompt, sum(cached_prompt_tokens) AS cached, sum(reasoning_tokens) AS reasoning " +
          "FROM llm_calls GROUP BY role ORDER BY role"
      ).all()) as Array<RoleSum>
    assert.deepStrictEqual(byRole, [
      // Every agent step reasons: "step k: look at a scene first" (8 tokens) per view, "enough evidence" (4) to submit.
      {
        role: "agent",
        prompt: expected.get(agentModel)!.prompt,
        cached: expected.get(agentModel)!.cached,
        reasoning: questions.length * (viewSteps * 8 + 4)
      },
      { role: "tool", prompt: expected.get(toolModel)!.prompt, cached: expected.get(toolModel)!.cached, reasoning: 0 }
    ])
    // Each step's prompt extends the one before: most of the agent's prompt tokens come from the cache.
    assert.isAbove(byRole[0]!.cached! / byRole[0]!.prompt, 0.5)

    // Per question: the sums of its own calls.
    const mismatched = readDb(db, (h) =>
      h.prepare(
        "SELECT p.question_id FROM predictions p JOIN llm_calls c USING (run_id, question_id) GROUP BY p.question_id " +
          "HAVING p.cached_prompt_tokens <> sum(c.cached_prompt_tokens) OR p.reasoning_tokens <> sum(c.reasoning_tokens)"
      ).all())
    assert.deepStrictEqual(mismatched, [])
    const perQuestion = readDb(
      db,
      (h) => h.prepare("SELECT count(*) AS n, min(reasoning_tokens) AS least FROM predictions").get()
    ) as { n: number; least: number }
    assert.deepStrictEqual(perQuestion, { n: questions.length, least: viewSteps * 8 + 4 })

    const report = await runCli(["report", "--db", db, "--format", "json"], {})
    assert.strictEqual(report.code, 0, report.stderr)
    const details = (JSON.parse(report.stdout) as { tokenDetails: ReadonlyArray<Record<string, unknown>> }).tokenDetails
    assert.deepStrictEqual(details.map((d) => [d.role, d.promptTokens, d.cachedPromptTokens, d.reasoningTokens]), [
      ["agent", byRole[0]!.prompt, byRole[0]!.cached, byRole[0]!.reasoning],
      ["tool", byRole[1]!.prompt, byRole[1]!.cached, 0]
    ])
    assert.closeTo(details[0]!["cachedShare"] as number, byRole[0]!.cached! / byRole[0]!.prompt, 1e-12)

    const text = await runCli(["report", "--db", db], {})
    const share = ((100 * byRole[0]!.cached!) / byRole[0]!.prompt).toFixed(1)
    assert.match(
      text.stdout,
      new RegExp(
        `Token details[\\s\\S]*\\nagent\\s+[\\d,]+\\s+[\\d,]+\\s+${share.replace(".", "\\.")}%\\s+${
          questions.length * (viewSteps * 8 + 4)
        }\\n`
      )
    )
  }, 120_000)
})
