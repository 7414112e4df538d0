// Help and flag errors of the CLI, run in-process, as a person sees them.
import { assert, describe, it } from "@effect/vitest"
import { runCli } from "../../support/cli/InProcess.js"
import { samplesTrees } from "../../support/harness/Cli.js"

describe("help and flags (in-process CLI)", () => {
  it("help lines are specific: no generic type lines, program name in USAGE, no padded command lines", async () => {
    for (const args of [["--help"], ["infer", "--help"], ["tree", "search", "--help"], ["prompt", "--help"]]) {
      const { code, stdout } = await runCli(args, {})
      assert.strictEqual(code, 0)
      assert.notInclude(stdout, "A user-defined piece of text")
      assert.notInclude(stdout, "This setting is optional.")
      assert.notInclude(stdout, "An integer.")
      for (const line of stdout.split("\n")) {
        if (!/^ {2}[a-z]/.test(line)) assert.notMatch(line, /\S {3,}\S/, `padded: ${line.slice(0, 80)}`)
        assert.notMatch(line, /\s$/, `trailing blanks: ${line.slice(0, 80)}`)
        if (line.startsWith("$ ")) assert.match(line, /^\$ vtree( |$)/)
      }
    }
    const infer = (await runCli(["infer", "--help"], {})).stdout
    // --trees and --questions may be left out on --resume: the run's stored folder and question set are used.
    assert.include(infer, "$ vtree infer [--trees text] [--questions text]")
    assert.include(infer, "--no-verify-vision\n\n  Skip the second vision round that checks the first\n")
    assert.include(infer, "--verify-vision\n\n  Run that second, checking vision round (the default)\n")
  })

  it("the root help lists each command on one line of at most 120 columns, name then what it does", async () => {
    const root = (await runCli(["--help"], {})).stdout
    const commands = root.slice(root.indexOf("COMMANDS"))
    assert.match(commands, /\n {2}doctor +Check each configured model provider/)
    assert.match(commands, /\n {2}tree validate +Decode tree\.json/)
    for (const line of root.split("\n")) assert.isAtMost(line.length, 120, line)
    // No usage synopsis in the list: that is each command's own --help.
    assert.notInclude(commands, "--trees text")
  })

  it("--log-level is accepted after the subcommand as well as before it", async () => {
    for (
      const args of [["--log-level", "error", "prompt"], ["prompt", "--log-level", "error"], [
        "prompt",
        "--log-level=error"
      ]]
    ) {
      const { code, stderr, stdout } = await runCli(args, {})
      assert.strictEqual(code, 0, `${args.join(" ")}: ${stderr}`)
      assert.include(stdout, "submit_answer")
    }
  })

  it("--log-level debug shows infer's debug lines, before the subcommand or after it", async () => {
    // An LLM on a port nothing listens on: the run stops at the missing question file, before any call.
    const env = { VTREE_LLM_BASE_URL: "http://127.0.0.1:9/v1", VTREE_LLM_MODEL: "m", VTREE_OCR: "off" }
    const infer = ["--trees", samplesTrees, "--questions", "no-such-questions.jsonl"]
    for (const args of [["--log-level", "debug", "infer", ...infer], ["infer", "--log-level", "debug", ...infer]]) {
      const { code, stderr } = await runCli(args, env)
      assert.strictEqual(code, 1, stderr)
      assert.match(stderr, /level=DEBUG .*message="infer providers"/, `${args.join(" ")}: ${stderr}`)
    }
    // Without it, infer logs warnings and errors only.
    const { stderr } = await runCli(["infer", ...infer], env)
    assert.notInclude(stderr, "level=DEBUG")
  })

  it("a bad number is one vtree: line naming the option, exit 1", async () => {
    for (
      const [args, expected] of [
        [
          ["infer", "--trees", samplesTrees, "--questions", "q", "--concurrency", "abc"],
          "vtree: --concurrency abc: expected a whole number ≥ 1"
        ],
        [
          ["infer", "--trees", samplesTrees, "--questions", "q", "--max-steps", "0"],
          "vtree: --max-steps 0: expected a whole number ≥ 1"
        ],
        [
          ["infer", "--trees", samplesTrees, "--questions", "q", "--n-samples", "2.5"],
          "vtree: --n-samples 2.5: expected a whole number ≥ 1"
        ],
        [["tree", "search", "-k", "-1", samplesTrees, "eggs"], "vtree: -k -1: expected a whole number ≥ 1"]
      ] as const
    ) {
      const { code, stderr, stdout } = await runCli(args, {})
      assert.strictEqual(code, 1, stderr)
      assert.strictEqual(stderr.trim(), expected)
      assert.strictEqual(stdout, "")
    }
  })

  it("prompt --task-type with an unknown type is refused with the valid list", async () => {
    const { code, stderr, stdout } = await runCli(["prompt", "--task-type", "Bogus"], {})
    assert.strictEqual(code, 1)
    assert.strictEqual(stdout, "")
    assert.match(
      stderr,
      /^vtree: --task-type "Bogus": not a category of any benchmark or of \S+ — use one of: Video-MME: Temporal Perception, .*Counting Problem, .*Information Synopsis; LVBench: KIR, .*; NExT-QA: CW, .*DO\n$/
    )
    const known = await runCli(["prompt", "--task-type", "counting problem"], {})
    assert.strictEqual(known.code, 0, known.stderr)
  })
})
