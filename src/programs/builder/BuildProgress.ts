/**
 * What `vtree build` prints, as plain functions: the progress line (stderr), the summary table and the
 * dry-run table (stdout). The state is folded from BuildEvents, so an embedding app can render its own.
 */
import { costOfCalls, type Prices } from "../../domain/Cost.js"
import type { DamagedSpan } from "../../domain/Media.js"
import { formatCompactCount, formatCompactDuration } from "../../text/Format.js"
import { alignColumns } from "../../text/TextTable.js"
import { estimateRoles, renderRoleCosts, type RoleCosts, type RoleFigures, sumRoles } from "./BuildCost.js"
import type { BuildEvent, VideoSummary } from "./BuildOptions.js"
import type { BuildEstimate, RoleTokens } from "./Estimate.js"
import { type BuildParameters, eventCapNote } from "./Plan.js"

export interface BuildProgressState {
  readonly videos: number
  readonly videoIndex: number
  readonly videoId: string
  readonly events: number
  readonly eventsDone: number
  readonly scenesDone: number
  readonly calls: number
  readonly reused: number
  readonly tokens: number
  /** When the current video's first model call finished (ms), for the ETA. */
  readonly callsSince: number | undefined
  readonly callsDoneSince: number
}

export const initialBuildProgress = (videos: number): BuildProgressState => ({
  videos,
  videoIndex: 0,
  videoId: "",
  events: 0,
  eventsDone: 0,
  scenesDone: 0,
  calls: 0,
  reused: 0,
  tokens: 0,
  callsSince: undefined,
  callsDoneSince: 0
})

export const applyBuildEvent = (state: BuildProgressState, event: BuildEvent, now: number): BuildProgressState => {
  switch (event._tag) {
    case "VideoStarted":
      return {
        ...state,
        videoIndex: event.index,
        videoId: event.videoId,
        events: event.events,
        eventsDone: 0,
        scenesDone: 0,
        callsSince: undefined,
        callsDoneSince: 0
      }
    case "CallFinished": {
      const eventsDone = state.eventsDone + (event.kind === "event" ? 1 : 0)
      const made = !event.reused && event.kind === "event"
      return {
        ...state,
        eventsDone,
        scenesDone: state.scenesDone + (event.kind === "scene" ? 1 : 0),
        calls: state.calls + event.calls,
        reused: state.reused + (event.reused ? 1 : 0),
        tokens: state.tokens + event.promptTokens + event.completionTokens,
        callsSince: made && state.callsSince === undefined ? now : state.callsSince,
        callsDoneSince: made && state.callsSince !== undefined ? state.callsDoneSince + 1 : state.callsDoneSince
      }
    }
    case "VideoFinished":
      return state
  }
}

/** `video 1/3 clip · events 42/180 · calls 57 (12 reused) · 1.2M tokens · ETA 4m10s` */
export const renderBuildProgress = (state: BuildProgressState, now: number): string => {
  const left = state.events - state.eventsDone
  // Rate measured from the first call answered by a model: checkpointed events come back at once.
  const eta = state.callsSince !== undefined && state.callsDoneSince > 0 && left > 0
    ? ` · ETA ${formatCompactDuration(((now - state.callsSince) / state.callsDoneSince) * left)}`
    : ""
  return `video ${state.videoIndex + 1}/${state.videos} ${state.videoId} · events ${state.eventsDone}/${state.events}` +
    (state.scenesDone > 0 ? ` · scenes ${state.scenesDone}` : "") +
    ` · calls ${state.calls}${state.reused > 0 ? ` (${state.reused} reused)` : ""} · ${
      formatCompactCount(state.tokens)
    } tokens${eta}`
}

// The first column (the video) reads left to right, the figures line up on the right.
const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  alignColumns([header, ...rows], header.map((_, i) => i > 0)).join("\n")

const minutes = (seconds: number) => `${(seconds / 60).toFixed(1)} min`

