// What the CLI e2e tests of `vtree infer` share: per test, an openai-sim scripted by the agent policy
// and a temporary folder for the database, both closed after the test with anything else it registered.
import { afterEach, assert } from "@effect/vitest"
import { join } from "node:path"
import * as Sim from "../openai-sim/index.js"
import { type DbPrediction, predictions, runs, samplesJsonl, samplesTrees, tempDir } from "./Cli.js"
import { agentModel, type PolicyOptions, policyScripts, type SampleQuestion, sampleQuestions } from "./Policy.js"

/**
 * Registers the after-each cleanup in the calling test file; `setup` starts a sim and a folder for one
 * test, `startSim` one more sim (say, one that answers where the first stalls). The questions default to
 * the bundled sample's.
 */
export const simRuns = (questions: ReadonlyArray<SampleQuestion> = sampleQuestions()) => {
  const cleanups: Array<() => unknown> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  const startSim = async (policy: Omit<PolicyOptions, "questions"> = {}) => {
    const sim = await Sim.start({ chat: policyScripts({ questions, ...policy }) })
    cleanups.push(() => sim.close())
    return sim
  }
  const setup = async (policy: Omit<PolicyOptions, "questions"> = {}) => {
    const sim = await startSim(policy)
    const temp = tempDir()
    cleanups.push(temp.cleanup)
    return { sim, db: join(temp.dir, "runs.db"), dir: temp.dir }
  }
  return { questions, setup, startSim, cleanups }
}

/** `vtree infer` over the bundled sample into `db`, with more arguments after. */
export const inferArgs = (
  db: string,
  ...more: Array<string>
) => ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db, ...more]

/** `vtree infer --resume` on the bundled sample's trees, with more arguments after. */
export const resumeArgs = (
  db: string,
  ...more: Array<string>
) => ["infer", "--trees", samplesTrees, "--db", db, "--resume", ...more]

/** The lines vtree wrote to stderr as its own (progress lines aside). */
export const vtreeLines = (stderr: string) =>
  stderr.trim().split("\n").filter((line) => line.startsWith("vtree: ") && !/^vtree: run \S+: \d+\/\d+ /.test(line))

/** How many times the agent was first asked each question (its first step carries no assistant turn). */
export const firstAsks = (sim: Sim.OpenAiSim, questions: ReadonlyArray<SampleQuestion>) => {
  const counts = new Map<string, number>()
  for (const request of sim.requests) {
    if (request.model !== agentModel) continue
    const body = JSON.stringify(request.body)
    if (body.includes("\"role\":\"assistant\"")) continue
    const question = questions.find((q) => body.includes(q.question))
    if (question !== undefined) counts.set(question.questionId, (counts.get(question.questionId) ?? 0) + 1)
  }
  return counts
}

/**
 * After a run was stopped with `before` saved and then resumed against `sim`: every question is saved
 * once, in order, in one run; the rows saved before are untouched and were not asked again; every other
 * question was asked exactly once; the run is completed.
 */
export const assertFinishedOnce = (
  db: string,
  sim: Sim.OpenAiSim,
  questions: ReadonlyArray<SampleQuestion>,
  before: ReadonlyArray<DbPrediction>
) => {
  const after = predictions(db)
  assert.deepStrictEqual(after.map((r) => r.question_id), questions.map((q) => q.questionId).sort())
  assert.strictEqual(new Set(after.map((r) => r.run_id)).size, 1)
  for (const row of before) assert.deepStrictEqual(after.find((r) => r.question_id === row.question_id), row)
  const asked = firstAsks(sim, questions)
  for (const question of questions) {
    const saved = before.some((row) => row.question_id === question.questionId)
    assert.strictEqual(asked.get(question.questionId) ?? 0, saved ? 0 : 1, `question ${question.questionId}`)
  }
  assert.strictEqual(runs(db)[0]!.status, "completed")
}
