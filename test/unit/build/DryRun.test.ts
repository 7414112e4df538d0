// The dry run against the fakes: with an awkward --event-seconds (longer than one call's frames hold),
// what it predicts is what the build then does: the same events, the same frames in each, every frame.
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import type { BuildOptions } from "../../../src/programs/builder/BuildOptions.js"
import { buildTree } from "../../../src/programs/builder/BuildTree.js"
import { dryRunVideo } from "../../../src/programs/builder/DryRun.js"
import { listVideos, probeVideos } from "../../../src/programs/builder/Inputs.js"
import { type FakeVideo, llmCards, makeFakeMedia, vlmCards } from "../../support/build/BuildFakes.js"
import { scopedTempDir } from "../../support/TempDir.js"

type Json = { readonly [key: string]: any }

const prompts = { event: "EVENT PROMPT \"frames\": [ \"event_description\"", scene: "SCENE PROMPT" }
const models = { vlm: "scripted-vlm", llm: "scripted-llm" }
// 25 s events of 2 s frames hold 12 or 13 frames; a call sends 12.
const parameters = { eventSeconds: 25 }

/** Dry run, build, dry run again, of one fake video; the built tree's events with their frame counts. */
const dryRunThenBuild = (video: FakeVideo) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* scopedTempDir("dry-run")
    const file = path.join(dir, "clip.mp4")
    yield* fs.writeFileString(file, "video bytes")
    const out = path.join(dir, "trees")
    const media = yield* makeFakeMedia({ "clip.mp4": video })
    const vlm = yield* ScriptedVlm.make(vlmCards)
    const llm = yield* ScriptedLlm.make(llmCards)
    const options: BuildOptions = { outDir: out, prompts, models, parameters }
    return yield* Effect.gen(function*() {
      const [probed] = yield* probeVideos(yield* listVideos([file]))
      const before = yield* dryRunVideo(probed!, [], options)
      const [summary] = yield* buildTree([probed!], options)
      const after = yield* dryRunVideo(probed!, [], options)
      const tree = JSON.parse(yield* fs.readFileString(path.join(out, "clip", "tree.json"))) as Json
      const nodes = Object.values(tree["nodes"] as Record<string, Json>)
      const events = nodes.filter((node) => node["level"] === 2)
        .sort((a, b) => a["time_range"][0] - b["time_range"][0])
      return {
        before,
        after,
        summary: summary!,
        built: events.map((event) => event["children_ids"].length as number),
        frameNodes: nodes.filter((node) => node["level"] === 3).length,
        record: tree["build"]["frames"] as Json
      }
    }).pipe(Effect.provide(Layer.mergeAll(media.layer, vlm.layer, llm.layer)))
  })

layer(NodeContext.layer)("dry run and build agree", (it) => {
  it.scoped("--event-seconds 25 without shot changes: the prediction is the built tree, and every frame is in it", () =>
    Effect.gen(function*() {
      const { after, before, built, frameNodes, record, summary } = yield* dryRunThenBuild({
        durationSeconds: 600,
        jitter: 0.04
      })
      assert.strictEqual(summary.frames, 300)
      assert.strictEqual(summary.framesSent, 300)
      assert.deepStrictEqual(record, { sampled: 300, sent: 300 })
      assert.strictEqual(frameNodes, 300)
      assert.isTrue(built.every((frames) => frames >= 1 && frames <= 12))
      assert.deepStrictEqual(before.eventFrames, built)
      assert.deepStrictEqual([before.events, before.frames, before.framesSent], [summary.events, 300, 300])
      assert.deepStrictEqual(after.eventFrames, built)
      assert.strictEqual(after.vlmCalls + after.llmCalls, 0)
    }))

  it.scoped("with shot changes: the dry run over the build's frame cache plans exactly the built events", () =>
    Effect.gen(function*() {
      const { after, before, built, frameNodes, summary } = yield* dryRunThenBuild({
        durationSeconds: 130,
        cuts: [18.5, 37, 58, 101],
        jitter: 0.04
      })
      assert.deepStrictEqual([summary.frames, summary.framesSent, frameNodes], [65, 65, 65])
      assert.deepStrictEqual(after.eventFrames, built)
      assert.strictEqual(after.reused, summary.events + summary.scenes)
      // Before any frame is extracted the shot changes are unknown: the count holds, the cuts may move.
      assert.strictEqual(before.framesSent, 65)
      assert.strictEqual(before.events, summary.events)
    }))
})
