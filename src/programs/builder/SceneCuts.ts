/**
 * Scenes at the video's own boundaries (`--scenes cuts`), as plain functions. Every grid frame has a look
 * (4×4 RGB pixels the frame pass shrinks it to); each shot change is scored by how much the stretch of
 * shots after it looks unlike the stretch before it. Scenes are cut at the strongest changes first, none
 * closer than the shortest scene, then a scene longer than --scene-seconds is split (at its best shot
 * changes near even parts, else evenly). Events are planned inside each scene, so none crosses a cut.
 */
import {
  assignFrames,
  type BuildParameters,
  type Candidate,
  eventLimits,
  millis,
  planEventWindows,
  type PlannedEvent,
  segment,
  type Window
} from "./Plan.js"

/**
 * Mean difference per colour channel (0–1) between the stretches before and after a shot change from
 * which it is a scene cut. Two shots of one place differ by a few hundredths; a new place by more.
 */
export const sceneCutThreshold = 0.1

/** The shortest scene cut at a picture change: an event's length, or a tenth of the longest scene. */
export const sceneMinSeconds = (p: Pick<BuildParameters, "eventSeconds" | "sceneSeconds">): number =>
  Math.max(p.eventSeconds, p.sceneSeconds / 10)

export interface LookedFrame {
  readonly time: number
  /** 4×4 RGB pixels, base64; absent from frame caches written before looks were kept. */
  readonly look?: string | undefined
}

const decodeLook = (look: string | undefined): Uint8Array | undefined =>
  look === undefined ? undefined : new Uint8Array(Buffer.from(look, "base64"))

