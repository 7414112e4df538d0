/**
 * `buildTree`: video files → trees that `vtree infer` reads (DESIGN §5.1, issue #10). Per video:
 * frames on a time grid and shot changes (FrameSource, cached in `.vtree/`), subtitles, one vision call
 * per event (its frames + subtitles → the L2 card and one L3 card per frame), one text call per scene
 * (its event cards → the L1 card), then tree.json written atomically, and the retrieval embeddings when
 * an EmbeddingProvider is present. Every finished call is checkpointed, so a rerun asks nothing twice.
 * Videos go one after another; the next one's frames are extracted while the current one is captioned.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Clock, Effect, Either, Fiber, Option, Schema, Stream } from "effect"
import { createHash } from "node:crypto"
import type { SubtitleCue } from "../../domain/Media.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { packageVersion } from "../../PackageRoot.js"
import { EmbeddingProvider } from "../../services/EmbeddingProvider.js"
import { FrameSource } from "../../services/FrameSource.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { VLMProvider } from "../../services/VLMProvider.js"
import { loadTreeEnvironment } from "../tree/TreeLoader.js"
import { BuildError } from "./BuildError.js"
import type { BuildPrompts } from "./BuildPrompts.js"
import {
  type Card,
  decodeEventReply,
  decodeSceneReply,
  degradedEventCards,
  degradedSceneCard,
  type EventCards,
  eventText,
  retryText,
  sceneText
} from "./Cards.js"
import {
  checkpointKey,
  type CheckpointUsage,
  type EventCheckpoint,
  readEventCheckpoint,
  readSceneCheckpoint,
  type SceneCheckpoint,
  sha256,
  writeAtomically,
  writeCheckpoint
} from "./Checkpoint.js"
import { fromMediaError, type ProbedVideo } from "./Inputs.js"
import {
  assignFrames,
  type BuildParameters,
  cardWords,
  checkParameters,
  defaultParameters,
  groupScenes,
  makeSceneScheduler,
  type PlannedEvent,
  planEventWindows
} from "./Plan.js"
import { subtitleFor } from "./Subtitles.js"
import { assembleTree, cuesIn } from "./TreeJson.js"

export { BuildError, BuildErrorReason } from "./BuildError.js"

/** Reply budgets: a card per frame plus the event card fits well under these. */
export const eventMaxTokens = 4096
export const sceneMaxTokens = 2048
export const defaultBuildConcurrency = 16

export interface LoadedSubtitles {
  /** Where the cues come from, for the build record: "sidecar:x.srt", "embedded:x.mp4#2", "asr", "none". */
  readonly source: string
  readonly cues: ReadonlyArray<SubtitleCue>
}

export interface BuildInput<R = never> extends ProbedVideo {
  /** Resolved by the caller (file, sidecar, stream, speech to text), run when the video is prepared; none → no subtitles. */
  readonly subtitles?: Effect.Effect<LoadedSubtitles, BuildError, R>
}

export type BuildEvent =
  | {
    readonly _tag: "VideoStarted"
    readonly videoId: string
    readonly index: number
    readonly total: number
    readonly events: number
    readonly frames: number
  }
  | {
    readonly _tag: "CallFinished"
    readonly videoId: string
    readonly kind: "event" | "scene"
    /** Answered from a checkpoint: no model call. */
    readonly reused: boolean
    readonly calls: number
    readonly promptTokens: number
    readonly completionTokens: number
  }
  | { readonly _tag: "VideoFinished"; readonly summary: VideoSummary }

export interface BuildOptions {
  /** Trees go to `<outDir>/<videoID>/`. */
  readonly outDir: string
  readonly parameters?: Partial<BuildParameters>
  readonly prompts: BuildPrompts
  /** Model names, as the provider Layers are configured: part of every checkpoint key. */
  readonly models: { readonly vlm: string; readonly llm: string }
  readonly domain?: string
  /** Drop checkpoints and cached frames first. */
  readonly force?: boolean
  /** Model calls in flight at once (the provider Layers cap it too); default 16. */
  readonly concurrency?: number
  readonly onEvent?: (event: BuildEvent) => Effect.Effect<void>
}

export interface VideoSummary {
  readonly videoId: string
  readonly treeDir: string
  readonly durationSeconds: number
  /** Frames sampled on the grid, and how many of them the vision model saw. */
  readonly frames: number
  readonly framesSent: number
  readonly events: number
  readonly scenes: number
  /** Model calls made by this run (retries of unusable replies included), and calls answered from checkpoints. */
  readonly calls: { readonly vlm: number; readonly llm: number; readonly reused: number }
  readonly tokens: { readonly prompt: number; readonly completion: number }
  readonly degraded: { readonly events: number; readonly frames: number; readonly scenes: number }
  readonly embedded: boolean
  readonly wallSeconds: number
}

