// What the CLI e2e tests of `vtree infer` share: per test, an openai-sim scripted by the agent policy
// and a temporary folder for the database, both closed after the test with anything else it registered.
import { afterEach } from "@effect/vitest"
import { join } from "node:path"
import * as Sim from "../openai-sim/index.js"
import { samplesJsonl, samplesTrees, tempDir } from "./Cli.js"
import { type PolicyOptions, policyScripts, type SampleQuestion } from "./Policy.js"

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
export const inferArgs = (db: string, ...more: Array<string>) =>
  ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db, ...more]
