import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Fiber, Layer, Ref } from "effect"
import { hostname } from "node:os"
import { HashingEmbedder } from "../../../src/layers/testing/HashingEmbedder.js"
import { approximateTokens } from "../../../src/layers/testing/Scripted.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { type BuildOptions } from "../../../src/programs/builder/BuildOptions.js"
import { buildTree } from "../../../src/programs/builder/BuildTree.js"
import { checkWritable, listVideos, probeVideos } from "../../../src/programs/builder/Inputs.js"
import { loadTreeEnvironment, readTreeIndex } from "../../../src/programs/tree/TreeLoader.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { type FakeVideo, llmCards, makeFakeMedia, vlmCards } from "../../support/build/BuildFakes.js"
import { eventReply } from "../../support/openai-sim/builder.js"
import { scopedTempDir } from "../../support/TempDir.js"

const prompts = { event: "EVENT PROMPT \"frames\": [ \"event_description\"", scene: "SCENE PROMPT" }
const models = { vlm: "scripted-vlm", llm: "scripted-llm" }
const clip: FakeVideo = { durationSeconds: 130, cuts: [18.5, 37, 58], jitter: 0.04 }
const cues = [
  { start: 1, end: 3, text: "Welcome to the kitchen" },
  { start: 40, end: 42, text: "Crack the eggs" },
  { start: 120, end: 125, text: "Enjoy your meal" }
]

type Json = { readonly [key: string]: any }

/** A temp folder holding `names` as (fake) video files, and the fake media for them. */
const setup = (videos: Readonly<Record<string, FakeVideo>> = { "clip.mp4": clip }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* scopedTempDir("build")
    for (const name of Object.keys(videos)) yield* fs.writeFileString(path.join(dir, name), `video bytes of ${name}`)
    const media = yield* makeFakeMedia(videos)
    return { dir, media, out: path.join(dir, "trees"), fs, path }
  })

const inputsOf = (files: ReadonlyArray<string>, withCues = true) =>
  Effect.gen(function*() {
    const probed = yield* probeVideos(yield* listVideos(files))
    return probed.map((video) => (withCues ? { ...video, subtitles: Effect.succeed({ source: "test", cues }) } : video))
  })

const options = (out: string, extra: Partial<BuildOptions> = {}): BuildOptions => ({
  outDir: out,
  prompts,
  models,
  ...extra
})

/** Runs a build with counting scripted providers; returns summaries and the requests each saw. */
const runBuild = (
  media: { readonly layer: Layer.Layer<any> },
  files: ReadonlyArray<string>,
  opts: BuildOptions,
  extraLayer: Layer.Layer<never> = Layer.empty
) =>
  Effect.gen(function*() {
    const vlm = yield* ScriptedVlm.make(vlmCards)
    const llm = yield* ScriptedLlm.make(llmCards)
    const summaries = yield* Effect.flatMap(inputsOf(files), (inputs) => buildTree(inputs, opts)).pipe(
      Effect.provide(Layer.mergeAll(media.layer, vlm.layer, llm.layer, extraLayer))
    )
    return { summaries, vlm: yield* vlm.requests, llm: yield* llm.requests }
  })

