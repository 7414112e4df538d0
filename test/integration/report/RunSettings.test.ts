// End to end: `vtree infer` (the CLI run in-process) over openai-sim records what a run was run with —
// models, endpoint hosts, step budget, prompt pack, question file and hash, version, prices — and every
// later `report`, `export` and `runs` reads it back; prices given to infer price the later report.
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { packageVersion } from "../../../src/PackageRoot.js"
import { runCli } from "../../support/cli/InProcess.js"
import { readDb, samplesJsonl, samplesTrees, simEnv } from "../../support/harness/Cli.js"
import { agentModel, sampleQuestions, toolModel, vlmModel } from "../../support/harness/Policy.js"
import { inferArgs, simRuns } from "../../support/harness/SimRuns.js"

const questions = sampleQuestions()

const { setup } = simRuns(questions)

describe("a run's settings, recorded by vtree infer and read back by every report", () => {
  it("stores version, prices and endpoints (never a key) and shows them in report, export and runs", async () => {
    const { db, dir, sim } = await setup({ viewSteps: 1 })
    const prices = join(dir, "prices.json")
    writeFileSync(prices, JSON.stringify({ agent: { input: 1, output: 2 }, tool: { input: 0.5, output: 1 } }))
    const env = simEnv(sim.url, { VTREE_LLM_API_KEY: "sk-never-shown-4242" })
    const inferred = await runCli(inferArgs(db, "--run-id", "s1", "--max-steps", "6", "--prices", prices), env)
    assert.strictEqual(inferred.code, 0, inferred.stderr)
    const host = new URL(sim.url).host
    // infer's own summary already names the settings.
    assert.match(inferred.stdout, new RegExp(`agent endpoint\\s+${host.replace(/\./g, "\\.")}\\n`))

    const config = JSON.parse(
      (readDb(db, (h) => h.prepare("SELECT config_json FROM runs").get()) as { config_json: string }).config_json
    )
    assert.strictEqual(config.vtreeVersion, packageVersion())
    assert.deepStrictEqual(config.prices, { agent: { input: 1, output: 2 }, tool: { input: 0.5, output: 1 } })

    // No environment, no --prices: the report prices the run as infer did.
    const json = await runCli(["report", "--db", db, "--format", "json"], {})
    assert.strictEqual(json.code, 0, json.stderr)
    const summary = JSON.parse(json.stdout)
    assert.isNumber(summary.cost.total)
    assert.isAbove(summary.cost.total, 0)
    const settings = new Map(
      (summary.settings as Array<{ name: string; value: string }>).map((s) => [s.name, s.value])
    )
    const sha = createHash("sha256").update(readFileSync(samplesJsonl)).digest("hex")
    assert.deepStrictEqual(
      [
        settings.get("agent model"),
        settings.get("agent endpoint"),
        settings.get("tool model"),
        settings.get("vlm model"),
        settings.get("max steps"),
        settings.get("skill mode"),
        settings.get("protocol"),
        settings.get("trees"),
        settings.get("questions"),
        settings.get("questions sha256"),
        settings.get("vtree version")
      ],
      [agentModel, host, toolModel, vlmModel, "6", "auto", "json", samplesTrees, samplesJsonl, sha, packageVersion()]
    )
    assert.include(settings.get("prompt pack"), "prompts")
    assert.strictEqual(summary.perQuestion.length, questions.length)

    const text = await runCli(["report", "--db", db], {})
    const html = await runCli(["report", "--db", db, "--format", "html"], {})
    const exported = await runCli(["export", "--db", db, "--format", "jsonl"], {})
    const runs = await runCli(["runs", "--db", db], {})
    for (const result of [inferred, json, text, html, exported, runs]) {
      assert.notInclude(result.stdout, "sk-never-shown-4242")
    }
    assert.notInclude(JSON.stringify(config), "sk-never-shown-4242")
    assert.include(html.stdout, `<tr><td>agent endpoint</td><td>${host}</td></tr>`)
    const row = JSON.parse(exported.stdout.split("\n")[0]!)
    assert.deepStrictEqual([row.run_id, row.agent_model], ["s1", agentModel])
    assert.isAbove(row.cost_usd, 0)
    assert.match(
      runs.stdout,
      new RegExp(`\\ns1\\s+completed\\s+Video-MME\\s+${agentModel}\\s+${questions.length}/${questions.length}\\s+`)
    )
  }, 120_000)
})
