// `vtree build` in-process with the real ffmpeg and openai-sim on a video of visually distinct segments
// of unequal length: its L1 scenes end at the segment changes (within one frame interval), a long uniform
// segment is split at --scene-seconds, no event crosses a scene, and each scene call is told its span.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as Ffmpeg from "../../../src/layers/ffmpeg/Ffmpeg.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { buildSim } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { makeSyntheticVideo, type SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let video: SyntheticVideo
let sim: OpenAiSim.OpenAiSim

beforeAll(async () => {
  work = tempDir()
  // Red, a moving test pattern, colour bars, then 90 s of plain blue.
  video = await makeSyntheticVideo({
    dir: work.dir,
    name: "segments",
    segmentSeconds: [7, 12, 6, 90],
    width: 160,
    height: 90,
    fps: 10
  })
  sim = await buildSim()
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

interface TreeNode {
  readonly level: number
  readonly time_range: readonly [number, number]
  readonly children_ids: ReadonlyArray<string>
}

const sceneTexts = (sim: OpenAiSim.OpenAiSim): ReadonlyArray<string> =>
  sim.requests.flatMap((request) => {
    const messages = request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }> | undefined
    const user = messages?.find((m) => m.role === "user")?.content
    return typeof user === "string" && user.startsWith("Scene ") ? [user.split("\n")[0]!] : []
  })

describe("frame looks (live ffmpeg)", () => {
  it.effect(
    "the frame pass gives every grid frame its 4×4 RGB look, read off the same decode",
    () =>
      Effect.gen(function*() {
        const outDir = join(work.dir, "frames")
        const extracted = yield* (yield* FrameSource).extract({
          path: video.video,
          intervalSeconds: 5,
          width: 160,
          outDir
        })
        assert.strictEqual(extracted.frames.length, 23)
        const looks = extracted.frames.map((frame) => Buffer.from(frame.look ?? "", "base64"))
        assert.isTrue(looks.every((look) => look.length === 48))
        // The first frame is red, the last blue (the time stamp drawn in a corner aside).
        const [r0, g0, b0] = looks[0]!.subarray(15 * 3)
        assert.isTrue(r0! > 200 && g0! < 60 && b0! < 60, `${r0} ${g0} ${b0}`)
        const [r1, g1, b1] = looks.at(-1)!.subarray(15 * 3)
        assert.isTrue(b1! > 200 && r1! < 60 && g1! < 60, `${r1} ${g1} ${b1}`)
        assert.notInclude(readdirSync(outDir), "looks.rgb")
      }).pipe(Effect.provide(Layer.provideMerge(Ffmpeg.layerConfig, NodeContext.layer))),
    60_000
  )
})

describe("vtree build --scenes cuts (live ffmpeg, openai-sim)", () => {
  it("puts the L1 boundaries at the segment changes and splits the long segment at --scene-seconds", async () => {
    const out = join(work.dir, "trees")
    const interval = 1
    const built = await runCli(
      ["build", video.video, "--out", out, "--frame-interval", "1", "--event-seconds", "4", "--scene-seconds", "40"],
      simEnv(sim.url)
    )
    assert.strictEqual(built.code, 0, built.stderr)
    const tree = JSON.parse(readFileSync(join(out, "segments", "tree.json"), "utf8")) as {
      build: { parameters: { scenes: string } }
      nodes: Record<string, TreeNode>
    }
    assert.strictEqual(tree.build.parameters.scenes, "cuts")
    const scenes = Object.values(tree.nodes).filter((node) => node.level === 1)
      .sort((a, b) => a.time_range[0] - b.time_range[0])
    const boundaries = scenes.slice(1).map((scene) => scene.time_range[0])
    // The three segment changes, then the 90 s of blue in three scenes of 30 s (none over 40 s).
    const expected = [...video.cutTimes, 55, 85]
    assert.strictEqual(boundaries.length, expected.length, JSON.stringify(boundaries))
    boundaries.forEach((at, i) => assert.approximately(at, expected[i]!, interval, JSON.stringify(boundaries)))
    assert.isTrue(scenes.every((scene) => scene.time_range[1] - scene.time_range[0] <= 40))
    // Events tile their scene: none starts before it or ends after it.
    for (const scene of scenes) {
      const events = scene.children_ids.map((id) => tree.nodes[id]!)
      assert.strictEqual(events[0]!.time_range[0], scene.time_range[0])
      assert.strictEqual(events.at(-1)!.time_range[1], scene.time_range[1])
      assert.isTrue(
        events.every((event) =>
          event.time_range[0] >= scene.time_range[0] && event.time_range[1] <= scene.time_range[1]
        )
      )
    }
    // Each scene call names the scene's own span.
    const told = sceneTexts(sim)
    assert.strictEqual(told.length, scenes.length)
    assert.include(told.join("\n"), `Scene 2: ${video.cutTimes[0]}`)
  }, 180_000)
})