const damageLine = (videoId: string, span: DamagedSpan): string => {
  const range = `from ${span.start.toFixed(1)} s to ${span.end.toFixed(1)} s`
  const said = span.decoder === ""
    ? ""
    : `; ffmpeg said: "${span.decoder}"${span.messages > 1 ? ` and ${span.messages - 1} more messages` : ""}`
  return span.picture === "missing"
    ? `${videoId}: no picture ${range} (the decoder reported damaged data) — the tree has no frames there${said}; ` +
      "get an intact copy of the video for a full tree"
    : `${videoId}: damaged picture ${range} (the decoder reported errors and filled in what it could not read) — ` +
      `frames and cards there may show grey or smeared blocks${said}; get an intact copy of the video for a full tree`
}

/** The figures of a summary row, one video's or the total's. */
type SummaryFigures = Pick<
  VideoSummary,
  "durationSeconds" | "frames" | "framesSent" | "events" | "scenes" | "calls" | "tokens" | "degraded" | "wallSeconds"
>

const summaryRow = (s: SummaryFigures, name: string, subtitles: string) => [
  name,
  minutes(s.durationSeconds),
  s.frames === s.framesSent ? String(s.frames) : `${s.framesSent}/${s.frames}`,
  String(s.events),
  String(s.scenes),
  String(s.calls.vlm),
  String(s.calls.llm),
  String(s.calls.reused),
  formatCompactCount(s.tokens.prompt + s.tokens.completion),
  String(s.degraded.events + s.degraded.frames + s.degraded.scenes),
  `${s.wallSeconds.toFixed(1)} s`,
  subtitles
]

const sumSummaries = (summaries: ReadonlyArray<VideoSummary>): SummaryFigures =>
  summaries.reduce<SummaryFigures>(
    (sum, s) => ({
      durationSeconds: sum.durationSeconds + s.durationSeconds,
      frames: sum.frames + s.frames,
      framesSent: sum.framesSent + s.framesSent,
      events: sum.events + s.events,
      scenes: sum.scenes + s.scenes,
      calls: {
        vlm: sum.calls.vlm + s.calls.vlm,
        llm: sum.calls.llm + s.calls.llm,
        reused: sum.calls.reused + s.calls.reused
      },
      tokens: { prompt: sum.tokens.prompt + s.tokens.prompt, completion: sum.tokens.completion + s.tokens.completion },
      degraded: {
        events: sum.degraded.events + s.degraded.events,
        frames: sum.degraded.frames + s.degraded.frames,
        scenes: sum.degraded.scenes + s.degraded.scenes
      },
      wallSeconds: sum.wallSeconds + s.wallSeconds
    }),
    {
      durationSeconds: 0,
      frames: 0,
      framesSent: 0,
      events: 0,
      scenes: 0,
      calls: { vlm: 0, llm: 0, reused: 0 },
      tokens: { prompt: 0, completion: 0 },
      degraded: { events: 0, frames: 0, scenes: 0 },
      wallSeconds: 0
    }
  )

/**
 * The lines under the summary table: damaged spans of each video, frames left without a card, the
 * degraded cards of all, and events shorter than asked.
 */
const summaryNotes = (
  summaries: ReadonlyArray<VideoSummary>,
  total: SummaryFigures,
  parameters: BuildParameters | undefined
): Array<string> => {
  const lines = summaries.flatMap((s) => s.damaged.map((span) => damageLine(s.videoId, span)))
  if (total.framesSent < total.frames) {
    lines.push(
      `uncaptioned frames: ${
        total.frames - total.framesSent
      } of ${total.frames} — sampled but sent to no call, so not in the tree`
    )
  }
  if (total.degraded.events + total.degraded.frames + total.degraded.scenes > 0) {
    lines.push(
      `degraded cards: ${total.degraded.events} events, ${total.degraded.frames} frames, ${total.degraded.scenes} scenes — ` +
        "the model's reply could not be read twice; they hold its raw text and are marked \"degraded\": true"
    )
  }
  const capped = parameters === undefined ? undefined : eventCapNote(parameters)
  if (capped !== undefined) lines.push(capped)
  return lines
}