/** Index of the first of `times` (ascending) at or after `at`. */
const firstAtOrAfter = (times: ReadonlyArray<number>, at: number): number => {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (times[mid]! < at) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Each shot change scored by the mean channel difference (0–1) between the mean look of the
 * `windowSeconds` before it and of those after it. The stretches span several shots: a dialogue cutting
 * between two faces looks alike on both sides of each cut and scores low; a new place scores high. A
 * change with no look on one side (an old frame cache, a damaged stretch) scores 0. Running sums over
 * the frames make each score a subtraction, however long the video.
 */
export const shotChangeScores = (
  frames: ReadonlyArray<LookedFrame>,
  shotChanges: ReadonlyArray<number>,
  windowSeconds: number
): ReadonlyArray<Candidate> => {
  const looks = frames.map((frame) => decodeLook(frame.look))
  const size = looks.find((look) => look !== undefined)?.length ?? 0
  // sums[i]: the looks of frames [0, i) added up; counts[i]: how many of them have one.
  const sums = [new Float64Array(size)]
  const counts = [0]
  looks.forEach((look, i) => {
    const sum = Float64Array.from(sums[i]!)
    const usable = look !== undefined && look.length === size
    if (usable) { for (let k = 0; k < size; k++) sum[k]! += look[k]! }
    sums.push(sum)
    counts.push(counts[i]! + (usable ? 1 : 0))
  })
  const times = frames.map((frame) => frame.time)
  const mean = (from: number, to: number): Float64Array | undefined => {
    const [lo, hi] = [firstAtOrAfter(times, from), firstAtOrAfter(times, to)]
    const count = counts[hi]! - counts[lo]!
    return count === 0 ? undefined : sums[hi]!.map((value, k) => (value - sums[lo]![k]!) / count)
  }
  return shotChanges.map((at) => {
    const before = mean(at - windowSeconds, at)
    const after = mean(at, at + windowSeconds)
    if (size === 0 || before === undefined || after === undefined) return { at, score: 0 }
    let difference = 0
    for (let k = 0; k < size; k++) difference += Math.abs(before[k]! - after[k]!)
    // Rounded so floating noise does not order equally strong changes.
    return { at, score: Math.round((difference / size / 255) * 1e6) / 1e6 }
  })
}

export interface SceneCutLimits {
  readonly min: number
  readonly max: number
  readonly threshold: number
}

/**
 * [start, end) cut into the fewest even parts no longer than `max`. Each cut goes to the best-scored shot
 * change within a quarter part of its even place, else to that place; never so early that what is left
 * needs another part, nor so late that the part is over `max`.
 */
const splitLong = (
  start: number,
  end: number,
  max: number,
  candidates: ReadonlyArray<Candidate>
): ReadonlyArray<number> => {
  const parts = Math.ceil((end - start) / max - 1e-9)
  const part = (end - start) / parts
  const cuts: Array<number> = []
  let previous = start
  for (let k = 1; k < parts; k++) {
    const ideal = start + k * part
    const hard = [Math.max(previous + part / 2, end - (parts - k) * max), previous + max] as const
    const soft = [Math.max(hard[0], ideal - part / 4), Math.min(hard[1], ideal + part / 4)] as const
    const [lo, hi] = soft[0] <= soft[1] ? soft : hard
    let best: Candidate | undefined
    for (const candidate of candidates) {
      if (candidate.at < lo || candidate.at > hi) continue
      if (
        best === undefined || candidate.score > best.score ||
        (candidate.score === best.score && Math.abs(candidate.at - ideal) < Math.abs(best.at - ideal))
      ) best = candidate
    }
    previous = best?.at ?? Math.min(hi, Math.max(lo, ideal))
    cuts.push(previous)
  }
  return cuts
}

/**
 * Scene cuts over [0, duration]: the candidates at or over the threshold, strongest first, each kept
 * when it is at least `min` from the start, the end and every cut kept before it; then every scene
 * longer than `max` split (splitLong). In time order.
 */
export const sceneCuts = (
  durationSeconds: number,
  candidates: ReadonlyArray<Candidate>,
  limits: SceneCutLimits
): ReadonlyArray<number> => {
  const strong = candidates
    .filter((c) => c.score >= limits.threshold && c.at >= limits.min && c.at <= durationSeconds - limits.min)
    .sort((a, b) => b.score - a.score || a.at - b.at)
  const kept: Array<number> = []
  for (const candidate of strong) {
    if (kept.every((at) => Math.abs(at - candidate.at) >= limits.min)) kept.push(candidate.at)
  }
  const edges = [0, ...kept.sort((a, b) => a - b), durationSeconds]
  return edges.slice(1).flatMap((end, i) => {
    const start = edges[i]!
    const inside = candidates.filter((c) => c.at > start && c.at < end)
    const split = splitLong(start, end, limits.max, inside)
    return [...split, ...(end < durationSeconds ? [end] : [])].map(millis)
  })
}

/** The scenes of a video in `cuts` mode, as windows over [0, duration]. */
export const planScenes = (
  video: {
    readonly durationSeconds: number
    readonly frames: ReadonlyArray<LookedFrame>
    readonly shotChanges: ReadonlyArray<number>
  },
  p: BuildParameters
): ReadonlyArray<Window> => {
  const min = sceneMinSeconds(p)
  const candidates = shotChangeScores(video.frames, video.shotChanges, min)
  const cuts = sceneCuts(video.durationSeconds, candidates, { min, max: p.sceneSeconds, threshold: sceneCutThreshold })
  const edges = [0, ...cuts, millis(video.durationSeconds)]
  return edges.slice(1).map((end, i) => ({ start: edges[i]!, end }))
}

/**
 * The events of a video: in `fixed` mode over the whole video (scenes are grouped from their cards
 * later); in `cuts` mode planned inside each scene and marked with it. A scene holding no frame (a
 * damaged stretch) joins the one before it, or the next when it is the first.
 */
export const planVideoEvents = (
  video: {
    readonly durationSeconds: number
    readonly frames: ReadonlyArray<LookedFrame>
    readonly shotChanges: ReadonlyArray<number>
  },
  p: BuildParameters
): ReadonlyArray<PlannedEvent> => {
  const times = video.frames.map((frame) => frame.time)
  if (p.scenes === "fixed") {
    return assignFrames(planEventWindows(video.durationSeconds, video.shotChanges, p), times, p.framesPerCall)
  }
  // Frames into scenes as assignFrames puts them into windows: at a cut, the later one; past the end, the last.
  const scenes = planScenes(video, p).map((window) => ({ ...window, first: -1, count: 0 }))
  let s = 0
  times.forEach((time, i) => {
    while (s < scenes.length - 1 && time >= scenes[s]!.end) s++
    if (scenes[s]!.count++ === 0) scenes[s]!.first = i
  })
  const kept: Array<(typeof scenes)[number]> = []
  for (const scene of scenes) {
    const previous = kept.at(-1)
    if (previous !== undefined && scene.count === 0) previous.end = scene.end
    else if (previous !== undefined && previous.count === 0) kept[kept.length - 1] = { ...scene, start: previous.start }
    else kept.push({ ...scene })
  }
  const events: Array<PlannedEvent> = []
  kept.forEach((scene, index) => {
    const shots = video.shotChanges.filter((at) => at > scene.start && at < scene.end)
    const cuts = segment(scene.start, scene.end, eventLimits(p), shots.map((at) => ({ at, score: 1 })))
    const edges = [scene.start, ...cuts, scene.end]
    const windows = edges.slice(1).map((end, i) => ({ start: edges[i]!, end }))
    const planned = assignFrames(windows, times.slice(scene.first, scene.first + scene.count), p.framesPerCall)
    for (const event of planned) {
      events.push({
        ...event,
        index: events.length,
        scene: index,
        frames: event.frames.map((frame) => ({ ...frame, source: frame.source + Math.max(0, scene.first) }))
      })
    }
  })
  return events
}
