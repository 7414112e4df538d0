/** What a build of one video will cost, before any decode, as plain functions. */
import { assignFrames, type BuildParameters, frameGrid, planEventWindows, sceneLimits, segment } from "./Plan.js"

export interface BuildEstimate {
  readonly durationSeconds: number
  readonly frames: number
  readonly framesSent: number
  readonly events: number
  readonly scenes: number
  readonly vlmCalls: number
  readonly llmCalls: number
  readonly images: number
  readonly promptTokens: number
  readonly completionTokens: number
}

/**
 * Image tokens per frame: a Qwen2-VL-style count of 28-pixel patches; other vision models price
 * images differently, so this is a guide, not a bill.
 */
export const imageTokens = (width: number, height: number) => Math.ceil(width / 28) * Math.ceil(height / 28)

const textTokens = (chars: number) => Math.ceil(chars / 4)

/**
 * What a build of one video will send, before any decode: the grid from the duration, windows cut at
 * the target (shots are unknown yet), scenes by length. Token counts are estimates: prompt text and
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
  const events = assignFrames(planEventWindows(input.durationSeconds, [], p), grid, p.framesPerCall)
  const sceneCount = Math.max(1, segment(0, input.durationSeconds, sceneLimits(p), []).length + 1)
  const framesSent = events.reduce((sum, event) => sum + event.frames.length, 0)
  const height = input.width !== undefined && input.height !== undefined && input.width > 0
    ? Math.round((input.height * p.frameWidth) / input.width)
    : Math.round((p.frameWidth * 9) / 16)
  const perImage = imageTokens(p.frameWidth, height)
  const eventPrompt = events.length * (textTokens(input.promptChars.event) + 60) + framesSent * (perImage + 8)
  const eventReply = events.length * 200 + framesSent * 90
  // A scene call reads its events' cards (about the size of their replies) and their subtitles.
  const scenePrompt = sceneCount * textTokens(input.promptChars.scene) + eventReply
  const promptTokens = eventPrompt + scenePrompt + 2 * textTokens(input.subtitleChars)
  return {
    durationSeconds: input.durationSeconds,
    frames: grid.length,
    framesSent,
    events: events.length,
    scenes: sceneCount,
    vlmCalls: events.length,
    llmCalls: sceneCount,
    images: framesSent,
    promptTokens,
    completionTokens: eventReply + sceneCount * 300
  }
}