layer(NodeContext.layer)("buildTree", (it) => {
  it.scoped("builds a tree that decodes, with every frame seen once and snapped events", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup()
      const { llm, summaries, vlm } = yield* runBuild(
        media,
        [path.join(dir, "clip.mp4")],
        options(out, { domain: "Cooking" })
      )
      const summary = summaries[0]!
      // The fake samples 0, 2.04, 4.04 … 128.04: 65 frames, all sent, each in exactly one call.
      const sent = vlm.flatMap((request) => request.images)
      assert.strictEqual(summary.frames, 65)
      assert.strictEqual(sent.length, 65)
      assert.strictEqual(new Set(sent).size, 65)
      assert.isTrue(vlm.every((request) => request.images.length <= 12 && request.system === prompts.event))
      assert.deepStrictEqual([summary.calls.vlm, summary.calls.llm, summary.calls.reused], [
        summary.events,
        summary.scenes,
        0
      ])
      assert.strictEqual(llm.length, summary.scenes)
      assert.isTrue(llm.every((request) => request.role === "tool" && request.thinking === false))

      const { index } = yield* readTreeIndex(summary.treeDir)
      const tree = JSON.parse(yield* fs.readFileString(path.join(out, "clip", "tree.json"))) as Json
      assert.deepStrictEqual([tree["videoID"], tree["duration_category"], tree["duration_seconds"], tree["domain"]], [
        "clip",
        "short",
        130,
        "Cooking"
      ])
      const nodes = [...index.nodes.values()]
      const events = nodes.filter((n) => n.level === 2).sort((a, b) => a.timeRange[0] - b.timeRange[0])
      const frames = nodes.filter((n) => n.level === 3)
      assert.strictEqual(frames.length, 65)
      // Windows snapped to the shot changes at 18.5, 37 and 58 s.
      const edges = events.map((e) => e.timeRange[0])
      for (const cut of [18.5, 37, 58]) assert.include(edges, cut)
      // L3 nodes sit at the frames' real times, inside their event.
      const times = frames.map((f) => f.timeRange[0]).sort((a, b) => a - b)
      assert.deepStrictEqual(times.slice(0, 3), [0, 2.04, 4.04])
      for (const f of frames) {
        const parent = index.nodes.get(f.parentId!)!
        assert.strictEqual(f.timeRange[0], f.timeRange[1])
        assert.isTrue(f.timeRange[0] >= parent.timeRange[0] && f.timeRange[0] <= parent.timeRange[1])
        assert.isTrue(yield* fs.exists(path.join(summary.treeDir, "frames", `${f.id.slice("clip_".length)}.jpg`)))
        for (
          const field of [
            "frame_summary",
            "visible_entities",
            "ongoing_actions",
            "spatial_layout",
            "visual_attributes",
            "visible_text"
          ]
        ) {
          assert.property(f.card, field)
        }
      }
      // Subtitles by overlap: the event and the frame at 40 s carry the line spoken at 40–42 s.
      const eggs = events.find((e) => e.timeRange[0] <= 40 && e.timeRange[1] > 40)!
      assert.strictEqual(eggs.subtitle, "Crack the eggs")
      assert.include(frames.find((f) => f.timeRange[0] === 40.04)!.subtitle, "Crack the eggs")
      assert.include(index.nodes.get("clip_L1_000")!.subtitle, "Welcome to the kitchen")
      const build = tree["build"] as Json
      assert.deepStrictEqual(build["models"], models)
      assert.deepStrictEqual(build["parameters"], {
        frame_interval: 2,
        frame_width: 640,
        event_seconds: 20,
        scene_seconds: 300,
        frames_per_call: 12,
        scenes: "cuts"
      })
      assert.deepStrictEqual(build["source"]["size_bytes"], 1234)
      assert.match(build["source"]["sha256"], /^[0-9a-f]{64}$/)
      assert.deepStrictEqual(build["frames"], { sampled: 65, sent: 65 })
      // The tree loads as vtree infer loads it.
      const env = yield* loadTreeEnvironment(summary.treeDir)
      assert.isAbove((yield* env.search("crack eggs")).length, 0)
    }))

  it.scoped("short clips (NExT-QA 45 s, EgoSchema 180 s): one scene, events, no empty level; a question file's domain and band per video", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup({
        "next.mp4": { durationSeconds: 45, cuts: [7] },
        "ego.mp4": { durationSeconds: 180 }
      })
      const vlm = yield* ScriptedVlm.make(vlmCards)
      const llm = yield* ScriptedLlm.make(llmCards)
      const metadata: Record<string, { domain: string; durationCategory: "short" | "medium" | "long" }> = {
        next: { domain: "Family", durationCategory: "short" },
        ego: { domain: "Kitchen", durationCategory: "short" }
      }
      const run = (opts: BuildOptions) =>
        Effect.flatMap(
          inputsOf([path.join(dir, "next.mp4"), path.join(dir, "ego.mp4")]),
          (inputs) => buildTree(inputs.map((input) => ({ ...input, ...metadata[input.videoId] })), opts)
        ).pipe(
          Effect.provide(Layer.mergeAll(media.layer, vlm.layer, llm.layer))
        )
      const summaries = yield* run(options(out))
      for (const summary of summaries) {
        const tree = JSON.parse(yield* fs.readFileString(path.join(summary.treeDir, "tree.json"))) as Json
        const nodes = Object.values(tree["nodes"] as Record<string, Json>)
        const level = (n: number) => nodes.filter((node) => node["level"] === n)
        assert.strictEqual(level(1).length, 1, summary.videoId)
        assert.isAtLeast(level(2).length, 1)
        for (const node of [...level(1), ...level(2)]) assert.isAtLeast(node["children_ids"].length, 1)
        assert.deepStrictEqual([tree["domain"], tree["duration_category"]], [
          metadata[summary.videoId]!.domain,
          "short"
        ])
      }
      // --domain wins over the question file's.
      const [again] = yield* run(options(out, { domain: "Given" }))
      const tree = JSON.parse(yield* fs.readFileString(path.join(again!.treeDir, "tree.json"))) as Json
      assert.strictEqual(tree["domain"], "Given")
    }))

  it.scoped("asks again once with the decode error, then keeps a degraded card and goes on", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup({ "short.mp4": { durationSeconds: 30 } })
      // Two events (20 s and 10 s): the first answers badly then well, the second badly twice.
      const vlm = yield* ScriptedVlm.make((
        request,
        i
      ) => (i === 0 || i >= 2 ? "I am not sure what to say." : eventReply(request.text)))
      const llm = yield* ScriptedLlm.make(["{\"main_setting\": \"no summary\"}", "still {broken"])
      const [summary] = yield* Effect.flatMap(
        inputsOf([path.join(dir, "short.mp4")]),
        (inputs) => buildTree(inputs, options(out, { concurrency: 1 }))
      ).pipe(
        Effect.provide(Layer.mergeAll(media.layer, vlm.layer, llm.layer))
      )
      const requests = yield* vlm.requests
      assert.strictEqual(requests.length, 4)
      assert.include(requests[1]!.text, "Your previous reply could not be used: expected one JSON object")
      assert.include((yield* llm.requests)[1]!.messages[1]!.content, "scene_summary: missing or empty")
      assert.deepStrictEqual(summary!.degraded, { events: 1, frames: 5, scenes: 1 })
      assert.deepStrictEqual([summary!.calls.vlm, summary!.calls.llm], [4, 2])
      const { index } = yield* readTreeIndex(summary!.treeDir)
      const second = index.nodes.get("short_L1_000_L2_001")!
      assert.strictEqual(second.card["degraded"], true)
      assert.strictEqual(second.card["event_description"], "I am not sure what to say.")
      assert.strictEqual(index.nodes.get("short_L1_000")!.card["scene_summary"], "still broken")
      const tree = JSON.parse(yield* fs.readFileString(path.join(summary!.treeDir, "tree.json"))) as Json
      assert.deepStrictEqual(tree["build"]["degraded"], { events: 1, frames: 5, scenes: 1 })
    }))

  it.scoped("interrupted midway, the rerun asks only for unfinished work and writes the same tree", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup()
      const file = path.join(dir, "clip.mp4")
      // Reference: one uninterrupted build of the same file into another folder.
      const reference = yield* runBuild(media, [file], options(path.join(dir, "reference")))
      const total = reference.vlm.length
      // The first 3 event calls answer; the 4th never does, and the build is interrupted there.
      const answered = yield* Ref.make(0)
      const stuck = yield* Deferred.make<void>()
      const hanging = Layer.succeed(
        VLMProvider,
        VLMProvider.of({
          chatWithImages: (request) =>
            Effect.flatMap(Ref.getAndUpdate(answered, (n) => n + 1), (n) =>
              n < 3
                ? Effect.succeed({
                  content: eventReply(request.text),
                  // The usage ScriptedVlm reports, so the token totals in tree.json match the reference.
                  usage: {
                    promptTokens: approximateTokens(`${request.system} ${request.text}`),
                    completionTokens: approximateTokens(eventReply(request.text))
                  },
                  model: "scripted-vlm"
                })
                : Effect.zipRight(Deferred.succeed(stuck, undefined), Effect.never))
        })
      )
      const llm = yield* ScriptedLlm.make(llmCards)
      const fiber = yield* Effect.fork(
        Effect.flatMap(inputsOf([file]), (inputs) => buildTree(inputs, options(out, { concurrency: 1 }))).pipe(
          Effect.provide(Layer.mergeAll(media.layer, hanging, llm.layer))
        )
      )
      yield* Deferred.await(stuck)
      yield* Fiber.interrupt(fiber)
      assert.isFalse(yield* fs.exists(path.join(out, "clip", "tree.json")))
      assert.strictEqual((yield* fs.readDirectory(path.join(out, "clip", ".vtree", "checkpoints"))).length, 3)

      const rerun = yield* runBuild(media, [file], options(out))
      assert.strictEqual(rerun.vlm.length, total - 3)
      assert.strictEqual(rerun.summaries[0]!.calls.reused, 3)
      const treeOf = (root: string) => fs.readFileString(path.join(root, "clip", "tree.json"))
      assert.strictEqual(yield* treeOf(out), yield* treeOf(path.join(dir, "reference")))

      // Once finished, a rerun makes no model call and extracts nothing.
      const extractions = yield* media.extractions
      const again = yield* runBuild(media, [file], options(out))
      assert.deepStrictEqual([again.vlm.length, again.llm.length, yield* media.extractions], [0, 0, extractions])
      assert.strictEqual(yield* treeOf(out), yield* treeOf(path.join(dir, "reference")))
    }))

  it.scoped("a second build into the tree folder a build is writing is refused with one line, its frames untouched; a dead build's lock is taken over", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup()
      const file = path.join(dir, "clip.mp4")
      // The first build extracts its frames, then waits in its first vision call.
      const stuck = yield* Deferred.make<void>()
      const hanging = Layer.succeed(
        VLMProvider,
        VLMProvider.of({ chatWithImages: () => Effect.zipRight(Deferred.succeed(stuck, undefined), Effect.never) })
      )
      const llm = yield* ScriptedLlm.make(llmCards)
      const first = yield* Effect.fork(
        Effect.flatMap(inputsOf([file]), (inputs) => buildTree(inputs, options(out, { concurrency: 1 }))).pipe(
          Effect.provide(Layer.mergeAll(media.layer, hanging, llm.layer))
        )
      )
      yield* Deferred.await(stuck)
      const cache = path.join(out, "clip", ".vtree")
      const framesBefore = yield* fs.readDirectory(cache)
      for (const force of [false, true]) {
        const error = yield* Effect.flip(runBuild(media, [file], options(out, { force })))
        assert.strictEqual(error._tag, "BuildError")
        assert.strictEqual(
          error.message,
          `another build is writing this tree (${yield* fs.realPath(
            path.join(out, "clip")
          )}) — wait for it or use another --out`
        )
      }
      assert.deepStrictEqual(yield* fs.readDirectory(cache), framesBefore)
      yield* Fiber.interrupt(first)
      assert.isFalse(yield* fs.exists(path.join(cache, "build.lock")))

      // A build killed with -9 leaves its lock behind; its process is gone, so the next build takes it over.
      yield* fs.writeFileString(path.join(cache, "build.lock"), JSON.stringify({ pid: 2 ** 31 - 2, host: hostname() }))
      const rerun = yield* runBuild(media, [file], options(out))
      assert.strictEqual(rerun.summaries[0]!.videoId, "clip")
      assert.isFalse(yield* fs.exists(path.join(cache, "build.lock")))
    }))

  // Five builds of a 700 s video: 23 s at load 20 on two cores, past the 30 s default at load 26.
  it.scoped(
    "a changed parameter or model redoes only what it affects; --force redoes everything",
    () =>
      Effect.gen(function*() {
        const { dir, media, out, path } = yield* setup({ "long.mp4": { durationSeconds: 700, cuts: [100, 290, 450] } })
        const file = path.join(dir, "long.mp4")
        // Fixed scenes are grouped from the event cards, so --scene-seconds moves no event.
        const fixed = { scenes: "fixed" } as const
        const first = yield* runBuild(media, [file], options(out, { parameters: fixed }))
        const events = first.vlm.length
        assert.isAbove(first.summaries[0]!.scenes, 1)
        // Scenes regrouped: no vision call, scene calls only.
        const scenes = yield* runBuild(media, [file], options(out, { parameters: { ...fixed, sceneSeconds: 150 } }))
        assert.strictEqual(scenes.vlm.length, 0)
        assert.isAbove(scenes.llm.length, 0)
        // Another vision model: every event again; the scene texts then change too.
        const model = yield* runBuild(
          media,
          [file],
          options(out, { parameters: fixed, models: { ...models, vlm: "other-vlm" } })
        )
        assert.strictEqual(model.vlm.length, events)
        // Back to the first settings: all from checkpoints.
        const back = yield* runBuild(media, [file], options(out, { parameters: fixed }))
        assert.deepStrictEqual([back.vlm.length, back.llm.length], [0, 0])
        const extractions = yield* media.extractions
        const forced = yield* runBuild(media, [file], options(out, { parameters: fixed, force: true }))
        assert.deepStrictEqual([forced.vlm.length, forced.llm.length], [events, first.llm.length])
        assert.strictEqual(yield* media.extractions, extractions + 1)
      }),
    { timeout: 120_000 }
  )

  it.scoped("several videos in one go; embeddings cached at build time when a provider is present", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup({
        "a.mp4": { durationSeconds: 45 },
        "b.mkv": { durationSeconds: 25 }
      })
      const events: Array<string> = []
      const cacheDir = yield* scopedTempDir("cache")
      const { summaries } = yield* runBuild(
        media,
        [dir],
        options(out, {
          onEvent: (event) => Effect.sync(() => events.push(event._tag === "CallFinished" ? event.kind : event._tag))
        }),
        HashingEmbedder.layer()
      ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cacheDir]]))))
      assert.deepStrictEqual(summaries.map((s) => s.videoId), ["a", "b"])
      assert.isTrue(summaries.every((s) => s.embedded))
      // The build warms the cache folder (VTREE_CACHE_DIR), where infer looks for it, one folder per tree.
      assert.strictEqual((yield* fs.readDirectory(path.join(cacheDir, "embeddings"))).length, 2)
      for (const id of ["a", "b"]) {
        const cache = (yield* fs.readDirectory(path.join(out, id, ".vtree"))).filter((name) =>
          name.startsWith("embeddings-")
        )
        assert.strictEqual(cache.length, 0)
        const tree = JSON.parse(yield* fs.readFileString(path.join(out, id, "tree.json"))) as Json
        assert.strictEqual(tree["build"]["models"]["embedding"], "hashing-256")
      }
      assert.strictEqual(events[0], "VideoStarted")
      assert.strictEqual(events.filter((tag) => tag === "VideoFinished").length, 2)
      assert.strictEqual(events.at(-1), "VideoFinished")
    }))
})

