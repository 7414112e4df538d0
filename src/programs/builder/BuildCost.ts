/**
 * What a tree costs per role — vision (event calls), text (scene and registry calls), speech (transcription) —
 * per video and per hour of video, as plain functions: from a dry run's estimate, and from a build's
 * checkpoints (the `roles` of tree.json's build record). Image tokens are estimated from the frames sent
 * (Estimate.ts `frameTokens`): providers report one prompt count, text and images together.
 */
import { callCost, type Prices } from "../../domain/Cost.js"
import { formatCompactCount } from "../../text/Format.js"
import { alignColumns } from "../../text/TextTable.js"
import type { BuildEstimate } from "./Estimate.js"
import { audioChunks } from "./Transcription.js"

export interface RoleFigures {
  readonly calls: number
  /** Images sent (vision only). */
  readonly frames: number
  /** Prompt tokens, text and images together. */
  readonly promptTokens: number
  /** The images' share of `promptTokens`, estimated. */
  readonly imageTokens: number
  readonly completionTokens: number
  /** Audio sent (speech only). */
  readonly audioSeconds: number
}

export interface RoleCosts {
  readonly durationSeconds: number
  readonly vision: RoleFigures
  readonly text: RoleFigures
  readonly speech: RoleFigures
}

export const roleNames = ["vision", "text", "speech"] as const

const none: RoleFigures = { calls: 0, frames: 0, promptTokens: 0, imageTokens: 0, completionTokens: 0, audioSeconds: 0 }

/** The speech calls of a transcribed video: one per audio chunk under the endpoint's upload limit. */
export const speechFigures = (durationSeconds: number, maxUploadBytes: number | undefined): RoleFigures =>
  maxUploadBytes === undefined
    ? none
    : { ...none, calls: audioChunks(durationSeconds, maxUploadBytes).length, audioSeconds: durationSeconds }

/** A dry run's estimate by role. */
export const estimateRoles = (e: BuildEstimate, speech: RoleFigures = none): RoleCosts => ({
  durationSeconds: e.durationSeconds,
  vision: {
    ...none,
    calls: e.vlmCalls,
    frames: e.images,
    promptTokens: e.tokens.vlm.prompt,
    imageTokens: e.imageTokens,
    completionTokens: e.tokens.vlm.completion
  },
  text: { ...none, calls: e.llmCalls, promptTokens: e.tokens.llm.prompt, completionTokens: e.tokens.llm.completion },
  speech
})

const addFigures = (a: RoleFigures, b: RoleFigures): RoleFigures => ({
  calls: a.calls + b.calls,
  frames: a.frames + b.frames,
  promptTokens: a.promptTokens + b.promptTokens,
  imageTokens: a.imageTokens + b.imageTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  audioSeconds: a.audioSeconds + b.audioSeconds
})

export const sumRoles = (costs: ReadonlyArray<RoleCosts>): RoleCosts =>
  costs.reduce<RoleCosts>((sum, c) => ({
    durationSeconds: sum.durationSeconds + c.durationSeconds,
    vision: addFigures(sum.vision, c.vision),
    text: addFigures(sum.text, c.text),
    speech: addFigures(sum.speech, c.speech)
  }), { durationSeconds: 0, vision: none, text: none, speech: none })

/** The figures of an hour of video at the same rate; nothing for a video without length. */
export const perHour = (figures: RoleFigures, durationSeconds: number): RoleFigures => {
  const scale = durationSeconds > 0 ? 3600 / durationSeconds : 0
  const at = (n: number) => Math.round(n * scale * 10) / 10
  return {
    calls: at(figures.calls),
    frames: at(figures.frames),
    promptTokens: Math.round(figures.promptTokens * scale),
    imageTokens: Math.round(figures.imageTokens * scale),
    completionTokens: Math.round(figures.completionTokens * scale),
    audioSeconds: at(figures.audioSeconds)
  }
}