// ---- Frames: extracted once per (source, interval, width), kept in .vtree/ -------------------------

const Manifest = Schema.Struct({
  key: Schema.String,
  frames: Schema.Array(Schema.Struct({ time: Schema.Number, file: Schema.String })),
  shotChanges: Schema.Array(Schema.Number)
})

export interface PreparedFrame {
  readonly time: number
  readonly path: string
  readonly sha256: string
}

export interface PreparedVideo extends ProbedVideo {
  readonly treeDir: string
  readonly sourceSha256: string
  readonly frames: ReadonlyArray<PreparedFrame>
  readonly shotChanges: ReadonlyArray<number>
  readonly cues: ReadonlyArray<SubtitleCue>
  readonly subtitleSource: string
}

const unwritable = (dir: string) => (error: { readonly message: string }) =>
  new BuildError({ reason: "Unwritable", message: `${dir}: cannot write the tree (${error.message.split("\n")[0]}) — check the --out folder's permissions and free space` })

const hashFile = Effect.fn("BuildTree.hashFile")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const hash = createHash("sha256")
  // 1 MiB reads: the default small chunks cost more in per-chunk overhead than the hashing itself.
  yield* fs.stream(file, { chunkSize: FileSystem.MiB(1) }).pipe(Stream.runForEach((chunk) => Effect.sync(() => hash.update(chunk))))
  return hash.digest("hex")
})

/** Source hash, frames (from the cache when it matches), shot changes and subtitles of one video. */
export const prepareVideo = Effect.fn("BuildTree.prepareVideo")(function*<R = never>(input: BuildInput<R>, options: BuildOptions) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const frameSource = yield* FrameSource
  const p = { ...defaultParameters, ...options.parameters }
  const treeDir = path.join(options.outDir, input.videoId)
  const cacheDir = path.join(treeDir, ".vtree")
  const fresh = !(yield* fs.exists(treeDir).pipe(Effect.orElseSucceed(() => false)))
  if (options.force === true) yield* fs.remove(cacheDir, { recursive: true }).pipe(Effect.catchAll(() => Effect.void))
  const sourceSha256 = yield* hashFile(input.path).pipe(
    Effect.mapError((error) => new BuildError({ reason: "BadInput", message: `${input.path}: cannot be read (${error.message}) — check the file` }))
  )
  const key = sha256(JSON.stringify({ sourceSha256, interval: p.frameInterval, width: p.frameWidth })).slice(0, 16)
  const framesDir = path.join(cacheDir, `frames-${key}`)
  const manifestFile = path.join(framesDir, "manifest.json")

  const cached = yield* fs.readFileString(manifestFile).pipe(
    Effect.flatMap((text) => Effect.try(() => JSON.parse(text) as unknown)),
    Effect.flatMap(Schema.decodeUnknown(Manifest)),
    Effect.filterOrFail((manifest) => manifest.key === key),
    Effect.option
  )
  const extraction = Option.isSome(cached)
    ? {
      frames: cached.value.frames.map((frame) => ({ timeSeconds: frame.time, path: path.join(framesDir, frame.file) })),
      shotChanges: cached.value.shotChanges
    }
    : yield* Effect.gen(function*() {
      yield* fs.remove(framesDir, { recursive: true }).pipe(Effect.catchAll(() => Effect.void))
      yield* fs.makeDirectory(framesDir, { recursive: true }).pipe(Effect.mapError(unwritable(treeDir)))
      const extracted = yield* frameSource.extract({
        path: input.path,
        intervalSeconds: p.frameInterval,
        width: p.frameWidth,
        outDir: framesDir
      }).pipe(
        Effect.mapError(fromMediaError),
        // A video that does not decode leaves nothing behind: no half-made tree folder.
        Effect.tapError(() => fs.remove(fresh ? treeDir : framesDir, { recursive: true }).pipe(Effect.ignore))
      )
      if (extracted.frames.length === 0) {
        return yield* new BuildError({ reason: "BadInput", message: `${input.path}: no frame could be decoded — the file is damaged or cut short; re-encode it` })
      }
      yield* writeAtomically(
        manifestFile,
        JSON.stringify({
          key,
          frames: extracted.frames.map((frame) => ({ time: frame.timeSeconds, file: path.relative(framesDir, frame.path) })),
          shotChanges: extracted.shotChanges
        })
      ).pipe(Effect.mapError(unwritable(treeDir)))
      return extracted
    })
  const frames = yield* Effect.forEach(extraction.frames, (frame) =>
    fs.readFile(frame.path).pipe(
      Effect.map((bytes): PreparedFrame => ({ time: frame.timeSeconds, path: frame.path, sha256: sha256(bytes) })),
      Effect.mapError(() =>
        new BuildError({ reason: "Unwritable", message: `${frame.path}: extracted frame missing — run again with --force` })
      )
    ), { concurrency: 16 })
  const subtitles = input.subtitles === undefined ? { source: "none", cues: [] } : yield* input.subtitles
  return {
    ...input,
    treeDir,
    sourceSha256,
    frames,
    shotChanges: extraction.shotChanges,
    cues: subtitles.cues,
    subtitleSource: subtitles.source
  } satisfies PreparedVideo
})

