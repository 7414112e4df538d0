// Workers of a queued build (`vtree build --db`) in one process over SQLite, with fake media and scripted
// models: two workers build every video once; a worker stopped mid-video hands it back and the next one
// resumes it from its checkpoints; a worker with other settings or other videos is refused.
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Ref } from "effect"
import * as BuildQueueRepository from "../../../src/layers/sql/BuildQueueRepository.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { approximateTokens } from "../../../src/layers/testing/Scripted.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { BuildError } from "../../../src/programs/builder/BuildError.js"
import type { BuildOptions } from "../../../src/programs/builder/BuildOptions.js"
import { buildSettings, settingsHash } from "../../../src/programs/builder/BuildSettings.js"
import { runQueuedBuild } from "../../../src/programs/builder/BuildWorker.js"
import { listVideos, probeVideos } from "../../../src/programs/builder/Inputs.js"
import { defaultParameters } from "../../../src/programs/builder/Plan.js"
import { BuildQueue } from "../../../src/services/BuildQueue.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { type FakeVideo, llmCards, makeFakeMedia, vlmCards } from "../../support/build/BuildFakes.js"
import { eventReply } from "../../support/openai-sim/builder.js"
import { scopedTempDir } from "../../support/TempDir.js"

const prompts = { event: "EVENT PROMPT \"frames\": [ \"event_description\"", scene: "SCENE PROMPT" }
const models = { vlm: "scripted-vlm", llm: "scripted-llm" }
const videos: Readonly<Record<string, FakeVideo>> = {
  "a.mp4": { durationSeconds: 130, cuts: [18.5, 37, 58] },
  "b.mp4": { durationSeconds: 95, cuts: [30] },
  "c.mp4": { durationSeconds: 61, cuts: [12, 40] },
  "d.mp4": { durationSeconds: 44 }
}
const settings = buildSettings({ parameters: defaultParameters, models, prompts, domain: undefined })

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = yield* scopedTempDir("build-worker")
  for (const name of Object.keys(videos)) yield* fs.writeFileString(path.join(dir, name), `video bytes of ${name}`)
  const media = yield* makeFakeMedia(videos)
  const filename = path.join(dir, "builds.db")
  const queue = Layer.provideMerge(BuildQueueRepository.layer(filename), SqliteRunStore.layer({ filename }))
  // Each video's cues name it, so every call of every video asks something no other call asks.
  const inputs = yield* probeVideos(yield* listVideos([dir])).pipe(
    Effect.map((probed) =>
      probed.map((video) => ({
        ...video,
        subtitles: Effect.succeed({
          source: "test",
          cues: [{ start: 1, end: 3, text: `This is video ${video.videoId}` }]
        })
      }))
    ),
    Effect.provide(media.layer)
  )
  const options: BuildOptions = { outDir: path.join(dir, "trees"), prompts, models, concurrency: 1 }
  return { fs, path, media, queue, inputs, options }
})

type Setup = Effect.Effect.Success<typeof setup>

/** Scripted models, for workers whose calls are not counted (a refused worker never reaches them). */
const scriptedModels = Layer.mergeAll(ScriptedVlm.layer(vlmCards), ScriptedLlm.layer(llmCards))

const worker = (s: Setup, ownerId: string, extra: Partial<Parameters<typeof runQueuedBuild>[2]> = {}) =>
  runQueuedBuild(s.inputs, s.options, { buildId: "b1", settings, ownerId, pollMs: 10, ...extra })

