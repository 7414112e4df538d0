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
  /** Images the calls still to make send. */
  readonly images: number
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

/** A typical reply: an event card and a card per frame; a scene card. */
const eventReplyTokens = (frames: number) => 200 + 90 * frames
const sceneReplyTokens = 300

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
  readonly promptChars: { readonly event: number; readonly scene: number }
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
  return withTotals({
    durationSeconds: input.durationSeconds,
    frames: grid.length,
    framesSent,
    events: events.length,
    eventFrames: events.map((event) => event.frames.length),
    scenes: sceneCount,
    vlmCalls: events.length,
    llmCalls: sceneCount,
    reused: 0,
    images: framesSent,
    tokens: {
      vlm: {
        prompt: events.length * (textTokens(input.promptChars.event) + 60) + framesSent * perImage + subtitles,
        completion: eventReply
      },
      // A scene call reads its events' cards (about the size of their replies) and their subtitles.
      llm: {
        prompt: sceneCount * textTokens(input.promptChars.scene) + eventReply + subtitles,
        completion: sceneCount * sceneReplyTokens
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
  readonly promptChars: { readonly event: number; readonly scene: number }
  readonly events: ReadonlyArray<{ readonly images: number; readonly textChars: number; readonly done: boolean }>
  readonly scenes: ReadonlyArray<
    { readonly events: ReadonlyArray<number>; readonly textChars: number | undefined; readonly done: boolean }
  >
}): BuildEstimate => {
  const asked = input.events.filter((event) => !event.done)
  const scenes = input.scenes.filter((scene) => !scene.done)
  const images = asked.reduce((sum, event) => sum + event.images, 0)
  return withTotals({
    durationSeconds: input.durationSeconds,
    frames: input.frames,
    framesSent: input.events.reduce((sum, event) => sum + event.images, 0),
    events: input.events.length,
    eventFrames: input.events.map((event) => event.images),
    scenes: input.scenes.length,
    vlmCalls: asked.length,
    llmCalls: scenes.length,
    reused: input.events.length - asked.length + input.scenes.length - scenes.length,
    images,
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
        ),
        completion: scenes.length * sceneReplyTokens
      }
    }
  })
}