// ---- Calls -----------------------------------------------------------------------------------------

interface CallOutcome<A> {
  readonly value: A
  readonly degraded: boolean
  readonly usage: CheckpointUsage
  readonly model: string
}

/** Asks once, and once more with the decode error; a second unusable reply gives degraded cards. */
const askTwice = <A>(
  ask: (text: string) => Effect.Effect<{ readonly content: string; readonly model: string; readonly usage: { readonly promptTokens: number; readonly completionTokens: number } }, ProviderError>,
  text: string,
  decode: (raw: string) => Either.Either<A, string>,
  degrade: (raw: string) => A
): Effect.Effect<CallOutcome<A>, ProviderError> =>
  Effect.gen(function*() {
    const first = yield* ask(text)
    const decoded = decode(first.content)
    if (Either.isRight(decoded)) {
      return { value: decoded.right, degraded: false, model: first.model, usage: { calls: 1, ...first.usage } }
    }
    const second = yield* ask(retryText(text, decoded.left))
    const again = decode(second.content)
    const usage = {
      calls: 2,
      promptTokens: first.usage.promptTokens + second.usage.promptTokens,
      completionTokens: first.usage.completionTokens + second.usage.completionTokens
    }
    return Either.isRight(again)
      ? { value: again.right, degraded: false, model: second.model, usage }
      : { value: degrade(second.content), degraded: true, model: second.model, usage }
  })

const range = (start: number, end: number) => `${Math.round(start)}–${Math.round(end)} s`

const providerFailed = (videoId: string, what: string) => (error: ProviderError) =>
  new BuildError({
    reason: "ProviderFailed",
    message: `${videoId}: ${what}: ${error.message.split("\n")[0]} — finished calls are saved; fix the endpoint and run the same command again to resume`
  })

interface EventResult {
  readonly plan: PlannedEvent
  readonly checkpoint: EventCheckpoint
  readonly cues: ReadonlyArray<SubtitleCue>
}

/** What one video's calls share: where checkpoints go, the counts for the summary, the event sink. */
interface CallScope {
  readonly video: PreparedVideo
  readonly options: BuildOptions
  readonly made: { vlm: number; llm: number; reused: number; prompt: number; completion: number }
  readonly emit: (event: BuildEvent) => Effect.Effect<void>
}

const isoNow = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const finished = (scope: CallScope, kind: "event" | "scene", reused: boolean, usage: CheckpointUsage) =>
  Effect.suspend(() => {
    if (reused) scope.made.reused += 1
    else {
      scope.made[kind === "event" ? "vlm" : "llm"] += usage.calls
      scope.made.prompt += usage.promptTokens
      scope.made.completion += usage.completionTokens
    }
    const counted = reused ? { calls: 0, promptTokens: 0, completionTokens: 0 } : usage
    return scope.emit({ _tag: "CallFinished", videoId: scope.video.videoId, kind, reused, ...counted })
  })

