/**
 * The model calls of one video: one vision call per event (its frames and subtitles → the event card
 * and a card per frame), one text call per scene (its events' cards → the scene card), each asked at
 * most twice, answered from its checkpoint when one exists, checkpointed as soon as it finishes. A
 * scene's call starts as soon as its grouping is settled, while later events are still captioned.
 */
import * as Path from "@effect/platform/Path"
import { Effect, Fiber } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { stepAttributes } from "../../services/GenAiConventions.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { VLMProvider } from "../../services/VLMProvider.js"
import { BuildError } from "./BuildError.js"
import {
  type BuildEvent,
  type BuildOptions,
  defaultBuildConcurrency,
  eventMaxTokens,
  sceneMaxTokens
} from "./BuildOptions.js"
import {
  decodeEventReply,
  decodeSceneReply,
  degradedEventCards,
  degradedSceneCard,
  type EventCards,
  eventText,
  sceneText
} from "./Cards.js"
import {
  checkpointDir,
  checkpointedCall,
  checkpointKey,
  type CheckpointUsage,
  type EventCheckpoint,
  readEventCheckpoint,
  readSceneCheckpoint,
  type RegistryCheckpoint,
  type SceneCheckpoint,
  writeCheckpoint
} from "./Checkpoint.js"
import type { BuildParameters, PlannedEvent } from "./Plan.js"
import type { PreparedVideo } from "./Preparation.js"
import { cardWords, groupScenes, makeSceneScheduler } from "./SceneGrouping.js"
import { subtitleFor } from "./Subtitles.js"
import { cuesIn } from "./TreeAssembly.js"
import { confine, unwritable } from "./TreeFolder.js"

const range = (start: number, end: number) => `${Math.round(start)}–${Math.round(end)} s`

export const providerFailed = (videoId: string, what: string) => (error: ProviderError) =>
  new BuildError({
    reason: "ProviderFailed",
    message: `${videoId}: ${what}: ${
      error.message.split("\n")[0]
    } — finished calls are saved; fix the endpoint and run the same command again to resume`
  })

export interface EventResult {
  readonly plan: PlannedEvent
  readonly checkpoint: EventCheckpoint
  readonly cues: ReadonlyArray<SubtitleCue>
}

/** What one video's calls share: where checkpoints go, the counts for the summary, the event sink. */
export interface CallScope {
  readonly video: PreparedVideo
  readonly options: BuildOptions
  readonly made: { vlm: number; llm: number; reused: number; prompt: number; completion: number }
  readonly emit: (event: BuildEvent) => Effect.Effect<void>
}

/** Counts a finished call (a registry call is the text model's, like a scene's) and tells the event sink. */
export const finished = (
  scope: CallScope,
  kind: "event" | "scene" | "registry",
  reused: boolean,
  usage: CheckpointUsage
) =>
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

/** Saves a finished call inside the tree folder (its checkpoints folder checked first). */
export const save = (scope: CallScope, checkpoint: EventCheckpoint | SceneCheckpoint | RegistryCheckpoint) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const { folder } = scope.video
    yield* confine(folder.root, checkpointDir(path, folder.dir))
    yield* writeCheckpoint(folder.dir, checkpoint).pipe(Effect.mapError(unwritable(folder.dir)))
  })

/**
 * What one event call sends and the checkpoint it is saved under: the user text (times, frame labels,
 * subtitles), its images and the key over all of it. A dry run computes the same keys to count what is
 * left to ask.
 */
export const eventRequest = (
  video: Pick<PreparedVideo, "cues" | "frames">,
  plan: PlannedEvent,
  total: number,
  options: Pick<BuildOptions, "models" | "prompts">
) => {
  const cues = cuesIn(video.cues, plan.start, plan.end)
  const text = eventText({
    index: plan.index,
    total,
    start: plan.start,
    end: plan.end,
    frameTimes: plan.frames.map((f) => f.time),
    cues
  })
  const images = plan.frames.map((frame) => video.frames[frame.source]!)
  const key = checkpointKey({
    kind: "event",
    model: options.models.vlm,
    prompt: options.prompts.event,
    text,
    images: images.map((image) => image.sha256),
    parameters: { maxTokens: eventMaxTokens }
  })
  return { cues, text, images, key }
}

/** What one scene call sends over its events' cards, and the checkpoint it is saved under. */
export const sceneRequest = (
  group: ReadonlyArray<Pick<EventResult, "plan" | "cues"> & { readonly checkpoint: Pick<EventCheckpoint, "event"> }>,
  index: number,
  options: Pick<BuildOptions, "models" | "prompts">
) => {
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
  const key = checkpointKey({
    kind: "scene",
    model: options.models.llm,
    prompt: options.prompts.scene,
    text,
    images: [],
    parameters: { maxTokens: sceneMaxTokens }
  })
  return { start, end, text, key }
}

