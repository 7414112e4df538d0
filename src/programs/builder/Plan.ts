/**
 * Planning a tree build, as plain functions: the parameters, the frame grid, event windows snapped to
 * shot changes and the frames each event call sends. Scenes are grouped in SceneGrouping.ts, node ids
 * named in NodeIds.ts, the cost estimated in Estimate.ts.
 */

/** How L1 scenes are cut: where the picture changes (SceneCuts.ts), or by length from the event cards (SceneGrouping.ts). */
export type SceneMode = "cuts" | "fixed"

export interface BuildParameters {
  /** Seconds between sampled frames. */
  readonly frameInterval: number
  /** Width of the frame JPEGs in pixels; height keeps the aspect ratio. */
  readonly frameWidth: number
  /** Target length of an event (L2); an event is never under half nor over twice this. */
  readonly eventSeconds: number
  /** Longest scene (L1) in `cuts` mode; the target length of one in `fixed` mode. */
  readonly sceneSeconds: number
  /** Most images one event call sends. */
  readonly framesPerCall: number
  readonly scenes: SceneMode
}

export const defaultParameters: BuildParameters = {
  frameInterval: 2,
  frameWidth: 640,
  eventSeconds: 20,
  sceneSeconds: 300,
  framesPerCall: 12,
  scenes: "cuts"
}

/** A one-line problem naming the flag and the fix, or undefined when the parameters fit together. */
export const checkParameters = (p: BuildParameters): string | undefined => {
  const positive: ReadonlyArray<[string, number]> = [
    ["--frame-interval", p.frameInterval],
    ["--event-seconds", p.eventSeconds],
    ["--scene-seconds", p.sceneSeconds]
  ]
  for (const [flag, value] of positive) {
    if (!Number.isFinite(value) || value <= 0) return `${flag} ${value}: expected a positive number of seconds`
  }
  if (!Number.isInteger(p.frameWidth) || p.frameWidth < 32 || p.frameWidth > 4096) {
    return `--frame-width ${p.frameWidth}: expected a whole number of pixels from 32 to 4096`
  }
  if (!Number.isInteger(p.framesPerCall) || p.framesPerCall < 1 || p.framesPerCall > 64) {
    return `--frames-per-call ${p.framesPerCall}: expected a whole number from 1 to 64`
  }
  // An event is at least half --event-seconds long; it must hold a grid point, or it has nothing to show.
  if (p.frameInterval > p.eventSeconds / 2) {
    return `--frame-interval ${p.frameInterval} is over half of --event-seconds ${p.eventSeconds}: some events would hold no frame — lower --frame-interval or raise --event-seconds`
  }
  if (p.scenes !== "cuts" && p.scenes !== "fixed") return `--scenes ${String(p.scenes)}: expected cuts or fixed`
  if (p.sceneSeconds < p.eventSeconds) {
    return `--scene-seconds ${p.sceneSeconds} is under --event-seconds ${p.eventSeconds}: a scene holds whole events — raise --scene-seconds`
  }
  return undefined
}

export const millis = (seconds: number) => Math.round(seconds * 1000) / 1000

/** Times a frame is sampled at: 0, interval, 2·interval, … strictly before the end. */
export const frameGrid = (durationSeconds: number, intervalSeconds: number): ReadonlyArray<number> => {
  const times: Array<number> = []
  for (let k = 0; k * intervalSeconds < durationSeconds || k === 0; k++) times.push(millis(k * intervalSeconds))
  return times
}

export interface Limits {
  readonly target: number
  /** Shortest piece the planner makes, unless the whole span is shorter. */
  readonly min: number
  /** Candidates closer than this to the piece's start are not cut at (default `min`). */
  readonly snapFrom?: number
  /**
   * Distances from the piece's start from which a cut gains a point each: later cuts win over earlier
   * ones, so snapping cannot shorten the pieces on average (and multiply the calls).
   */
  readonly tiers: ReadonlyArray<number>
  readonly max: number
}