/** One event: from its checkpoint, or one vision call (asked twice at most) checkpointed at once. */
const captionEvent = Effect.fnUntraced(function*(scope: CallScope, plan: PlannedEvent, total: number) {
  const { options, video } = scope
  const vlm = yield* VLMProvider
  const cues = cuesIn(video.cues, plan.start, plan.end)
  const text = eventText({ index: plan.index, total, start: plan.start, end: plan.end, frameTimes: plan.frames.map((f) => f.time), cues })
  const images = plan.frames.map((frame) => video.frames[frame.source]!)
  const key = checkpointKey({
    kind: "event",
    model: options.models.vlm,
    prompt: options.prompts.event,
    text,
    images: images.map((image) => image.sha256),
    parameters: { maxTokens: eventMaxTokens }
  })
  const saved = yield* readEventCheckpoint(video.treeDir, key)
  if (Option.isSome(saved)) {
    yield* finished(scope, "event", true, saved.value.usage)
    return { plan, checkpoint: saved.value, cues } satisfies EventResult
  }
  const outcome = yield* askTwice<EventCards>(
    (userText) => vlm.chatWithImages({ system: options.prompts.event, text: userText, images: images.map((image) => image.path), maxTokens: eventMaxTokens }),
    text,
    (raw) => decodeEventReply(raw, images.length),
    (raw) => degradedEventCards(raw, images.length)
  ).pipe(Effect.mapError(providerFailed(video.videoId, `event ${plan.index + 1} (${range(plan.start, plan.end)}), vision call`)))
  const checkpoint: EventCheckpoint = {
    kind: "event",
    key,
    createdAt: yield* isoNow,
    model: outcome.model,
    degraded: outcome.degraded,
    usage: outcome.usage,
    event: outcome.value.event,
    frames: outcome.value.frames
  }
  yield* writeCheckpoint(video.treeDir, checkpoint).pipe(Effect.mapError(unwritable(video.treeDir)))
  yield* finished(scope, "event", false, outcome.usage)
  return { plan, checkpoint, cues } satisfies EventResult
})

/** One scene: from its checkpoint, or one text call (thinking off) over its events' cards. */
const captionScene = Effect.fnUntraced(function*(scope: CallScope, group: ReadonlyArray<EventResult>, index: number) {
  const { options, video } = scope
  const llm = yield* LLMProvider
  const start = group[0]!.plan.start
  const end = group[group.length - 1]!.plan.end
  const text = sceneText({
    index,
    start,
    end,
    events: group.map((event) => ({
      start: event.plan.start,
      end: event.plan.end,
      card: event.checkpoint.event,
      subtitle: subtitleFor(event.cues, [event.plan.start, event.plan.end])
    }))
  })
  const key = checkpointKey({ kind: "scene", model: options.models.llm, prompt: options.prompts.scene, text, images: [], parameters: { maxTokens: sceneMaxTokens } })
  const saved = yield* readSceneCheckpoint(video.treeDir, key)
  if (Option.isSome(saved)) {
    yield* finished(scope, "scene", true, saved.value.usage)
    return saved.value
  }
  const outcome = yield* askTwice<Record<string, unknown>>(
    (userText) =>
      llm.chat({
        role: "tool",
        thinking: false,
        maxTokens: sceneMaxTokens,
        messages: [{ role: "system", content: options.prompts.scene }, { role: "user", content: userText }]
      }),
    text,
    decodeSceneReply,
    degradedSceneCard
  ).pipe(Effect.mapError(providerFailed(video.videoId, `scene ${index + 1} (${range(start, end)}), text call`)))
  const checkpoint: SceneCheckpoint = {
    kind: "scene",
    key,
    createdAt: yield* isoNow,
    model: outcome.model,
    degraded: outcome.degraded,
    usage: outcome.usage,
    scene: outcome.value
  }
  yield* writeCheckpoint(video.treeDir, checkpoint).pipe(Effect.mapError(unwritable(video.treeDir)))
  yield* finished(scope, "scene", false, outcome.usage)
  return checkpoint
})

/**
 * The `build` record of tree.json. Everything in it derives from the inputs and the checkpoints (the
 * time is the newest card's), so a rerun that calls nothing writes the same bytes.
 */