describe("queued build workers", () => {
  // Live clock: a worker polls while the other holds the last videos.
  it.scopedLive("two workers build every video once, longest first, and the build ends completed", () =>
    Effect.gen(function*() {
      const s = yield* setup
      const vlm = yield* ScriptedVlm.make(vlmCards)
      const llm = yield* ScriptedLlm.make(llmCards)
      const [one, two] = yield* Effect.all([worker(s, "w1"), worker(s, "w2")], { concurrency: 2 }).pipe(
        Effect.provide(Layer.mergeAll(s.media.layer, vlm.layer, llm.layer, s.queue))
      )
      const built = [...one.summaries, ...two.summaries].map((summary) => summary.videoId)
      assert.deepStrictEqual([...built].sort(), ["a", "b", "c", "d"])
      assert.isAbove(one.summaries.length, 0)
      assert.isAbove(two.summaries.length, 0)
      // The first claims are the two longest videos.
      assert.deepStrictEqual([one.summaries[0]!.videoId, two.summaries[0]!.videoId].sort(), ["a", "b"])
      const asked = [...(yield* vlm.requests), ...(yield* llm.requests)]
      const made = [...one.summaries, ...two.summaries].reduce((n, v) => n + v.calls.vlm + v.calls.llm, 0)
      assert.strictEqual(asked.length, made)
      const texts = asked.map((request) => JSON.stringify(request))
      assert.strictEqual(new Set(texts).size, texts.length)
      for (const id of built) assert.isTrue(yield* s.fs.exists(s.path.join(s.options.outDir, id, "tree.json")))
      const progress = yield* Effect.flatMap(BuildQueue, (queue) => queue.progress("b1")).pipe(Effect.provide(s.queue))
      assert.deepInclude(Option.getOrThrow(progress), { videos: 4, done: 4, failed: 0, building: 0 })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a worker stopped mid-video hands it back; the next resumes it call by call from its checkpoints", () =>
    Effect.gen(function*() {
      const s = yield* setup
      // The first worker's vision model answers 2 calls, then hangs until the worker is stopped.
      const answered = yield* Ref.make(0)
      const stuck = yield* Deferred.make<void>()
      const hanging = Layer.succeed(
        VLMProvider,
        VLMProvider.of({
          chatWithImages: (request) =>
            Effect.flatMap(Ref.getAndUpdate(answered, (n) => n + 1), (n) =>
              n < 2
                ? Effect.succeed({
                  content: eventReply(request.text),
                  usage: { promptTokens: approximateTokens(request.text), completionTokens: 10 },
                  model: "scripted-vlm"
                })
                : Effect.zipRight(Deferred.succeed(stuck, undefined), Effect.never))
        })
      )
      const llm = yield* ScriptedLlm.make(llmCards)
      const first = yield* Effect.fork(
        worker(s, "w1").pipe(Effect.provide(Layer.mergeAll(s.media.layer, hanging, llm.layer, s.queue)))
      )
      yield* Deferred.await(stuck)
      yield* Fiber.interrupt(first)
      const checkpoints = yield* s.fs.readDirectory(s.path.join(s.options.outDir, "a", ".vtree", "checkpoints"))
      assert.strictEqual(checkpoints.length, 2)

      const vlm = yield* ScriptedVlm.make(vlmCards)
      const events: Array<string> = []
      const second = yield* worker(s, "w2", {
        onQueueEvent: (event) =>
          Effect.sync(() => events.push(event._tag === "Claimed" ? `${event.videoId}:${event.resumed}` : event._tag))
      }).pipe(Effect.provide(Layer.mergeAll(s.media.layer, vlm.layer, llm.layer, s.queue)))
      // Handed back at once: the next worker takes it first (no lease to wait out), as resumed.
      assert.strictEqual(events.find((event) => event.includes(":")), "a:true")
      const a = second.summaries.find((summary) => summary.videoId === "a")!
      assert.strictEqual(a.calls.reused, 2)
      const asked = (yield* vlm.requests).map((request) => request.text)
      assert.strictEqual(new Set(asked).size, asked.length)
      assert.strictEqual(second.summaries.length, 4)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a video that fails on its own is marked failed with why; the worker builds the others", () =>
    Effect.gen(function*() {
      const s = yield* setup
      const broken = s.inputs.map((input) =>
        input.videoId === "c"
          ? {
            ...input,
            subtitles: Effect.fail(new BuildError({ reason: "BadInput", message: "c.srt: line 3: no time" }))
          }
          : input
      )
      const result = yield* runQueuedBuild(broken, s.options, { buildId: "b1", settings, ownerId: "w1", pollMs: 10 })
        .pipe(Effect.provide(Layer.mergeAll(s.media.layer, s.queue, scriptedModels)))
      assert.deepStrictEqual(result.failed, [{ videoId: "c", error: "c.srt: line 3: no time" }])
      assert.deepStrictEqual(result.summaries.map((summary) => summary.videoId), ["a", "b", "d"])
      const progress = yield* Effect.flatMap(BuildQueue, (queue) => queue.progress("b1")).pipe(Effect.provide(s.queue))
      assert.deepInclude(Option.getOrThrow(progress), { videos: 4, done: 3, failed: 1, building: 0 })
    }).pipe(Effect.provide(NodeContext.layer)))
})

layer(NodeContext.layer)("queued build workers refused", (it) => {
  it.scoped("a worker with other settings is refused, naming each difference", () =>
    Effect.gen(function*() {
      const s = yield* setup
      yield* Effect.flatMap(BuildQueue, (queue) =>
        queue.joinBuild({
          buildId: "b1",
          settings: { ...settings, frameInterval: 1, vlmModel: "other-vlm" },
          settingsHash: settingsHash({ ...settings, frameInterval: 1, vlmModel: "other-vlm" }),
          videosHash: "x",
          videos: []
        })).pipe(Effect.provide(s.queue))
      const error = yield* Effect.flip(
        worker(s, "w1").pipe(Effect.provide(Layer.mergeAll(s.media.layer, s.queue, scriptedModels)))
      )
      assert.strictEqual(error._tag, "BuildError")
      assert.strictEqual(
        error.message,
        "--build-id b1: the build was started with other settings (--frame-interval: the build's 1, this worker's 2; " +
          "VTREE_VLM_MODEL: the build's other-vlm, this worker's scripted-vlm) — start every worker of a build with " +
          "the same settings, or give another --build-id"
      )
    }))

  it.scoped("a worker given other videos is refused", () =>
    Effect.gen(function*() {
      const s = yield* setup
      yield* Effect.flatMap(BuildQueue, (queue) =>
        queue.joinBuild({
          buildId: "b1",
          settings,
          settingsHash: settingsHash(settings),
          videosHash: "another set",
          videos: [{ videoId: "z", durationSeconds: 10 }]
        })).pipe(Effect.provide(s.queue))
      const error = yield* Effect.flip(
        worker(s, "w1").pipe(Effect.provide(Layer.mergeAll(s.media.layer, s.queue, scriptedModels)))
      )
      assert.strictEqual(
        error.message,
        "--build-id b1: the build holds 1 video and this worker was given 4 (a different set) — give every worker " +
          "of a build the same videos and --questions, or give another --build-id"
      )
    }))
})

describe("build settings", () => {
  it("hash the same whatever the order of their keys", () => {
    const reordered = Object.fromEntries(Object.entries(settings).reverse()) as typeof settings
    assert.strictEqual(settingsHash(reordered), settingsHash(settings))
    assert.notStrictEqual(settingsHash({ ...settings, domain: "Cooking" }), settingsHash(settings))
  })
})
