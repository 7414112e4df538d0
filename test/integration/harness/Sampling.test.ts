// Sampling per role (issue 28, item 3) over real HTTP: `vtree infer` run in-process against openai-sim, and
// the vision layer against it, checking that each request body carries exactly the fields its role was given.
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { loadVlmConfig } from "../../../src/config/ProviderConfig.js"
import * as OpenAiVlm from "../../../src/layers/openai/OpenAiVlm.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { runCli } from "../../support/cli/InProcess.js"
import { runs, simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel, policyScripts, sampleQuestions, toolModel, vlmModel } from "../../support/harness/Policy.js"
import { inferArgs, resumeArgs, simRuns, vtreeLines } from "../../support/harness/SimRuns.js"
import * as Sim from "../../support/openai-sim/index.js"

const questions = sampleQuestions()
const { cleanups, setup } = simRuns(questions)

const samplingKeys = ["temperature", "top_p", "seed", "max_tokens", "max_completion_tokens"]

/** The sampling fields of each body the model received; every body of a role must carry the same. */
const sent = (sim: Sim.OpenAiSim, model: string) => {
  const bodies = sim.requests.filter((r) => r.model === model).map((r) =>
    Object.fromEntries(samplingKeys.filter((key) => key in r.body).map((key) => [key, r.body[key]]))
  )
  assert.isAbove(bodies.length, 0, `no request reached ${model}`)
  for (const body of bodies) assert.deepStrictEqual(body, bodies[0])
  return bodies[0]
}

describe("vtree infer: sampling per role", () => {
  it(
    "flags over the agent's variables, each role its own, the cap in the endpoint's dialect; stored with the run",
    async () => {
      // An OpenAI reasoning model as the agent: its cap goes as max_completion_tokens.
      const scripts = policyScripts({ questions })
      const sim = await Sim.start({ chat: { "o4-mini": scripts[agentModel]!, [toolModel]: scripts[toolModel]! } })
      const temp = tempDir()
      cleanups.push(() => sim.close(), temp.cleanup)
      const db = join(temp.dir, "runs.db")
      const result = await runCli(
        inferArgs(
          db,
          "--n-samples",
          "2",
          "--temperature",
          "0.4",
          "--top-p",
          "0.8",
          "--seed",
          "11",
          "--max-tokens",
          "2048"
        ),
        simEnv(sim.url, {
          VTREE_LLM_MODEL: "o4-mini",
          VTREE_LLM_TEMPERATURE: "0.9",
          VTREE_LLM_MAX_TOKENS: "100",
          VTREE_TOOL_LLM_SEED: "3",
          VTREE_TOOL_LLM_MAX_TOKENS: "256",
          VTREE_VLM_TOP_P: "0.5"
        })
      )
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(sent(sim, "o4-mini"), {
        temperature: 0.4,
        top_p: 0.8,
        seed: 11,
        max_completion_tokens: 2048
      })
      assert.deepStrictEqual(sent(sim, toolModel), { temperature: 0, seed: 3, max_tokens: 256 })
      const config = JSON.parse(runs(db)[0]!.config_json) as Record<string, unknown>
      assert.deepStrictEqual(config["sampling"], {
        agent: { temperature: 0.4, topP: 0.8, seed: 11, maxTokens: 2048 },
        tool: { temperature: 0, seed: 3, maxTokens: 256 },
        vlm: { topP: 0.5 }
      })
    },
    60_000
  )

  it("unset sends nothing but the tool role's temperature 0; `none` sends not even that", async () => {
    const { db, sim } = await setup()
    const plain = await runCli(inferArgs(db, "--n-samples", "1"), simEnv(sim.url))
    assert.strictEqual(plain.code, 0, plain.stderr)
    assert.deepStrictEqual(sent(sim, agentModel), {})
    assert.deepStrictEqual(sent(sim, toolModel), { temperature: 0 })

    const { db: noneDb, sim: noneSim } = await setup()
    const none = await runCli(
      inferArgs(noneDb, "--n-samples", "1"),
      simEnv(noneSim.url, { VTREE_TOOL_LLM_TEMPERATURE: "none" })
    )
    assert.strictEqual(none.code, 0, none.stderr)
    assert.deepStrictEqual(sent(noneSim, toolModel), {})
  }, 60_000)

  it("--resume with other values is refused in one line; with the run's own it goes on", async () => {
    const { db, sim } = await setup()
    const first = await runCli(
      inferArgs(db, "--n-samples", "1", "--run-id", "s-1", "--temperature", "0.2"),
      simEnv(sim.url)
    )
    assert.strictEqual(first.code, 0, first.stderr)
    const refusals = [
      [["--temperature", "0.3"], {}, "agent temperature 0.2, now 0.3 (set by --temperature or VTREE_LLM_TEMPERATURE)"],
      [[], {}, "agent temperature 0.2, now unset (set by --temperature or VTREE_LLM_TEMPERATURE)"],
      [
        ["--temperature", "0.2"],
        { VTREE_TOOL_LLM_MAX_TOKENS: "64" },
        "tool max tokens unset, now 64 (set by VTREE_TOOL_LLM_MAX_TOKENS)"
      ]
    ] as const
    for (const [flags, env, difference] of refusals) {
      const refused = await runCli(resumeArgs(db, ...flags), simEnv(sim.url, env))
      assert.strictEqual(refused.code, 1)
      assert.deepStrictEqual(vtreeLines(refused.stderr), [
        `vtree: --resume: run s-1 was started with other sampling: ${difference} — resume it with the run's values, or start a new run`
      ])
    }
    const same = await runCli(resumeArgs(db, "--temperature", "0.2"), simEnv(sim.url))
    assert.strictEqual(same.code, 0, same.stderr)
  }, 60_000)

  it("a bad flag or variable is one line naming it and what it must be", async () => {
    const { db, sim } = await setup()
    const flag = await runCli(inferArgs(db, "--top-p", "1.5"), simEnv(sim.url))
    assert.strictEqual(flag.code, 1)
    assert.deepStrictEqual(vtreeLines(flag.stderr), ["vtree: --top-p 1.5: expected a number above 0, at most 1"])
    const variable = await runCli(inferArgs(db), simEnv(sim.url, { VTREE_VLM_MAX_TOKENS: "lots" }))
    assert.strictEqual(variable.code, 1)
    assert.deepStrictEqual(vtreeLines(variable.stderr), [
      `vtree: VTREE_VLM_MAX_TOKENS="lots": expected a whole number ≥ 1, or none to send none — fix or unset VTREE_VLM_MAX_TOKENS`
    ])
    assert.strictEqual(sim.requests.length, 0)
  }, 60_000)
})

