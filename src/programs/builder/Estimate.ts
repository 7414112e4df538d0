/** What a build of one video will cost, before any decode, as plain functions. */
import { type BuildParameters, frameGrid, sceneLimits, segment } from "./Plan.js"
import { planVideoEvents } from "./SceneCuts.js"

export interface RoleTokens {
  readonly prompt: number
  readonly completion: number
}

export interface BuildEstimate {
  readonly durationSeconds: number
  readonly frames: number
  readonly framesSent: number
  readonly events: number
  /** Frames each event's call sends, in video order: every frame is in one event, so they sum to `frames`. */
  readonly eventFrames: ReadonlyArray<number>
  readonly scenes: number
  /** Calls still to make: checkpoints a rerun reuses are counted in `reused` instead. */
  readonly vlmCalls: number
  readonly llmCalls: number
  readonly reused: number
  /** Images the calls still to make send, and their share of the vision prompt tokens. */
  readonly images: number
  readonly imageTokens: number
  /** The entity registry's parts (one text call each, per hour of video; RegistryCall.ts), like `scenes` whether asked or reused. */
  readonly registryParts: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** The same tokens by the role that pays for them: event calls are the vision model's, scene calls the text model's. */
  readonly tokens: { readonly vlm: RoleTokens; readonly llm: RoleTokens }
}

/**
 * Image tokens per frame: a Qwen2-VL-style count of 28-pixel patches; other vision models price
 * images differently, so this is a guide, not a bill.
 */
export const imageTokens = (width: number, height: number) => Math.ceil(width / 28) * Math.ceil(height / 28)

const textTokens = (chars: number) => Math.ceil(chars / 4)

/** Tokens of one frame as sent: its patches and its label. */
export const frameTokens = (width: number | undefined, height: number | undefined, p: BuildParameters): number => {
  const frameHeight = width !== undefined && height !== undefined && width > 0
    ? Math.round((height * p.frameWidth) / width)
    : Math.round((p.frameWidth * 9) / 16)
  return imageTokens(p.frameWidth, frameHeight) + 8
}

/** A typical reply: an event card and a card per frame; a scene card; a registry part. */
const eventReplyTokens = (frames: number) => 200 + 90 * frames
const sceneReplyTokens = 300
const registryReplyTokens = 800
/** A card as the registry call reads it: its id, times, summary (≤ 400 characters) and entity lines. */
const registryCardTokens = 130

/** The prompt's size in characters per call; no `registry` when the build writes no registry. */
export interface PromptChars {
  readonly event: number
  readonly scene: number
  readonly registry?: number
}

/** Registry parts of a video: one per hour it spans (EntityRegistry.ts), none without a registry prompt. */
export const registryPartCount = (durationSeconds: number, promptChars: PromptChars): number =>
  promptChars.registry === undefined ? 0 : Math.max(1, Math.ceil(durationSeconds / 3600))

/** The registry calls' tokens over `cards` scene and event cards whose text is not known yet. */
const registryTokens = (parts: number, cards: number, promptChars: PromptChars) => ({
  prompt: parts * textTokens(promptChars.registry ?? 0) + cards * registryCardTokens,
  completion: parts * registryReplyTokens
})

const withTotals = (
  estimate: Omit<BuildEstimate, "promptTokens" | "completionTokens">
): BuildEstimate => ({
  ...estimate,
  promptTokens: estimate.tokens.vlm.prompt + estimate.tokens.llm.prompt,
  completionTokens: estimate.tokens.vlm.completion + estimate.tokens.llm.completion
})

/**
 * What a build of one video will send, before any decode: the grid from the duration, windows cut at
 * the target (shots and looks are unknown yet), scenes by length. Token counts are estimates: prompt text and
 * subtitles at 4 characters a token, images by `imageTokens`, replies at a typical card size.
 */