/** The role table under a summary: the trees' calls (reused included) of every video that has them. */
const summaryRoles = (summaries: ReadonlyArray<VideoSummary>, prices: BuildPrices): Array<string> => {
  const roles = summaries.flatMap((s) => (s.roles === undefined ? [] : [s.roles]))
  return roles.length === 0
    ? []
    : ["", renderRoleCosts(sumRoles(roles), prices, "what the trees cost, reused calls included")]
}

/**
 * The table printed when a build ends: one row per video and a total; `parameters` add the note of capped
 * events; then the trees' cost by role and per hour of video, in USD where `prices` has the role.
 */
export const renderBuildSummary = (
  summaries: ReadonlyArray<VideoSummary>,
  parameters?: BuildParameters,
  prices: BuildPrices = {}
): string => {
  const total = sumSummaries(summaries)
  const rows = summaries.map((s) => summaryRow(s, s.videoId, s.subtitles))
  if (summaries.length > 1) rows.push(summaryRow(total, "total", ""))
  return [
    table([
      "video",
      "duration",
      "frames",
      "events",
      "scenes",
      "vlm calls",
      "llm calls",
      "reused",
      "tokens",
      "degraded",
      "time",
      "subtitles"
    ], rows),
    "",
    ...summaries.map((s) =>
      `${s.videoId}: ${s.treeDir}/tree.json${s.embedded ? " (retrieval embeddings cached)" : ""}`
    ),
    ...summaryNotes(summaries, total, parameters),
    ...summaryRoles(summaries, prices)
  ].join("\n")
}

/** Prices of the two roles a build pays for: event calls (vlm) and scene calls (tool). */
export type BuildPrices = Pick<Prices, "vlm" | "tool">

const sumTokens = (a: RoleTokens, b: RoleTokens): RoleTokens => ({
  prompt: a.prompt + b.prompt,
  completion: a.completion + b.completion
})

/** USD of an estimate at `prices`; null when a role with tokens has no price (a part would read as the whole). */
export const estimateCost = (e: BuildEstimate, prices: BuildPrices): number | null =>
  costOfCalls([
    { role: "vlm", promptTokens: e.tokens.vlm.prompt, completionTokens: e.tokens.vlm.completion },
    { role: "tool", promptTokens: e.tokens.llm.prompt, completionTokens: e.tokens.llm.completion }
  ], prices)

const zeroTokens: RoleTokens = { prompt: 0, completion: 0 }

const sumEstimates = (estimates: ReadonlyArray<BuildEstimate>): BuildEstimate =>
  estimates.reduce<BuildEstimate>((sum, e) => ({
    durationSeconds: sum.durationSeconds + e.durationSeconds,
    frames: sum.frames + e.frames,
    framesSent: sum.framesSent + e.framesSent,
    events: sum.events + e.events,
    eventFrames: [...sum.eventFrames, ...e.eventFrames],
    scenes: sum.scenes + e.scenes,
    vlmCalls: sum.vlmCalls + e.vlmCalls,
    llmCalls: sum.llmCalls + e.llmCalls,
    reused: sum.reused + e.reused,
    registryParts: sum.registryParts + e.registryParts,
    images: sum.images + e.images,
    imageTokens: sum.imageTokens + e.imageTokens,
    promptTokens: sum.promptTokens + e.promptTokens,
    completionTokens: sum.completionTokens + e.completionTokens,
    tokens: { vlm: sumTokens(sum.tokens.vlm, e.tokens.vlm), llm: sumTokens(sum.tokens.llm, e.tokens.llm) }
  }), {
    durationSeconds: 0,
    frames: 0,
    framesSent: 0,
    events: 0,
    eventFrames: [],
    scenes: 0,
    vlmCalls: 0,
    llmCalls: 0,
    reused: 0,
    registryParts: 0,
    images: 0,
    imageTokens: 0,
    promptTokens: 0,
    completionTokens: 0,
    tokens: { vlm: zeroTokens, llm: zeroTokens }
  })