describe("OpenAiVlm: the vision role's sampling over HTTP", () => {
  it.scoped("carries VTREE_VLM_* settings, a request's own cap over the role's, and nothing when unset", () =>
    Effect.gen(function*() {
      const sim = yield* Effect.acquireRelease(
        Effect.promise(() => Sim.start({ chat: { [vlmModel]: () => ({ content: "a grey square" }) } })),
        (s) => Effect.promise(() => s.close())
      )
      const temp = yield* Effect.acquireRelease(Effect.sync(tempDir), (t) => Effect.sync(t.cleanup))
      const frame = join(temp.dir, "a.jpg")
      // A JPEG's magic bytes are all the layer checks before it sends the frame.
      writeFileSync(frame, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))
      const ask = (env: Record<string, string>, maxTokens?: number) =>
        Effect.gen(function*() {
          const config = yield* loadVlmConfig.pipe(
            Effect.withConfigProvider(
              ConfigProvider.fromMap(
                new Map(Object.entries({ VTREE_VLM_BASE_URL: sim.url, VTREE_VLM_MODEL: vlmModel, ...env }))
              )
            )
          )
          yield* Effect.flatMap(VLMProvider, (vlm) =>
            vlm.chatWithImages({
              system: "describe",
              text: "what is shown?",
              images: [frame],
              ...(maxTokens === undefined ? {} : { maxTokens })
            })).pipe(Effect.provide(Layer.provideMerge(OpenAiVlm.layer(config), NodeFileSystem.layer)))
          const body = sim.requests.at(-1)!.body
          return Object.fromEntries(samplingKeys.filter((key) => key in body).map((key) => [key, body[key]]))
        })
      assert.deepStrictEqual(yield* ask({}), {})
      const env = { VTREE_VLM_TEMPERATURE: "0.1", VTREE_VLM_SEED: "9", VTREE_VLM_MAX_TOKENS: "700" }
      assert.deepStrictEqual(yield* ask(env), { temperature: 0.1, seed: 9, max_tokens: 700 })
      assert.deepStrictEqual(yield* ask(env, 4096), { temperature: 0.1, seed: 9, max_tokens: 4096 })
    }))
})