export const buildRecord = (input: {
  readonly video: PreparedVideo
  readonly options: BuildOptions
  readonly parameters: BuildParameters
  readonly events: ReadonlyArray<EventResult>
  readonly scenes: ReadonlyArray<SceneCheckpoint>
  readonly embeddingModel: string | undefined
}) => {
  const { events, options, parameters: p, scenes, video } = input
  const checkpoints: ReadonlyArray<EventCheckpoint | SceneCheckpoint> = [...events.map((event) => event.checkpoint), ...scenes]
  const sum = (items: ReadonlyArray<EventCheckpoint | SceneCheckpoint>, field: keyof CheckpointUsage) =>
    items.reduce((total, c) => total + c.usage[field], 0)
  return {
    vtree_version: packageVersion(),
    created_at: checkpoints.map((c) => c.createdAt).sort().at(-1) ?? null,
    models: {
      vlm: options.models.vlm,
      llm: options.models.llm,
      ...(input.embeddingModel === undefined ? {} : { embedding: input.embeddingModel })
    },
    parameters: {
      frame_interval: p.frameInterval,
      frame_width: p.frameWidth,
      event_seconds: p.eventSeconds,
      scene_seconds: p.sceneSeconds,
      frames_per_call: p.framesPerCall
    },
    prompts: { event_sha256: sha256(options.prompts.event), scene_sha256: sha256(options.prompts.scene) },
    source: { file: video.path.split(/[\\/]/).pop() ?? video.path, size_bytes: video.info.sizeBytes, sha256: video.sourceSha256 },
    subtitles: { source: video.subtitleSource, cues: video.cues.length },
    frames: { sampled: video.frames.length, sent: events.reduce((total, event) => total + event.plan.frames.length, 0) },
    calls: { vlm: sum(events.map((event) => event.checkpoint), "calls"), llm: sum(scenes, "calls") },
    tokens: { prompt: sum(checkpoints, "promptTokens"), completion: sum(checkpoints, "completionTokens") },
    degraded: {
      events: events.filter((event) => event.checkpoint.degraded).length,
      frames: events.reduce((total, event) => total + event.checkpoint.frames.filter((frame) => frame["degraded"] === true).length, 0),
      scenes: scenes.filter((scene) => scene.degraded).length
    }
  }
}

/** Frames, then tree.json (atomically), then the retrieval embeddings when a provider is present. */
const writeTree = Effect.fn("BuildTree.writeTree")(function*(
  video: PreparedVideo,
  tree: ReturnType<typeof assembleTree>,
  embedding: Option.Option<EmbeddingProvider["Type"]>
) {
  const path = yield* Path.Path
  yield* writeFrames(video.treeDir, tree.frameFiles).pipe(Effect.mapError(unwritable(video.treeDir)))
  yield* writeAtomically(path.join(video.treeDir, "tree.json"), `${JSON.stringify(tree.tree, null, 1)}\n`).pipe(
    Effect.mapError(unwritable(video.treeDir))
  )
  if (Option.isNone(embedding)) return false
  return yield* loadTreeEnvironment(video.treeDir).pipe(
    Effect.as(true),
    Effect.catchAll((error) =>
      Effect.logWarning(`${video.videoId}: tree written, retrieval embeddings not cached (${error.message}); vtree infer will embed it on load`).pipe(
        Effect.as(false)
      )
    )
  )
})