layer(NodeContext.layer)("tree folders (issue #21)", (it) => {
  it.scoped("a folder with the video's id that vtree did not make is refused, --force or not, and left as it was", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup()
      const theirs = path.join(out, "clip")
      yield* fs.makeDirectory(path.join(theirs, "frames"), { recursive: true })
      yield* fs.writeFileString(path.join(theirs, "tree.json"), "{\"videoID\": \"clip\", \"nodes\": {}}")
      yield* fs.writeFileString(path.join(theirs, "frames", "holiday.jpg"), "my photo")
      for (const force of [false, true]) {
        const error = yield* Effect.flip(runBuild(media, [path.join(dir, "clip.mp4")], options(out, { force })))
        assert.strictEqual(error._tag, "BuildError")
        assert.strictEqual(
          error.message,
          `${yield* fs.realPath(
            theirs
          )}: a folder vtree build did not make (no .vtree/tree-folder.json, no tree.json with vtree's build record) — move it away or choose another --out; --force does not override this`
        )
      }
      assert.strictEqual(
        yield* fs.readFileString(path.join(theirs, "tree.json")),
        "{\"videoID\": \"clip\", \"nodes\": {}}"
      )
      assert.strictEqual(yield* fs.readFileString(path.join(theirs, "frames", "holiday.jpg")), "my photo")
      assert.deepStrictEqual((yield* fs.readDirectory(theirs)).sort(), ["frames", "tree.json"])
    }))

  it.scoped("a tree folder that is a symbolic link to elsewhere is refused; nothing is written through it", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup()
      const elsewhere = path.join(dir, "elsewhere")
      yield* fs.makeDirectory(elsewhere)
      yield* fs.makeDirectory(out)
      yield* fs.symlink(elsewhere, path.join(out, "clip"))
      const error = yield* Effect.flip(runBuild(media, [path.join(dir, "clip.mp4")], options(out)))
      assert.strictEqual(error._tag, "BuildError")
      assert.match(
        error.message,
        /clip: a symbolic link inside --out \(to .*elsewhere\) — vtree writes no tree through a link; remove it or choose another --out$/
      )
      assert.deepStrictEqual(yield* fs.readDirectory(elsewhere), [])
    }))

  it.scoped("a rebuild removes the frames vtree wrote and no longer needs, never a file someone else put there", () =>
    Effect.gen(function*() {
      const { dir, fs, media, out, path } = yield* setup()
      const file = path.join(dir, "clip.mp4")
      yield* runBuild(media, [file], options(out))
      const frames = path.join(out, "clip", "frames")
      assert.strictEqual((yield* fs.readDirectory(frames)).length, 65)
      yield* fs.writeFileString(path.join(frames, "holiday.jpg"), "my photo")
      const [again] = (yield* runBuild(media, [file], options(out, { parameters: { frameInterval: 4 } }))).summaries
      const left = yield* fs.readDirectory(frames)
      assert.strictEqual(left.length, again!.framesSent + 1)
      assert.include(left, "holiday.jpg")
      const marker = JSON.parse(yield* fs.readFileString(path.join(out, "clip", ".vtree", "tree-folder.json")))
      assert.deepStrictEqual(marker, { made_by: "vtree build", videoID: "clip" })
    }))
})

