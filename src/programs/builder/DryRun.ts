/**
 * `build --dry-run`: what a build would still ask, without calling or writing anything. A video whose
 * tree folder holds a frame cache for its bytes and settings is planned as the build will plan it (its
 * real frames and shot changes), and every call whose checkpoint is there counts as reused; any other
 * video is estimated from its length (Estimate.ts).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import { SpeechToText } from "../../services/SpeechToText.js"
import { speechFigures } from "./BuildCost.js"
import type { BuildOptions } from "./BuildOptions.js"
import { eventRequest, sceneRequest } from "./Captioning.js"
import { completeCard } from "./Cards.js"
import { readEventCheckpoint, readRegistryCheckpoint, readSceneCheckpoint, sha256 } from "./Checkpoint.js"
import { type BuildEstimate, estimateBuild, estimateRemaining, frameTokens } from "./Estimate.js"
import type { ProbedVideo } from "./Inputs.js"
import { defaultParameters } from "./Plan.js"
import { cachedFrames, framesKey, hashFile } from "./Preparation.js"
import { registryRequests } from "./RegistryCall.js"
import { planVideoEvents } from "./SceneCuts.js"
import { cardWords, groupScenes } from "./SceneGrouping.js"
import { subtitleKind } from "./Subtitles.js"

/** The transcription calls of a video whose subtitles will come from speech to text; none otherwise. */
export const dryRunSpeech = Effect.fn("DryRun.speech")(function*(durationSeconds: number, subtitleSource: string) {
  const speech = yield* Effect.serviceOption(SpeechToText)
  const limit = Option.getOrUndefined(Option.map(speech, (service) => service.maxUploadBytes))
  return speechFigures(durationSeconds, subtitleKind(subtitleSource) === "asr" ? limit : undefined)
})

/** The plan of one video, counting the calls its checkpoints already answer. */
export const dryRunVideo = Effect.fn("DryRun.dryRunVideo")(function*(
  video: ProbedVideo,
  cues: ReadonlyArray<SubtitleCue>,
  options: Pick<BuildOptions, "outDir" | "parameters" | "prompts" | "models" | "force">
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const p = { ...defaultParameters, ...options.parameters }
  const promptChars = {
    event: options.prompts.event.length,
    scene: options.prompts.scene.length,
    ...(options.prompts.registry === undefined ? {} : { registry: options.prompts.registry.length })
  }
  const fresh: BuildEstimate = estimateBuild({
    durationSeconds: video.info.durationSeconds,
    width: video.info.width,
    height: video.info.height,
    subtitleChars: cues.reduce((sum, cue) => sum + cue.text.length, 0),
    promptChars,
    parameters: p
  })
  const treeDir = path.join(options.outDir, video.videoId)
  const checkpoints = path.join(treeDir, ".vtree", "checkpoints")
  const exists = (file: string) => fs.exists(file).pipe(Effect.orElseSucceed(() => false))
  // --force asks everything again; without checkpoints there is nothing to count, and no need to hash the video.
  if (options.force === true || !(yield* exists(checkpoints))) return fresh
  const sourceSha256 = yield* hashFile(video.path).pipe(Effect.option)
  if (Option.isNone(sourceSha256)) return fresh
  const key = framesKey(sourceSha256.value, p)
  const cached = yield* cachedFrames(path.join(treeDir, ".vtree", `frames-${key}`), key)
  if (Option.isNone(cached)) return fresh
  const frames = yield* Effect.forEach(cached.value.frames, (frame) =>
    fs.readFile(frame.path).pipe(
      Effect.map((bytes) => ({ time: frame.timeSeconds, path: frame.path, sha256: sha256(bytes), look: frame.look }))
    ), { concurrency: 16 }).pipe(Effect.option)
  if (Option.isNone(frames)) return fresh

  const durationSeconds = video.info.durationSeconds
  const plans = planVideoEvents({ durationSeconds, frames: frames.value, shotChanges: cached.value.shotChanges }, p)
  const prepared = { cues, frames: frames.value }
  const events = yield* Effect.forEach(plans, (plan) => {
    const request = eventRequest(prepared, plan, plans.length, options)
    return Effect.map(readEventCheckpoint(treeDir, request.key), (saved) => ({ plan, request, saved }))
  }, { concurrency: 16 })
  // Scenes are grouped by their events' cards: an event still to ask has none yet, so its scene's
  // text (and whether its checkpoint will match) is unknown, and it is counted as a call.
  const starts = groupScenes(
    events.map(({ plan, saved }) => ({
      ...plan,
      words: Option.match(saved, { onNone: () => new Set<string>(), onSome: (c) => cardWords(c.event) })
    })),
    p
  )
  const scenes = yield* Effect.forEach(starts, (first, s) =>
    Effect.gen(function*() {
      const stop = starts[s + 1] ?? events.length
      const group = events.slice(first, stop)
      const indices = group.map((_, i) => first + i)
      const known = group.flatMap(({ plan, request, saved }) =>
        Option.isSome(saved) ? [{ plan, cues: request.cues, checkpoint: saved.value }] : []
      )
      if (known.length < group.length) return { events: indices, textChars: undefined, done: false, card: undefined }
      const request = sceneRequest(known, s, options)
      const saved = yield* readSceneCheckpoint(treeDir, request.key)
      return {
        events: indices,
        textChars: request.text.length as number | undefined,
        done: Option.isSome(saved),
        card: Option.getOrUndefined(Option.map(saved, (c) => c.scene))
      }
    }), { concurrency: 16 })
  // The registry's text is known once every card is: then its checkpoints say which parts are answered.
  const cards = scenes.every((scene) => scene.card !== undefined)
    ? starts.map((first, s) => ({
      start: events[first]!.plan.start,
      end: events[(starts[s + 1] ?? events.length) - 1]!.plan.end,
      card: completeCard(1, scenes[s]!.card!),
      events: events.slice(first, starts[s + 1] ?? events.length).map(({ plan, saved }) => ({
        start: plan.start,
        end: plan.end,
        card: completeCard(2, Option.getOrThrow(saved).event),
        frames: []
      }))
    }))
    : undefined
  const registry = cards === undefined ? undefined : yield* Effect.forEach(
    registryRequests(video.videoId, cards, options).parts,
    (part) =>
      Effect.map(readRegistryCheckpoint(treeDir, part.key), (saved) => ({
        textChars: part.text.length,
        done: Option.isSome(saved)
      }))
  )
  return estimateRemaining({
    durationSeconds,
    frames: frames.value.length,
    perImage: frameTokens(video.info.width, video.info.height, p),
    promptChars,
    events: events.map(({ plan, request, saved }) => ({
      images: plan.frames.length,
      textChars: request.text.length,
      done: Option.isSome(saved)
    })),
    scenes,
    ...(registry === undefined ? {} : { registry })
  })
})