/** Captions a prepared video (events, then scenes grouped from their cards) and writes its tree. */
export const captionVideo = Effect.fn("BuildTree.captionVideo")(function*(
  video: PreparedVideo,
  options: BuildOptions,
  position: { readonly index: number; readonly total: number } = { index: 0, total: 1 }
) {
  const started = yield* Clock.currentTimeMillis
  const p = { ...defaultParameters, ...options.parameters }
  const concurrency = options.concurrency ?? defaultBuildConcurrency
  const scope: CallScope = { video, options, made: { vlm: 0, llm: 0, reused: 0, prompt: 0, completion: 0 }, emit: options.onEvent ?? (() => Effect.void) }
  const durationSeconds = video.info.durationSeconds
  const plans = assignFrames(planEventWindows(durationSeconds, video.shotChanges, p), video.frames.map((frame) => frame.time), p.framesPerCall)
  yield* scope.emit({ _tag: "VideoStarted", videoId: video.videoId, index: position.index, total: position.total, events: plans.length, frames: video.frames.length })

  // A scene's call starts as soon as its grouping is settled, while later events are still captioned.
  const { events, groups, scenes } = yield* Effect.scoped(Effect.gen(function*() {
    const fiberScope = yield* Effect.scope
    const results: Array<EventResult | undefined> = plans.map(() => undefined)
    const scheduler = makeSceneScheduler(plans, p)
    const early = new Map<string, Fiber.RuntimeFiber<SceneCheckpoint, BuildError>>()
    let settledCount = 0
    const done = yield* Effect.forEach(plans, (plan, i) =>
      Effect.tap(captionEvent(scope, plan, plans.length), (result) => {
        results[i] = result
        const settled = scheduler.complete(i, cardWords(result.checkpoint.event))
        return Effect.forEach(settled, ([first, stop]) => {
          const index = settledCount++
          const group = results.slice(first, stop) as ReadonlyArray<EventResult>
          return Effect.map(Effect.forkIn(captionScene(scope, group, index), fiberScope), (fiber) => void early.set(`${first}:${stop}`, fiber))
        }, { discard: true })
      }), { concurrency })
    // The reference grouping; the early calls are used where they match it (they always should).
    const starts = groupScenes(done.map((event) => ({ start: event.plan.start, end: event.plan.end, words: cardWords(event.checkpoint.event) })), p)
    const groups = starts.map((start, i) => done.slice(start, starts[i + 1] ?? done.length))
    const scenes = yield* Effect.forEach(groups, (group, i) => {
      const first = starts[i]!
      const fiber = early.get(`${first}:${first + group.length}`)
      return fiber === undefined ? captionScene(scope, group, i) : Fiber.join(fiber)
    }, { concurrency })
    return { events: done, groups, scenes }
  }))

  const embedding = yield* Effect.serviceOption(EmbeddingProvider)
  const build = buildRecord({ video, options, parameters: p, events, scenes, embeddingModel: Option.getOrUndefined(Option.map(embedding, (e) => e.model)) })
  const tree = assembleTree({
    videoId: video.videoId,
    durationSeconds,
    domain: options.domain,
    frameInterval: p.frameInterval,
    cues: video.cues,
    build,
    scenes: groups.map((group, s) => ({
      start: group[0]!.plan.start,
      end: group[group.length - 1]!.plan.end,
      card: scenes[s]!.scene as Card,
      events: group.map((event) => ({
        start: event.plan.start,
        end: event.plan.end,
        card: event.checkpoint.event,
        frames: event.plan.frames.map((frame, f) => ({ time: frame.time, card: event.checkpoint.frames[f]!, source: video.frames[frame.source]!.path }))
      }))
    }))
  })
  const embedded = yield* writeTree(video, tree, embedding)
  const summary: VideoSummary = {
    videoId: video.videoId,
    treeDir: video.treeDir,
    durationSeconds,
    frames: video.frames.length,
    framesSent: build.frames.sent,
    events: events.length,
    scenes: scenes.length,
    calls: { vlm: scope.made.vlm, llm: scope.made.llm, reused: scope.made.reused },
    tokens: { prompt: scope.made.prompt, completion: scope.made.completion },
    degraded: build.degraded,
    embedded,
    wallSeconds: ((yield* Clock.currentTimeMillis) - started) / 1000
  }
  yield* scope.emit({ _tag: "VideoFinished", summary })
  return summary
})

/** Frame files into `frames/` (hard links to the cache where the file system allows), stale ones removed. */
const writeFrames = Effect.fn("BuildTree.writeFrames")(function*(
  treeDir: string,
  files: ReadonlyArray<{ readonly target: string; readonly source: string }>
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const framesDir = path.join(treeDir, "frames")
  yield* fs.makeDirectory(framesDir, { recursive: true })
  yield* Effect.forEach(files, ({ source, target }) => {
    const dest = path.join(treeDir, target)
    return fs.remove(dest).pipe(
      Effect.catchAll(() => Effect.void),
      Effect.zipRight(fs.link(source, dest).pipe(Effect.orElse(() => fs.copyFile(source, dest))))
    )
  }, { concurrency: 16, discard: true })
  const keep = new Set(files.map((file) => path.basename(file.target)))
  const present = yield* fs.readDirectory(framesDir)
  yield* Effect.forEach(present.filter((name) => name.endsWith(".jpg") && !keep.has(name)), (name) => fs.remove(path.join(framesDir, name)), {
    discard: true
  })
})

/**
 * Builds every input in order. The next video is prepared (hashed, frames extracted) while the current
 * one is captioned. Fails on the first error; trees finished before it stay written.
 */
export const buildTree = Effect.fn("BuildTree.buildTree")(function*<R = never>(inputs: ReadonlyArray<BuildInput<R>>, options: BuildOptions) {
  const problem = checkParameters({ ...defaultParameters, ...options.parameters })
  if (problem !== undefined) return yield* new BuildError({ reason: "BadOption", message: problem })
  const summaries: Array<VideoSummary> = []
  if (inputs.length === 0) return summaries
  let next = yield* Effect.fork(prepareVideo(inputs[0]!, options))
  for (let i = 0; i < inputs.length; i++) {
    const prepared = yield* Fiber.join(next)
    if (i + 1 < inputs.length) next = yield* Effect.fork(prepareVideo(inputs[i + 1]!, options))
    summaries.push(yield* captionVideo(prepared, options, { index: i, total: inputs.length }))
  }
  return summaries
})