/**
 * Event lengths. At most `framesPerCall` grid points must fit one event, so every sampled frame is
 * sent exactly once: the longest event is framesPerCall·interval less half an interval (a half-open
 * window that long never holds one point more). Events are never under half the target. A cut snaps to
 * a shot change from 0.85× the target to the longest event, one at or past the target first: events
 * then average the target or a little more, so snapping does not multiply the calls (bench/build.ts).
 * When the cap cannot hold even one target-long event (a large --event-seconds with a small
 * --frames-per-call), the cap is the target: events are shorter than asked, and every frame is still
 * captioned (`cappedEventSeconds` says so).
 */
export const eventLimits = (p: BuildParameters): Limits => {
  const capSpan = p.framesPerCall * p.frameInterval - p.frameInterval / 2
  const target = Math.min(p.eventSeconds, capSpan)
  return {
    target,
    min: 0.5 * target,
    snapFrom: 0.85 * target,
    tiers: [target],
    max: Math.min(2 * target, capSpan)
  }
}

/** The event length actually planned when --event-seconds is over what one call holds, else undefined. */
export const cappedEventSeconds = (p: BuildParameters): number | undefined => {
  const { target } = eventLimits(p)
  return target < p.eventSeconds ? target : undefined
}

/** A line for the build's and the dry run's notes when events are capped, else undefined. */
export const eventCapNote = (p: BuildParameters): string | undefined => {
  const capped = cappedEventSeconds(p)
  return capped === undefined ? undefined : `events are ${millis(capped)} s, not --event-seconds ${p.eventSeconds}: ` +
    `one call sends --frames-per-call ${p.framesPerCall} frames, ${p.frameInterval} s apart, and every frame is ` +
    "captioned — raise --frames-per-call or --frame-interval for longer events"
}

export const sceneLimits = (p: BuildParameters): Limits => ({
  target: p.sceneSeconds,
  min: 0.5 * p.sceneSeconds,
  tiers: [0.75 * p.sceneSeconds],
  max: 1.5 * p.sceneSeconds
})

export interface Candidate {
  readonly at: number
  /** Higher is a better place to cut. */
  readonly score: number
}

/**
 * Cut points splitting [start, end] into consecutive pieces of `limits`: each cut at the best-scored
 * candidate in range (a point more past each of `tiers`; ties: nearest the target), or at the target
 * when none lies in range. When what is left is too short for two pieces of `min`, it is split in the
 * middle (never under half the target).
 */
export type SegmentStep =
  | { readonly _tag: "Cut"; readonly at: number }
  /** What is left is one piece. */
  | { readonly _tag: "Done" }
  /** A candidate in range has no score yet. */
  | { readonly _tag: "Wait" }

/**
 * One cut of `segment`, from `position`. Candidates may lack a score (undefined) while it is unknown:
 * when one of them could decide this cut, the answer is Wait; the others do not matter to it.
 */
export const segmentStep = (
  position: number,
  end: number,
  limits: Limits,
  candidates: ReadonlyArray<{ readonly at: number; readonly score: number | undefined }>,
  options: { readonly mustUseCandidate?: boolean } = {}
): SegmentStep => {
  if (end - position <= limits.max) return { _tag: "Done" }
  let lo = position + limits.min
  let hi = Math.min(position + limits.max, end - limits.min)
  let ideal = position + limits.target
  let snapFrom = Math.max(lo, position + (limits.snapFrom ?? limits.min))
  if (hi < lo) {
    // Between max and 2·min left: two pieces, split near the middle.
    const middle = (position + end) / 2
    lo = position + limits.target / 2
    hi = end - limits.target / 2
    ideal = middle
    snapFrom = lo
  }
  let best: { readonly at: number } | undefined
  let bestScore = -Infinity
  for (const candidate of candidates) {
    if (candidate.at < snapFrom || candidate.at > hi) continue
    if (candidate.score === undefined) return { _tag: "Wait" }
    const score = candidate.score + limits.tiers.filter((tier) => candidate.at - position >= tier).length
    if (
      best === undefined || score > bestScore ||
      (score === bestScore && Math.abs(candidate.at - ideal) < Math.abs(best.at - ideal))
    ) {
      best = candidate
      bestScore = score
    }
  }
  if (best === undefined && options.mustUseCandidate === true) {
    // Scenes cut between events only: the nearest boundary past the position.
    for (const candidate of candidates) {
      if (candidate.at <= position || candidate.at >= end) continue
      if (best === undefined || Math.abs(candidate.at - ideal) < Math.abs(best.at - ideal)) best = candidate
    }
    if (best === undefined) return { _tag: "Done" }
  }
  return { _tag: "Cut", at: millis(best?.at ?? Math.min(hi, Math.max(lo, ideal))) }
}

