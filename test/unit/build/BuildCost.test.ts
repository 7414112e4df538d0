import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { estimateRoles, perHour, roleUsd, speechFigures } from "../../../src/programs/builder/BuildCost.js"
import { renderBuildSummary, renderDryRun } from "../../../src/programs/builder/BuildProgress.js"
import { buildTree } from "../../../src/programs/builder/BuildTree.js"
import { dryRunVideo } from "../../../src/programs/builder/DryRun.js"
import { estimateBuild } from "../../../src/programs/builder/Estimate.js"
import { listVideos, probeVideos } from "../../../src/programs/builder/Inputs.js"
import { defaultParameters } from "../../../src/programs/builder/Plan.js"
import { llmCards, makeFakeMedia, vlmCards } from "../../support/build/BuildFakes.js"
import { scopedTempDir } from "../../support/TempDir.js"

const prompts = {
  event: "EVENT PROMPT \"frames\": [ \"event_description\"",
  scene: "SCENE PROMPT",
  registry: "REGISTRY \"entities\": [ \"aliases\""
}
const models = { vlm: "scripted-vlm", llm: "scripted-llm" }
const prices = { vlm: { input: 1, output: 4 }, tool: { input: 0.5, output: 1 } }

describe("cost by role", () => {
  it("an hour at the defaults: 180 vision calls of 10 frames, 12 scenes and one registry call", () => {
    const hour = estimateBuild({
      durationSeconds: 3600,
      width: 1280,
      height: 720,
      subtitleChars: 0,
      promptChars: { event: 2000, scene: 1000, registry: 1500 },
      parameters: defaultParameters
    })
    const roles = estimateRoles(hour, speechFigures(3600, 25_000_000))
    assert.deepStrictEqual([roles.vision.calls, roles.vision.frames, roles.text.calls], [180, 1800, 13])
    // 640 × 360 frames: 23 × 13 patches and a label each.
    assert.strictEqual(roles.vision.imageTokens, 1800 * (23 * 13 + 8))
    assert.isBelow(roles.vision.imageTokens, roles.vision.promptTokens)
    // Speech: 25 MB of 16 kHz 16-bit mono is 773 s, so five uploads an hour.
    assert.deepStrictEqual([roles.speech.calls, roles.speech.audioSeconds], [5, 3600])
    const half = perHour(roles.vision, 7200)
    assert.deepStrictEqual([half.calls, half.frames], [90, 900])
    assert.strictEqual(
      roleUsd("vision", roles.vision, prices),
      (roles.vision.promptTokens * 1 + roles.vision.completionTokens * 4) / 1e6
    )
    assert.isNull(roleUsd("text", roles.text, {}))
    assert.isNull(roleUsd("speech", roles.speech, prices))
    const table = renderDryRun([{ videoId: "hour", estimate: hour, subtitles: "asr", speech: roles.speech }], prices)
    assert.match(table, /^by role — calls still to make, and per hour of video .*: 60\.0 min\):$/m)
    assert.match(table, /^vision\s+180\s+1800\s+\S+\s+\S+\s+\S+\s+\$\S+\s+180\s+1800\s/m)
    assert.match(table, /^speech\s+5\s+0\s+0\s+0\s+0\s+-\s+5\s+0\s+0\s+0\s+0\s+-$/m)
  })
})

layer(NodeContext.layer)("cost per hour from a dry run and from a build", (it) => {
  it.scoped("agree in calls; the build record and the summary give each role per video and per hour", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("cost")
      yield* fs.writeFileString(path.join(dir, "clip.mp4"), "video bytes")
      const out = path.join(dir, "trees")
      // One shot: the build's scenes fall where the dry run, which has no cards yet, plans them.
      const media = yield* makeFakeMedia({ "clip.mp4": { durationSeconds: 130 } })
      const [video] = yield* probeVideos(yield* listVideos([path.join(dir, "clip.mp4")])).pipe(
        Effect.provide(media.layer)
      )
      const options = { outDir: out, prompts, models }
      const planned = estimateRoles(yield* dryRunVideo(video!, [], options))
      const [summary] = yield* buildTree([video!], { ...options, prices }).pipe(
        Effect.provide(Layer.mergeAll(media.layer, ScriptedVlm.layer(vlmCards), ScriptedLlm.layer(llmCards)))
      )
      const built = summary!.roles!
      // (A reply read only on the second ask would count twice in the build: the fakes answer at once.)
      for (const role of ["vision", "text"] as const) {
        assert.strictEqual(
          perHour(built[role], built.durationSeconds).calls,
          perHour(planned[role], planned.durationSeconds).calls,
          role
        )
      }
      assert.deepStrictEqual([built.vision.calls, built.text.calls], [summary!.events, summary!.scenes + 1])
      assert.strictEqual(built.vision.frames, summary!.framesSent)

      const tree = JSON.parse(yield* fs.readFileString(path.join(out, "clip", "tree.json"))) as {
        build: { roles: Record<string, Record<string, number>> & { per_hour: Record<string, Record<string, number>> } }
      }
      const { roles } = tree.build
      assert.deepStrictEqual(Object.keys(roles), ["vision", "text", "speech", "per_hour"])
      assert.strictEqual(roles["vision"]!["calls"], summary!.events)
      assert.strictEqual(roles["vision"]!["frames"], 65)
      assert.strictEqual(roles.per_hour["vision"]!["calls"], Math.round((summary!.events * 3600 / 130) * 10) / 10)
      assert.closeTo(roles["text"]!["usd"]!, roleUsd("text", built.text, prices)!, 1e-6)
      // No speech to text here: nothing asked, nothing paid.
      assert.deepStrictEqual(roles["speech"], {
        calls: 0,
        audio_seconds: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        usd: 0
      })

      const text = renderBuildSummary([summary!], undefined, prices)
      assert.match(text, /^by role — what the trees cost, reused calls included, and per hour of video/m)
      assert.match(text, new RegExp(`^vision\\s+${summary!.events}\\s+65\\s.*\\$`, "m"))
    }))
})