/** One event: from its checkpoint, or one vision call (asked twice at most) checkpointed at once. */
const captionEvent = Effect.fnUntraced(function*(scope: CallScope, plan: PlannedEvent, total: number) {
  const { options, video } = scope
  const vlm = yield* VLMProvider
  const { cues, images, key, text } = eventRequest(video, plan, total, options)
  const { checkpoint, reused } = yield* checkpointedCall({
    treeDir: video.treeDir,
    key,
    read: readEventCheckpoint,
    text,
    ask: (userText) =>
      vlm.chatWithImages({
        system: options.prompts.event,
        text: userText,
        images: images.map((image) => image.path),
        maxTokens: eventMaxTokens
      }),
    decode: (raw) => decodeEventReply(raw, images.length),
    degrade: (raw) => degradedEventCards(raw, images.length),
    checkpoint: (cards: EventCards, fields): EventCheckpoint => ({
      kind: "event",
      ...fields,
      event: cards.event,
      frames: cards.frames
    }),
    providerFailed: providerFailed(
      video.videoId,
      `event ${plan.index + 1} (${range(plan.start, plan.end)}), vision call`
    ),
    save: (made) => save(scope, made)
  })
  if (reused) yield* Effect.annotateCurrentSpan("vtree.checkpoint", "reused")
  yield* finished(scope, "event", reused, checkpoint.usage)
  return { plan, checkpoint, cues } satisfies EventResult
}, (effect, scope, plan) =>
  Effect.withSpan(effect, "caption_event", {
    attributes: { ...stepAttributes, "vtree.video_id": scope.video.videoId, "vtree.event": plan.index + 1 }
  }))

/** One scene: from its checkpoint, or one text call (thinking off) over its events' cards. */
const captionScene = Effect.fnUntraced(function*(scope: CallScope, group: ReadonlyArray<EventResult>, index: number) {
  const { options, video } = scope
  const llm = yield* LLMProvider
  const { end, key, start, text } = sceneRequest(group, index, options)
  const { checkpoint, reused } = yield* checkpointedCall({
    treeDir: video.treeDir,
    key,
    read: readSceneCheckpoint,
    text,
    ask: (userText) =>
      llm.chat({
        role: "tool",
        thinking: false,
        maxTokens: sceneMaxTokens,
        messages: [{ role: "system", content: options.prompts.scene }, { role: "user", content: userText }]
      }),
    decode: decodeSceneReply,
    degrade: degradedSceneCard,
    checkpoint: (scene: Record<string, unknown>, fields): SceneCheckpoint => ({ kind: "scene", ...fields, scene }),
    providerFailed: providerFailed(video.videoId, `scene ${index + 1} (${range(start, end)}), text call`),
    save: (made) => save(scope, made)
  })
  if (reused) yield* Effect.annotateCurrentSpan("vtree.checkpoint", "reused")
  yield* finished(scope, "scene", reused, checkpoint.usage)
  return checkpoint
}, (effect, scope, _group, index) =>
  Effect.withSpan(effect, "caption_scene", {
    attributes: { ...stepAttributes, "vtree.video_id": scope.video.videoId, "vtree.scene": index + 1 }
  }))

/**
 * Every event, then the scenes grouped from their cards; a scene's call starts as soon as its grouping
 * is settled (makeSceneScheduler), while later events are still being captioned.
 */
export const captionEvents = (scope: CallScope, plans: ReadonlyArray<PlannedEvent>, p: BuildParameters) =>
  Effect.scoped(Effect.gen(function*() {
    const concurrency = scope.options.concurrency ?? defaultBuildConcurrency
    const fiberScope = yield* Effect.scope
    const results: Array<EventResult | undefined> = plans.map(() => undefined)
    const scheduler = makeSceneScheduler(plans, p)
    const early = new Map<string, Fiber.RuntimeFiber<SceneCheckpoint, BuildError>>()
    let settledCount = 0
    const done = yield* Effect.forEach(
      plans,
      (plan, i) =>
        Effect.tap(captionEvent(scope, plan, plans.length), (result) => {
          results[i] = result
          const settled = scheduler.complete(i, cardWords(result.checkpoint.event))
          return Effect.forEach(settled, ([first, stop]) => {
            const index = settledCount++
            const group = results.slice(first, stop) as ReadonlyArray<EventResult>
            return Effect.map(
              Effect.forkIn(captionScene(scope, group, index), fiberScope),
              (fiber) => void early.set(`${first}:${stop}`, fiber)
            )
          }, { discard: true })
        }),
      { concurrency }
    )
    // The reference grouping; the early calls are used where they match it (they always should).
    const starts = groupScenes(
      done.map((event) => ({ ...event.plan, words: cardWords(event.checkpoint.event) })),
      p
    )
    const groups = starts.map((start, i) => done.slice(start, starts[i + 1] ?? done.length))
    const scenes = yield* Effect.forEach(groups, (group, i) => {
      const first = starts[i]!
      const fiber = early.get(`${first}:${first + group.length}`)
      return fiber === undefined ? captionScene(scope, group, i) : Fiber.join(fiber)
    }, { concurrency })
    return { events: done, groups, scenes }
  }))
