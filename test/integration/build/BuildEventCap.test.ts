// `vtree build --event-seconds 25` in-process with the real ffmpeg and openai-sim: 25 s of 2 s frames
// is more than the 12 frames one call sends. Events are capped at what a call holds, so every sampled
// frame is captioned and in the tree, the summary and the dry run say so, and the dry run before the
// build predicted its events and images.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { buildCalls, buildSim, synthVideo } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import type { tempDir } from "../../support/harness/Cli.js"
import { simEnv } from "../../support/harness/Cli.js"
import type { SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let video: SyntheticVideo
let sim: OpenAiSim.OpenAiSim

beforeAll(async () => {
  const made = await synthVideo()
  work = made.work
  video = made.video
  sim = await buildSim()
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

/** The figures of the dry-run row of `synth`: frames, events, scenes, vlm calls, llm calls, reused, images. */
const dryRow = (stdout: string): ReadonlyArray<number> => {
  const row = /^synth\s+1\.5 min\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s/m.exec(stdout)
  assert.isNotNull(row, stdout)
  return row!.slice(1).map(Number)
}

describe("vtree build --event-seconds 25 (live ffmpeg, openai-sim)", () => {
  it("captions every frame, as the dry run predicted, and says events are shorter than asked", async () => {
    const out = join(work.dir, "trees")
    // Fixed scenes: the dry run cannot see where the picture changes, so only then does it predict the scenes.
    const args = ["build", video.video, "--out", out, "--event-seconds", "25", "--scenes", "fixed"]
    const dry = await runCli([...args, "--dry-run"], simEnv(sim.url))
    assert.strictEqual(dry.code, 0, dry.stderr)
    const [frames, events, scenes, vlmCalls, , , images] = dryRow(dry.stdout)
    assert.deepStrictEqual([frames, images, vlmCalls], [45, 45, events])
    assert.include(dry.stdout, "events are 23 s, not --event-seconds 25")
    assert.notInclude(dry.stdout, "would not be sent")

    const built = await runCli(args, simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    // The frames column shows one figure when every frame was sent (sent/sampled otherwise).
    assert.match(built.stdout, new RegExp(`^synth\\s+1\\.5 min\\s+45\\s+${events}\\s+${scenes}\\s`, "m"))
    assert.include(built.stdout, "events are 23 s, not --event-seconds 25")
    assert.notInclude(built.stdout, "uncaptioned")
    const tree = JSON.parse(readFileSync(join(out, "synth", "tree.json"), "utf8")) as {
      build: { frames: { sampled: number; sent: number } }
      nodes: Record<string, { level: number; children_ids: ReadonlyArray<string> }>
    }
    assert.deepStrictEqual(tree.build.frames, { sampled: 45, sent: 45 })
    const nodes = Object.values(tree.nodes)
    const eventNodes = nodes.filter((node) => node.level === 2)
    assert.strictEqual(eventNodes.length, events)
    assert.strictEqual(nodes.filter((node) => node.level === 3).length, 45)
    assert.isTrue(eventNodes.every((node) => node.children_ids.length >= 1 && node.children_ids.length <= 12))
    assert.strictEqual(buildCalls(sim), events! + scenes!)

    // Over the build's frames and checkpoints, the dry run finds the same plan with nothing left to ask (or send).
    const again = await runCli([...args, "--dry-run"], simEnv(sim.url))
    assert.strictEqual(again.code, 0, again.stderr)
    // (reused: every event and scene, and the entity registry's one call.)
    assert.deepStrictEqual(dryRow(again.stdout), [45, events, scenes, 0, 0, events! + scenes! + 1, 0])
  }, 180_000)
})