export const segment = (
  start: number,
  end: number,
  limits: Limits,
  candidates: ReadonlyArray<Candidate>,
  options: { readonly mustUseCandidate?: boolean } = {}
): ReadonlyArray<number> => {
  const cuts: Array<number> = []
  let position = start
  for (;;) {
    const step = segmentStep(position, end, limits, candidates, options)
    if (step._tag !== "Cut") return cuts
    cuts.push(step.at)
    position = step.at
  }
}

export interface Window {
  readonly start: number
  readonly end: number
}

/** Consecutive event windows over [0, duration], cut at shot changes when one lies in range. */
export const planEventWindows = (
  durationSeconds: number,
  shotChanges: ReadonlyArray<number>,
  p: BuildParameters
): ReadonlyArray<Window> => {
  const cuts = segment(0, durationSeconds, eventLimits(p), shotChanges.map((at) => ({ at, score: 1 })))
  const edges = [0, ...cuts, millis(durationSeconds)]
  return edges.slice(1).map((end, i) => ({ start: edges[i]!, end }))
}

export interface PlannedFrame {
  /** Real time of the frame, seconds. */
  readonly time: number
  /** Index into the extracted frames. */
  readonly source: number
}

export interface PlannedEvent extends Window {
  readonly index: number
  /** The L1 scene it lies in, when scenes are cut before captioning (`cuts`); else grouped from the cards. */
  readonly scene?: number
  /** Frames sent to the vision model, in time order; each becomes an L3 node. */
  readonly frames: ReadonlyArray<PlannedFrame>
}

interface Bucket {
  start: number
  end: number
  frames: Array<PlannedFrame>
}

/**
 * A window holding more frames than one call sends (frames off the grid can crowd one), cut into the
 * fewest even parts that fit, each from its first frame's time: every frame is still sent, once.
 */
const fitToCall = (bucket: Bucket, framesPerCall: number): ReadonlyArray<Bucket> => {
  const parts = Math.ceil(bucket.frames.length / framesPerCall)
  if (parts <= 1) return [bucket]
  const edges = Array.from({ length: parts + 1 }, (_, k) => Math.round((k * bucket.frames.length) / parts))
  return edges.slice(1).map((stop, k) => ({
    start: k === 0 ? bucket.start : bucket.frames[edges[k]!]!.time,
    end: k === parts - 1 ? bucket.end : bucket.frames[stop]!.time,
    frames: bucket.frames.slice(edges[k]!, stop)
  }))
}

/**
 * Frames into windows by their real time (a frame at a cut belongs to the later window; the last
 * window keeps its end, so a frame past it joins the last event). A window left without a frame is
 * merged into the one before it; one holding more than a call sends is cut (fitToCall). Every frame
 * lands in exactly one event and is sent.
 */
export const assignFrames = (
  windows: ReadonlyArray<Window>,
  frameTimes: ReadonlyArray<number>,
  framesPerCall: number
): ReadonlyArray<PlannedEvent> => {
  const buckets: Array<Bucket> = windows.map((w) => ({
    start: w.start,
    end: w.end,
    frames: []
  }))
  let w = 0
  frameTimes.forEach((time, source) => {
    while (w < buckets.length - 1 && time >= buckets[w]!.end) w++
    buckets[w]!.frames.push({ time, source })
  })
  const merged: Array<Bucket> = []
  for (const bucket of buckets) {
    const previous = merged[merged.length - 1]
    if (bucket.frames.length === 0 && previous !== undefined) {
      previous.end = bucket.end
    } else if (previous !== undefined && previous.frames.length === 0) {
      merged[merged.length - 1] = { start: previous.start, end: bucket.end, frames: bucket.frames }
    } else {
      merged.push({ ...bucket })
    }
  }
  return merged.flatMap((bucket) => fitToCall(bucket, framesPerCall)).map((bucket, index) => ({
    index,
    start: bucket.start,
    end: bucket.end,
    frames: bucket.frames
  }))
}