describe("buildTree pipelining", () => {
  // Live clock: the timeout below turns a missing overlap into a failure instead of a hang. It only has to beat
  // the test's own timeout, not the build: about 2 s on a loaded machine, so a minute leaves room for far worse.
  it.scopedLive("extracts the next video's frames while the current one is captioned", () =>
    Effect.gen(function*() {
      const { dir, media, out, path } = yield* setup({
        "a.mp4": { durationSeconds: 45 },
        "b.mp4": { durationSeconds: 45 }
      })
      const secondExtraction = yield* Deferred.make<void>()
      const [frames, probe] = yield* Effect.all([FrameSource, MediaProbe]).pipe(Effect.provide(media.layer))
      const watched = Layer.succeed(
        FrameSource,
        FrameSource.of({
          extract: (request) =>
            Effect.zipRight(
              request.path.endsWith("b.mp4") ? Deferred.succeed(secondExtraction, undefined) : Effect.void,
              frames.extract(request)
            )
        })
      )
      // Video a's vision calls answer only once b's extraction has begun: without the overlap, this never finishes.
      const vlm = Layer.succeed(
        VLMProvider,
        VLMProvider.of({
          chatWithImages: (request) =>
            Effect.as(Deferred.await(secondExtraction), {
              content: eventReply(request.text),
              usage: { promptTokens: 1, completionTokens: 1 },
              model: "v"
            })
        })
      )
      const llm = yield* ScriptedLlm.make(llmCards)
      const summaries = yield* Effect.flatMap(inputsOf([path.join(dir, "a.mp4"), path.join(dir, "b.mp4")]), (inputs) =>
        buildTree(inputs, options(out))).pipe(
          Effect.provide(Layer.mergeAll(Layer.succeed(MediaProbe, probe), watched, vlm, llm.layer)),
          Effect.timeoutFail({
            duration: "60 seconds",
            onTimeout: () =>
              "the second video was not extracted while the first was captioned"
          })
        )
      assert.deepStrictEqual(
        summaries.map((s) => s.videoId),
        ["a", "b"]
      )
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 90_000 })

  it.scopedLive(
    "starts a scene's call once its events are done, while later events are still captioned",
    () =>
      Effect.gen(function*() {
        const { dir, media, out, path } = yield* setup({ "long.mp4": { durationSeconds: 700 } })
        const sceneAsked = yield* Deferred.make<void>()
        // The last event answers only after a scene call was made: without the overlap, this never finishes.
        const vlm = Layer.succeed(
          VLMProvider,
          VLMProvider.of({
            chatWithImages: (request) =>
              Effect.as(
                request.text.startsWith("Event 35 of 35") ? Deferred.await(sceneAsked) : Effect.void,
                { content: eventReply(request.text), usage: { promptTokens: 1, completionTokens: 1 }, model: "v" }
              )
          })
        )
        const llm = yield* ScriptedLlm.make((request) => llmCards(request))
        const [summary] = yield* Effect.flatMap(inputsOf([path.join(dir, "long.mp4")]), (inputs) =>
          buildTree(
            inputs,
            options(out, {
              // The scenes grouped from the cards as they arrive (cuts mode's scenes: SceneCuts.test.ts).
              parameters: { scenes: "fixed" },
              onEvent: (event) =>
                event._tag === "CallFinished" && event.kind === "scene"
                  ? Deferred.succeed(sceneAsked, undefined)
                  : Effect.void
            })
          )).pipe(
            Effect.provide(Layer.mergeAll(media.layer, vlm, llm.layer)),
            Effect.timeoutFail({
              duration: "60 seconds",
              onTimeout: () => "no scene call started before the last event finished"
            })
          )
        assert.strictEqual(summary!.events, 35)
        assert.isAbove(summary!.scenes, 1)
        assert.strictEqual((yield* llm.requests).length, summary!.scenes)
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 90_000 }
  )
})

layer(NodeContext.layer)("build inputs", (it) => {
  describe("bad input is one line naming the file, before anything is written", () => {
    it.scoped("two videos with one id, a folder without videos, a missing file", () =>
      Effect.gen(function*() {
        const { dir, fs, path } = yield* setup({ "x.mp4": clip, "x.mkv": clip })
        const clash = yield* Effect.flip(listVideos([dir]))
        assert.strictEqual(
          clash.message,
          `${path.join(dir, "x.mkv")} and ${
            path.join(dir, "x.mp4")
          } both map to video id "x" (the file name without its extension) — rename one, or build them into different --out folders`
        )
        const empty = path.join(dir, "empty")
        yield* fs.makeDirectory(empty)
        assert.include((yield* Effect.flip(listVideos([empty]))).message, `${empty}: no video files in this folder`)
        assert.strictEqual(
          (yield* Effect.flip(listVideos([path.join(dir, "nope.mp4")]))).message,
          `${path.join(dir, "nope.mp4")}: not found — check the path`
        )
        // The same file named twice is built once.
        assert.strictEqual((yield* listVideos([path.join(dir, "x.mp4"), path.join(dir, "x.mp4")])).length, 1)
      }))

    it.scoped("ids keep the letters of every script; names without one, and ids equal but for case, are refused (issue #21)", () =>
      Effect.gen(function*() {
        const { dir, path } = yield* setup({
          "視頻.mp4": clip,
          "ünïcødé.mp4": clip,
          "...mp4": clip,
          "..mp4": clip,
          "Clip.mp4": clip,
          "clip.mkv": clip
        })
        const ids = yield* listVideos([path.join(dir, "視頻.mp4"), path.join(dir, "ünïcødé.mp4")])
        assert.deepStrictEqual(ids.map((video) => video.videoId), ["視頻", "ünïcødé"])
        for (const name of ["...mp4", "..mp4"]) {
          const refused = yield* Effect.flip(listVideos([path.join(dir, name)]))
          assert.strictEqual(
            refused.message,
            `${path.join(dir, name)}: the file name has no letter or digit to make an id from — rename the file`
          )
        }
        const clash = yield* Effect.flip(listVideos([path.join(dir, "Clip.mp4"), path.join(dir, "clip.mkv")]))
        assert.include(clash.message, `map to video ids "Clip" and "clip", one folder where case does not count`)
      }))

    it.scoped("not a video, audio only, zero length", () =>
      Effect.gen(function*() {
        const { dir, media, path } = yield* setup({
          "song.m4a": { durationSeconds: 60, audioOnly: true },
          "empty.mp4": { durationSeconds: 0 }
        })
        const probe = (name: string) =>
          Effect.flip(probeVideos([{ path: path.join(dir, name), videoId: "v" }])).pipe(Effect.provide(media.layer))
        assert.strictEqual(
          (yield* probe("notes.txt")).message,
          `${path.join(dir, "notes.txt")}: not a video file ffprobe can read — pass a video file`
        )
        assert.strictEqual(
          (yield* probe("song.m4a")).message,
          `${path.join(dir, "song.m4a")}: it has no video stream (audio only?) — pass a video file`
        )
        assert.include((yield* probe("empty.mp4")).message, "empty.mp4: zero length")
      }))

    it.scoped("an output folder that cannot be written", () =>
      Effect.gen(function*() {
        const { dir, fs, path } = yield* setup({})
        const file = path.join(dir, "a-file")
        yield* fs.writeFileString(file, "")
        const error = yield* Effect.flip(checkWritable(path.join(file, "trees")))
        assert.strictEqual(error.reason, "Unwritable")
        assert.match(
          error.message,
          /^--out .*a-file\/trees: cannot write there \(.*\) — choose a folder you can write to$/
        )
        yield* checkWritable(path.join(dir, "fine"))
      }))
  })
})
