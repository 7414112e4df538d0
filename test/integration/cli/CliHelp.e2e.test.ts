// Help and flag errors of the built CLI (`node dist/bin.js`), as a person sees them.
import { assert, describe, it } from "@effect/vitest"
import * as Sim from "../../support/openai-sim/index.js"
import { run, samplesJsonl, samplesTrees, simEnv, tempDir } from "../../support/harness/Cli.js"

describe("help and flags (built CLI)", () => {
  it("help lines are specific: no generic type lines, program name in USAGE, no padded command lines", async () => {
    for (const args of [["--help"], ["infer", "--help"], ["tree", "search", "--help"], ["prompt", "--help"]]) {
      const { code, stdout } = await run(args, {})
      assert.strictEqual(code, 0)
      assert.notInclude(stdout, "A user-defined piece of text")
      assert.notInclude(stdout, "This setting is optional.")
      assert.notInclude(stdout, "An integer.")
      for (const line of stdout.split("\n")) {
        assert.notMatch(line, /\S {3,}\S/, `padded: ${line.slice(0, 80)}`)
        assert.notMatch(line, /\s$/, `trailing blanks: ${line.slice(0, 80)}`)
        if (line.startsWith("$ ")) assert.match(line, /^\$ vtree( |$)/)
      }
    }
    const infer = (await run(["infer", "--help"], {})).stdout
    // --questions may be left out on --resume: the run's stored question set is used.
    assert.include(infer, "$ vtree infer --trees text [--questions text]")
    assert.include(infer, "--no-verify-vision\n\n  Skip the second vision round that checks the first\n")
    assert.include(infer, "--verify-vision\n\n  Run that second, checking vision round (the default)\n")
    const root = (await run(["--help"], {})).stdout
    assert.include(root, "  - doctor\n      Check each configured model provider")
  })

  it("a bad number is one vtree: line naming the option, exit 1", async () => {
    for (const [args, expected] of [
      [["infer", "--trees", samplesTrees, "--questions", "q", "--concurrency", "abc"], "vtree: --concurrency abc: expected a whole number ≥ 1"],
      [["infer", "--trees", samplesTrees, "--questions", "q", "--max-steps", "0"], "vtree: --max-steps 0: expected a whole number ≥ 1"],
      [["infer", "--trees", samplesTrees, "--questions", "q", "--n-samples", "2.5"], "vtree: --n-samples 2.5: expected a whole number ≥ 1"],
      [["tree", "search", "-k", "-1", samplesTrees, "eggs"], "vtree: -k -1: expected a whole number ≥ 1"]
    ] as const) {
      const { code, stderr, stdout } = await run(args, {})
      assert.strictEqual(code, 1, stderr)
      assert.strictEqual(stderr.trim(), expected)
      assert.strictEqual(stdout, "")
    }
  })

  it("prompt --task-type with an unknown type is refused with the valid list", async () => {
    const { code, stderr, stdout } = await run(["prompt", "--task-type", "Bogus"], {})
    assert.strictEqual(code, 1)
    assert.strictEqual(stdout, "")
    assert.match(stderr, /^vtree: --task-type "Bogus": not a task type of Video-MME or of \S+ — use one of: Temporal Perception, .*Counting Problem, .*Information Synopsis\n$/)
    const known = await run(["prompt", "--task-type", "counting problem"], {})
    assert.strictEqual(known.code, 0, known.stderr)
  })

  it("a 404 for an unknown model is shown as not found, naming the model and the endpoint", async () => {
    const sim = await Sim.start({ chat: { "*": Array.from({ length: 50 }, () => ({ fault: "status" as const, status: 404 })) } })
    const temp = tempDir()
    try {
      const env = simEnv(sim.url, { VTREE_LLM_MODEL: "gpt-9-nonexistent" })
      const args = ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", `${temp.dir}/runs.db`, "--n-samples", "1"]
      const { code, stderr } = await run(args, env)
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