const formatUsd = (e: BuildEstimate, prices: BuildPrices): string => {
  const cost = estimateCost(e, prices)
  return cost === null ? "unknown" : `$${cost.toFixed(cost > 0 && cost < 0.01 ? 4 : 2)}`
}

/** A dry-run row; the USD column only when some price is known. */
const dryRunRow = (name: string, e: BuildEstimate, subtitles: string, prices: BuildPrices, priced: boolean) => [
  name,
  minutes(e.durationSeconds),
  String(e.frames),
  String(e.events),
  String(e.scenes),
  String(e.vlmCalls),
  String(e.llmCalls),
  String(e.reused),
  String(e.images),
  formatCompactCount(e.promptTokens),
  formatCompactCount(e.completionTokens),
  ...(priced ? [formatUsd(e, prices)] : []),
  // Per hour of video at these settings, whether or not a checkpoint answers the call.
  e.durationSeconds > 0
    ? String(Math.round(((e.events + e.scenes + e.registryParts) * 3600) / e.durationSeconds))
    : "-",
  subtitles
]

/** What the dry run does not show: a price it lacks, frames it would not send, events shorter than asked. */
const dryRunWarnings = (
  total: BuildEstimate,
  prices: BuildPrices,
  priced: boolean,
  parameters: BuildParameters | undefined
): Array<string> => {
  const unsent = total.frames - total.framesSent
  const capped = parameters === undefined ? undefined : eventCapNote(parameters)
  const unpriced = priced && estimateCost(total, prices) === null
  return [
    ...(unpriced
      ? [
        `USD unknown: no price for ${
          prices.vlm === undefined ? "the vision model (VTREE_VLM_PRICE)" : "the text model (VTREE_TOOL_PRICE)"
        } — set it or give --prices FILE`
      ]
      : []),
    ...(unsent > 0
      ? [
        `${unsent} sampled frames would not be sent (events longer than --frames-per-call × --frame-interval): lower --event-seconds or raise --frames-per-call`
      ]
      : []),
    ...(capped === undefined ? [] : [capped])
  ]
}

/**
 * The `--dry-run` table: what each video would still cost (calls its checkpoints answer are counted as
 * reused), its subtitle source, USD when a price of the vision or the text model is known, and the total.
 */
export const renderDryRun = (
  rows: ReadonlyArray<
    {
      readonly videoId: string
      readonly estimate: BuildEstimate
      readonly subtitles: string
      /** Transcription calls, for a video whose subtitles come from speech to text. */
      readonly speech?: RoleFigures
    }
  >,
  prices: BuildPrices = {},
  parameters?: BuildParameters
): string => {
  const total = sumEstimates(rows.map((row) => row.estimate))
  const roles: RoleCosts = sumRoles(rows.map((row) => estimateRoles(row.estimate, row.speech)))
  const priced = prices.vlm !== undefined || prices.tool !== undefined
  const body = rows.map(({ estimate, subtitles, videoId }) => dryRunRow(videoId, estimate, subtitles, prices, priced))
  body.push(dryRunRow("total", total, "", prices, priced))
  return [
    table([
      "video",
      "duration",
      "frames",
      "events",
      "scenes",
      "vlm calls",
      "llm calls",
      "reused",
      "images",
      "prompt tok",
      "reply tok",
      ...(priced ? ["USD"] : []),
      "calls/h",
      "subtitles"
    ], body),
    "",
    "dry run: nothing was called or written. Calls answered by checkpoints in --out are counted as reused, not as calls;",
    "tokens are estimates (text at 4 characters a token, images as 28-px patches). Without a frame cache, event",
    "windows are planned without shot changes, which move cuts but hardly the count.",
    ...dryRunWarnings(total, prices, priced, parameters),
    "",
    renderRoleCosts(roles, prices, "calls still to make")
  ].join("\n")
}
