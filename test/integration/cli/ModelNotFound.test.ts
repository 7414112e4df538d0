// A provider's 404 for an unknown model, through the CLI run in-process against openai-sim.
import { assert, describe, it } from "@effect/vitest"
import { runCli } from "../../support/cli/InProcess.js"
import { samplesJsonl, samplesTrees, simEnv, tempDir } from "../../support/harness/Cli.js"
import * as Sim from "../../support/openai-sim/index.js"

describe("provider errors (in-process CLI)", () => {
  it("a 404 for an unknown model is shown as not found, naming the model and the endpoint", async () => {
    const sim = await Sim.start({
      chat: { "*": Array.from({ length: 50 }, () => ({ fault: "status" as const, status: 404 })) }
    })
    const temp = tempDir()
    try {
      const env = simEnv(sim.url, { VTREE_LLM_MODEL: "gpt-9-nonexistent" })
      const args = [
        "infer",
        "--trees",
        samplesTrees,
        "--questions",
        samplesJsonl,
        "--db",
        `${temp.dir}/runs.db`,
        "--n-samples",
        "1"
      ]
      const { code, stderr } = await runCli(args, env)
      assert.strictEqual(code, 1, stderr)
      const last = stderr.trimEnd().split("\n").at(-1)!
      assert.include(last, `model "gpt-9-nonexistent" not found at ${sim.url}`)
      assert.notInclude(stderr, "BadRequest")
    } finally {
      temp.cleanup()
      await sim.close()
    }
  })
})
