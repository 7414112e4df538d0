import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { Agent } from "../../../src/index.js"
import { bin } from "../../support/harness/Cli.js"

// The built CLI with stdout piped: one smoke start per command, and no terminal escapes where no
// terminal is (the process decides that from its own stdout).

const escape = String.fromCharCode(27)

const help = (...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [bin, ...args, "--help"], { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" } })

describe("help text", () => {
  it("piped (not a terminal), the help of every command is plain text with the usage and the options", () => {
    for (const command of [[], ["infer"], ["report"], ["tree", "search"], ["prompt"], ["doctor"], ["mcp"]]) {
      const result = help(...command)
      expect(result.status).toBe(0)
      expect(result.stdout).not.toContain(escape)
      expect(result.stdout).toContain("USAGE")
    }
    const infer = help("infer").stdout
    expect(infer).toContain("--questions")
    // Defaults are stated, not left as "This setting is optional.".
    expect(infer).toMatch(new RegExp(`--max-steps integer[\\s\\S]*?Default: ${Agent.defaultMaxSteps}\\.`))
    expect(infer).toMatch(/--db text[\s\S]*?Default: vtree\.db\./)
  }, 120_000)
})
