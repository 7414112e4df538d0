// `vtree build`, the built CLI, stopped by signals: a `kill -9` mid-build and the rerun, and Ctrl-C
// (exit 130). The real ffmpeg makes a synthetic video; openai-sim answers the build calls.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { buildCalls, buildSim, synthVideo } from "../../support/build/SynthBuild.js"
import type { tempDir } from "../../support/harness/Cli.js"
import { run, simEnv, start } from "../../support/harness/Cli.js"
import type { SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let video: SyntheticVideo
let sim: OpenAiSim.OpenAiSim
let slowSim: OpenAiSim.OpenAiSim

beforeAll(async () => {
  const made = await synthVideo()
  work = made.work
  video = made.video
  sim = await buildSim()
  // Slow enough vision calls that a kill lands between checkpoints.
  slowSim = await buildSim(600)
}, 120_000)

afterAll(async () => {
  await sim?.close()
  await slowSim?.close()
  work?.cleanup()
})

describe("vtree build (live ffmpeg, openai-sim)", () => {
  it("after kill -9 mid-build, the rerun asks only for the calls not yet checkpointed", async () => {
    const out = join(work.dir, "killed")
    const checkpoints = join(out, "synth", ".vtree", "checkpoints")
    const count = () => (existsSync(checkpoints)
      ? readdirSync(checkpoints).filter((name) => name.endsWith(".json")).length
      : 0)
    const running = start(["build", video.video, "--out", out, "--concurrency", "1"], simEnv(slowSim.url))
    const deadline = Date.now() + 60_000
    while (count() < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    running.child.kill("SIGKILL")
    const killed = await running.done
    assert.strictEqual(killed.signal, "SIGKILL")
    assert.isFalse(existsSync(join(out, "synth", "tree.json")))
    const saved = count()
    assert.isAtLeast(saved, 2)
    // --concurrency sets each provider's cap: one vision and one text request at a time here (a scene's call may
    // run beside the next scene's event calls).
    assert.isAtMost(slowSim.maxInFlight, 2)

    const before = buildCalls(sim)
    const rerun = await run(["build", video.video, "--out", out], simEnv(sim.url))
    assert.strictEqual(rerun.code, 0, rerun.stderr)
    const total = Object.values(
      (JSON.parse(readFileSync(join(out, "synth", "tree.json"), "utf8")) as {
        nodes: Record<string, { level: number }>
      }).nodes
    )
      .filter((node) => node.level < 3).length
    assert.strictEqual(buildCalls(sim) - before, total - saved)
    assert.match(rerun.stdout, new RegExp(`^synth\\s.*\\s${saved}\\s+\\S+\\s+0\\s+\\S+ s\\s+sidecar$`, "m"))
  }, 120_000)

  it("Ctrl-C stops with exit 130, says how to resume, and keeps the finished calls", async () => {
    const out = join(work.dir, "interrupted")
    const checkpoints = join(out, "synth", ".vtree", "checkpoints")
    const count = () => (existsSync(checkpoints)
      ? readdirSync(checkpoints).filter((name) => name.endsWith(".json")).length
      : 0)
    const running = start(["build", video.video, "--out", out, "--concurrency", "1"], simEnv(slowSim.url))
    const deadline = Date.now() + 60_000
    while (count() < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    running.child.kill("SIGINT")
    const result = await running.done
    assert.strictEqual(result.code, 130, result.stderr)
    assert.match(
      result.stderr,
      /^vtree: interrupted — finished model calls are saved under .*interrupted\/<videoID>\/\.vtree; run the same command again to resume$/m
    )
    assert.isAtLeast(count(), 1)
    assert.isFalse(existsSync(join(out, "synth", "tree.json")))
  }, 120_000)
})