/** The price each role is billed at: vision at the vlm's, text at the tool model's; speech has no token price. */
const priceOf = (role: (typeof roleNames)[number], prices: Pick<Prices, "vlm" | "tool">) =>
  role === "vision" ? prices.vlm : role === "text" ? prices.tool : undefined

/** USD of a role's figures, or null when it used tokens and has no price (speech is billed by the minute). */
export const roleUsd = (
  role: (typeof roleNames)[number],
  figures: RoleFigures,
  prices: Pick<Prices, "vlm" | "tool">
): number | null => {
  if (figures.promptTokens + figures.completionTokens === 0) return figures.calls === 0 ? 0 : null
  const price = priceOf(role, prices)
  return price === undefined
    ? null
    : callCost({ role, promptTokens: figures.promptTokens, completionTokens: figures.completionTokens }, price)
}

const usd = (value: number | null) => value === null ? "-" : `$${value.toFixed(value > 0 && value < 0.01 ? 4 : 2)}`
const count = (n: number) => Number.isInteger(n) ? formatCompactCount(n) : n.toFixed(1)

/**
 * The table under a build's summary or a dry run: per role, the figures and, per hour of video, the same; USD
 * columns only when a price of the vision or the text model is known. `what` names the figures.
 */
export const renderRoleCosts = (costs: RoleCosts, prices: Pick<Prices, "vlm" | "tool">, what: string): string => {
  const priced = prices.vlm !== undefined || prices.tool !== undefined
  const rows = roleNames.map((role) => {
    const f = costs[role]
    const h = perHour(f, costs.durationSeconds)
    return [
      role,
      count(f.calls),
      count(f.frames),
      formatCompactCount(f.promptTokens),
      formatCompactCount(f.imageTokens),
      formatCompactCount(f.completionTokens),
      ...(priced ? [usd(roleUsd(role, f, prices))] : []),
      count(h.calls),
      count(h.frames),
      formatCompactCount(h.promptTokens),
      formatCompactCount(h.imageTokens),
      formatCompactCount(h.completionTokens),
      ...(priced ? [usd(roleUsd(role, h, prices))] : [])
    ]
  })
  const header = [
    "role",
    "calls",
    "frames",
    "prompt tok",
    "image tok",
    "reply tok",
    ...(priced ? ["USD"] : []),
    "calls/h",
    "frames/h",
    "prompt/h",
    "image/h",
    "reply/h",
    ...(priced ? ["USD/h"] : [])
  ]
  return [
    `by role — ${what}, and per hour of video (image tokens are estimated, part of prompt tokens; speech is billed by the minute: ${
      (costs.speech.audioSeconds / 60).toFixed(1)
    } min):`,
    ...alignColumns([header, ...rows], header.map((_, i) => i > 0))
  ].join("\n")
}

/** The `roles` of tree.json's build record: each role's figures and the same per hour of video. */
export const roleRecord = (costs: RoleCosts, prices: Pick<Prices, "vlm" | "tool"> | undefined) => {
  const entry = (role: (typeof roleNames)[number], f: RoleFigures) => {
    const priced = prices === undefined ? null : roleUsd(role, f, prices)
    return {
      calls: f.calls,
      ...(role === "vision" ? { frames: f.frames, image_tokens: f.imageTokens } : {}),
      ...(role === "speech" ? { audio_seconds: f.audioSeconds } : {}),
      prompt_tokens: f.promptTokens,
      completion_tokens: f.completionTokens,
      ...(priced === null ? {} : { usd: Math.round(priced * 1e6) / 1e6 })
    }
  }
  const of = (pick: (role: (typeof roleNames)[number]) => RoleFigures) =>
    Object.fromEntries(roleNames.map((role) => [role, entry(role, pick(role))]))
  return {
    ...of((role) => costs[role]),
    per_hour: of((role) => perHour(costs[role], costs.durationSeconds))
  }
}
