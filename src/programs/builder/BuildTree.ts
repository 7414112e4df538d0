/**
 * `buildTree`: video files → trees that `vtree infer` reads (the form domain/Tree.ts decodes). Per video:
 * its tree folder checked and claimed, frames and shot changes, subtitles (Preparation.ts); one vision
 * call per event and one text call per scene, each checkpointed (Captioning.ts); then tree.json
 * assembled (TreeAssembly.ts) and written with its frames (TreeWriter.ts). A rerun asks nothing twice.
 * Videos go one after another; the next one's frames are extracted while the current one is captioned.
 */
import * as Path from "@effect/platform/Path"
import { Clock, Effect, Fiber, Option } from "effect"
import { EmbeddingProvider } from "../../services/EmbeddingProvider.js"
import { SpeechToText } from "../../services/SpeechToText.js"
import type { RoleCosts } from "./BuildCost.js"
import { BuildError } from "./BuildError.js"
import { type BuildInput, type BuildOptions, defaultBuildConcurrency, type VideoSummary } from "./BuildOptions.js"
import { type CallScope, captionEvents } from "./Captioning.js"
import { completeCard } from "./Cards.js"
import { checkParameters, defaultParameters } from "./Plan.js"
import { type PreparedVideo, prepareVideo } from "./Preparation.js"
import { buildRegistry } from "./RegistryCall.js"
import { planVideoEvents } from "./SceneCuts.js"
import { subtitleKind } from "./Subtitles.js"
import { type AssembledScene, assembleTree } from "./TreeAssembly.js"
import { checkTreeFolder, resolveOutDir } from "./TreeFolder.js"
import { buildRecord, treeRoles, writeTree } from "./TreeWriter.js"

type Captioned = Effect.Effect.Success<ReturnType<typeof captionEvents>>

/** The scenes of the tree: each a group of captioned events, each event with its frames' cards and images. */
const assembledScenes = (video: PreparedVideo, { groups, scenes }: Captioned): Array<AssembledScene> =>
  groups.map((group, s) => ({
    start: group[0]!.plan.start,
    end: group[group.length - 1]!.plan.end,
    // Through completeCard again: checkpoints of earlier versions kept the model's bookkeeping keys.
    card: completeCard(1, scenes[s]!.scene),
    events: group.map((event) => ({
      start: event.plan.start,
      end: event.plan.end,
      card: completeCard(2, event.checkpoint.event),
      frames: event.plan.frames.map((frame, f) => ({
        time: frame.time,
        card: completeCard(3, event.checkpoint.frames[f]!),
        source: video.frames[frame.source]!.path
      }))
    }))
  }))

/** The summary row of a video whose tree is written. */
const videoSummary = (input: {
  readonly video: PreparedVideo
  readonly treeDir: string
  readonly captioned: Captioned
  readonly build: ReturnType<typeof buildRecord>
  readonly made: CallScope["made"]
  readonly roles: RoleCosts
  readonly embedded: boolean
  readonly wallSeconds: number
}): VideoSummary => {
  const { build, captioned, made, video } = input
  return {
    videoId: video.videoId,
    treeDir: input.treeDir,
    durationSeconds: video.info.durationSeconds,
    frames: video.frames.length,
    framesSent: build.frames.sent,
    events: captioned.events.length,
    scenes: captioned.scenes.length,
    calls: { vlm: made.vlm, llm: made.llm, reused: made.reused },
    tokens: { prompt: made.prompt, completion: made.completion },
    degraded: build.degraded,
    embedded: input.embedded,
    subtitles: subtitleKind(video.subtitleSource),
    damaged: video.damaged,
    wallSeconds: input.wallSeconds,
    roles: input.roles
  }
}

