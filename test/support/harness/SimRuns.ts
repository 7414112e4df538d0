// What the CLI e2e tests of `vtree infer` share: per test, an openai-sim scripted by the agent policy
// and a temporary folder for the database, both closed after the test with anything else it registered.
import { afterEach } from "@effect/vitest"
import { join } from "node:path"
import * as Sim from "../openai-sim/index.js"
import { samplesJsonl, samplesTrees, tempDir } from "./Cli.js"
import { agentModel, type PolicyOptions, policyScripts, type SampleQuestion } from "./Policy.js"

/** Registers the after-each cleanup in the calling test file; `setup` starts a sim and a folder for one test. */
export const simRuns = (questions: ReadonlyArray<SampleQuestion>) => {
  const cleanups: Array<() => unknown> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  const setup = async (policy: Omit<PolicyOptions, "questions"> = {}) => {
    const sim = await Sim.start({ chat: policyScripts({ questions, ...policy }) })
    const temp = tempDir()
    cleanups.push(() => sim.close(), temp.cleanup)
    return { sim, db: join(temp.dir, "runs.db"), dir: temp.dir }
  }
  return { setup, cleanups }
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