export const estimateBuild = (input: {
  readonly durationSeconds: number
  readonly width: number | undefined
  readonly height: number | undefined
  readonly subtitleChars: number
  readonly promptChars: PromptChars
  readonly parameters: BuildParameters
}): BuildEstimate => {
  const p = input.parameters
  const grid = frameGrid(input.durationSeconds, p.frameInterval)
  // Without shots or looks, `cuts` scenes are the video split at --scene-seconds.
  const events = planVideoEvents({
    durationSeconds: input.durationSeconds,
    frames: grid.map((time) => ({ time })),
    shotChanges: []
  }, p)
  const sceneCount = p.scenes === "cuts"
    ? (events.at(-1)?.scene ?? 0) + 1
    : Math.max(1, segment(0, input.durationSeconds, sceneLimits(p), []).length + 1)
  const framesSent = events.reduce((sum, event) => sum + event.frames.length, 0)
  const perImage = frameTokens(input.width, input.height, p)
  const eventReply = events.reduce((sum, event) => sum + eventReplyTokens(event.frames.length), 0)
  const subtitles = textTokens(input.subtitleChars)
  const parts = registryPartCount(input.durationSeconds, input.promptChars)
  const registry = registryTokens(parts, events.length + sceneCount, input.promptChars)
  return withTotals({
    durationSeconds: input.durationSeconds,
    frames: grid.length,
    framesSent,
    events: events.length,
    eventFrames: events.map((event) => event.frames.length),
    scenes: sceneCount,
    vlmCalls: events.length,
    llmCalls: sceneCount + parts,
    registryParts: parts,
    reused: 0,
    images: framesSent,
    imageTokens: framesSent * perImage,
    tokens: {
      vlm: {
        prompt: events.length * (textTokens(input.promptChars.event) + 60) + framesSent * perImage + subtitles,
        completion: eventReply
      },
      // A scene call reads its events' cards (about the size of their replies) and their subtitles.
      llm: {
        prompt: sceneCount * textTokens(input.promptChars.scene) + eventReply + subtitles + registry.prompt,
        completion: sceneCount * sceneReplyTokens + registry.completion
      }
    }
  })
}

/**
 * What is left of a build whose calls are known: the real event plan (cached frames and shot changes),
 * each call answered by its checkpoint (`done`) or still to make. A scene whose text is not known yet
 * (one of its events is still to be asked) is estimated from its events' reply sizes.
 */
export const estimateRemaining = (input: {
  readonly durationSeconds: number
  readonly frames: number
  readonly perImage: number
  readonly promptChars: PromptChars
  readonly events: ReadonlyArray<{ readonly images: number; readonly textChars: number; readonly done: boolean }>
  readonly scenes: ReadonlyArray<
    { readonly events: ReadonlyArray<number>; readonly textChars: number | undefined; readonly done: boolean }
  >
  /** The registry's parts, each with its text once every card is known; absent → one per hour, text unknown. */
  readonly registry?: ReadonlyArray<{ readonly textChars: number; readonly done: boolean }>
}): BuildEstimate => {
  const asked = input.events.filter((event) => !event.done)
  const scenes = input.scenes.filter((scene) => !scene.done)
  const images = asked.reduce((sum, event) => sum + event.images, 0)
  const parts = input.registry ??
    Array.from({ length: registryPartCount(input.durationSeconds, input.promptChars) }, () => ({
      textChars: undefined as number | undefined,
      done: false
    }))
  const registry = parts.filter((part) => !part.done)
  const cards = input.events.length + input.scenes.length
  const registryPrompt = registry.reduce(
    (sum, part) =>
      sum + (part.textChars === undefined
        ? registryTokens(1, cards / Math.max(1, parts.length), input.promptChars).prompt
        : textTokens(input.promptChars.registry ?? 0) + textTokens(part.textChars)),
    0
  )
  return withTotals({
    durationSeconds: input.durationSeconds,
    frames: input.frames,
    framesSent: input.events.reduce((sum, event) => sum + event.images, 0),
    events: input.events.length,
    eventFrames: input.events.map((event) => event.images),
    scenes: input.scenes.length,
    vlmCalls: asked.length,
    llmCalls: scenes.length + registry.length,
    registryParts: parts.length,
    reused: input.events.length - asked.length + input.scenes.length - scenes.length + parts.length - registry.length,
    images,
    imageTokens: images * input.perImage,
    tokens: {
      vlm: {
        prompt: asked.reduce(
          (sum, event) => sum + textTokens(input.promptChars.event) + textTokens(event.textChars),
          0
        ) + images * input.perImage,
        completion: asked.reduce((sum, event) => sum + eventReplyTokens(event.images), 0)
      },
      llm: {
        prompt: scenes.reduce(
          (sum, scene) =>
            sum + textTokens(input.promptChars.scene) + (scene.textChars === undefined
              ? scene.events.reduce((s, i) => s + eventReplyTokens(input.events[i]?.images ?? 0), 0)
              : textTokens(scene.textChars)),
          0
        ) + Math.round(registryPrompt),
        completion: scenes.length * sceneReplyTokens + registry.length * registryReplyTokens
      }
    }
  })
}