/** Captions a prepared video (events, then scenes grouped from their cards) and writes its tree. */
export const captionVideo = Effect.fn("BuildTree.captionVideo")(function*(
  video: PreparedVideo,
  options: BuildOptions,
  position: { readonly index: number; readonly total: number } = { index: 0, total: 1 }
) {
  const path = yield* Path.Path
  yield* Effect.annotateCurrentSpan("vtree.video_id", video.videoId)
  const started = yield* Clock.currentTimeMillis
  const p = { ...defaultParameters, ...options.parameters }
  const scope: CallScope = {
    video,
    options,
    made: { vlm: 0, llm: 0, reused: 0, prompt: 0, completion: 0 },
    emit: options.onEvent ?? (() => Effect.void)
  }
  const durationSeconds = video.info.durationSeconds
  const plans = planVideoEvents({ durationSeconds, frames: video.frames, shotChanges: video.shotChanges }, p)
  yield* scope.emit({
    _tag: "VideoStarted",
    videoId: video.videoId,
    index: position.index,
    total: position.total,
    events: plans.length,
    frames: video.frames.length
  })
  const captioned = yield* captionEvents(scope, plans, p)
  const scenes = assembledScenes(video, captioned)
  const registry = yield* buildRegistry(scope, scenes, options.concurrency ?? defaultBuildConcurrency)
  const embedding = yield* Effect.serviceOption(EmbeddingProvider)
  const speech = yield* Effect.serviceOption(SpeechToText)
  const roles = treeRoles({
    video,
    parameters: p,
    events: captioned.events,
    text: [...captioned.scenes, ...registry.checkpoints],
    speechUploadBytes: Option.getOrUndefined(Option.map(speech, (s) => s.maxUploadBytes))
  })
  const build = buildRecord({
    video,
    options,
    parameters: p,
    events: captioned.events,
    scenes: captioned.scenes,
    registry: registry.checkpoints,
    roles,
    embeddingModel: Option.getOrUndefined(Option.map(embedding, (e) => e.model))
  })
  const tree = assembleTree({
    videoId: video.videoId,
    durationSeconds,
    domain: options.domain ?? video.domain,
    durationCategory: video.durationCategory,
    frameInterval: p.frameInterval,
    cues: video.cues,
    build,
    scenes,
    entities: registry.entities
  })
  const embedded = yield* writeTree(video, tree, embedding)
  const summary = videoSummary({
    video,
    // As the caller named it (--out's links unresolved), for the summary a person reads.
    treeDir: path.join(options.outDir, video.videoId),
    captioned,
    build,
    made: scope.made,
    roles,
    embedded,
    wallSeconds: ((yield* Clock.currentTimeMillis) - started) / 1000
  })
  yield* scope.emit({ _tag: "VideoFinished", summary })
  return summary
})

/**
 * Builds every input in order. Every tree folder is checked first (new, or made by vtree for that
 * video), so a folder of someone else's stops the command before anything is written. The next video
 * is prepared (hashed, frames extracted) while the current one is captioned. Fails on the first
 * error; trees finished before it stay written.
 */
export const buildTree = Effect.fn("BuildTree.buildTree")(
  function*<R = never>(inputs: ReadonlyArray<BuildInput<R>>, options: BuildOptions) {
    const problem = checkParameters({ ...defaultParameters, ...options.parameters })
    if (problem !== undefined) return yield* new BuildError({ reason: "BadOption", message: problem })
    const summaries: Array<VideoSummary> = []
    if (inputs.length === 0) return summaries
    const root = yield* resolveOutDir(options.outDir)
    yield* Effect.forEach(inputs, (input) => checkTreeFolder(root, input.videoId), { discard: true })
    // The scope holds each tree folder's build lock (TreeFolder.lockTreeFolder) until the build ends.
    return yield* Effect.scoped(Effect.gen(function*() {
      let next = yield* Effect.fork(prepareVideo(inputs[0]!, options))
      for (let i = 0; i < inputs.length; i++) {
        const prepared = yield* Fiber.join(next)
        if (i + 1 < inputs.length) next = yield* Effect.fork(prepareVideo(inputs[i + 1]!, options))
        summaries.push(yield* captionVideo(prepared, options, { index: i, total: inputs.length }))
      }
      return summaries
    }))
  }
)
