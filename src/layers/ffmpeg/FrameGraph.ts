import type { DamagedSpan } from "../../domain/Media.js"

/**
 * The one ffmpeg pass that samples a video on a time grid and scores its shot changes, and the reading
 * of what that pass reports. Pure: argument lists in, stderr text out.
 */

export interface FramePassOptions {
  readonly input: string
  /** The video stream to decode (`MediaStream.index`). */
  readonly streamIndex: number
  readonly intervalSeconds: number
  readonly width: number
  /** ffmpeg's scene score (0–1) above which a frame starts a new shot. */
  readonly sceneThreshold: number
  /** Width the scene score is computed at: a shot change is as visible at 160 px, and far cheaper. */
  readonly sceneWidth: number
  readonly jpegQuality: number
  /** printf-style output pattern, e.g. `/out/frame_%06d.jpg`. */
  readonly outputPattern: string
}

/** First file number image2 writes; frame n (0-based) of the grid branch is file n + firstFileNumber. */
export const firstFileNumber = 1

// `fps=1/2` emits the frame nearest the middle of each 2 s slot (0.96 s, 2.96 s, … on a 25 fps
// video), so the grid is a `select` instead: a frame is kept when it is the first at or after the next
// multiple of the interval. The epsilon absorbs time bases that cannot state k·interval exactly.
export const gridSelect = (intervalSeconds: number): string =>
  `isnan(prev_selected_t)+gte(floor(t/${intervalSeconds}+1e-6)-floor(prev_selected_t/${intervalSeconds}+1e-6),1)`

/**
 * One decode feeding two branches: the grid frames (showinfo@grid records each one's real time, then
 * they are scaled and written as JPEG) and the scene scores (on a small copy, reported by
 * showinfo@scene for frames that start a shot). `setpts=PTS-STARTPTS` puts the first frame at 0 s, the
 * same origin as the subtitles ffmpeg extracts.
 */
export const framePassArgs = (options: FramePassOptions): ReadonlyArray<string> => [
  "-hide_banner",
  "-nostdin",
  "-nostats",
  "-loglevel",
  "info",
  "-i",
  options.input,
  "-filter_complex",
  [
    `[0:${options.streamIndex}]setpts=PTS-STARTPTS,split=2[grid][scene]`,
    `[grid]select='${gridSelect(options.intervalSeconds)}',showinfo@grid,scale=${options.width}:-2[frames]`,
    // The scene branch is the pass's only per-frame work beyond decoding, and it runs on ffmpeg's
    // filter thread: scoring every other frame on a crude fast_bilinear copy keeps it cheap (a cut is
    // placed at most one frame late), where bicubic on every frame cost more than the rest of the pass
    // (bench/buildFrames.ts).
    `[scene]select='not(mod(n,2))',scale=${options.sceneWidth}:-2:flags=fast_bilinear,select='gt(scene,${options.sceneThreshold})',showinfo@scene,nullsink`
  ].join(";"),
  "-map",
  "[frames]",
  // image2 is a constant-rate muxer: without passthrough it would duplicate frames to fill the gaps.
  "-fps_mode",
  "passthrough",
  "-q:v",
  String(options.jpegQuality),
  "-f",
  "image2",
  options.outputPattern
]

export interface FramePassReport {
  /** Real times of the grid frames, in output order (frame n is file n + firstFileNumber). */
  readonly gridTimes: ReadonlyArray<number>
  readonly sceneTimes: ReadonlyArray<number>
}

const configLine = /^\[showinfo@(grid|scene) @ [^\]]+\] config in time_base: (\d+)\/(\d+)/
const frameLine = /^\[showinfo@(grid|scene) @ [^\]]+\] n:\s*(\d+) pts:\s*(-?\d+) pts_time:(\S+)/

// showinfo prints pts_time with 6 significant digits (0.01 s past 1000 s), so the time is computed
// from the integer pts and the branch's time base when ffmpeg reported it.
const microseconds = (seconds: number) => Math.round(seconds * 1e6) / 1e6

/** Reads the frame times both showinfo instances printed to stderr. */
export const parseFramePass = (stderr: string): FramePassReport => {
  const timeBase: Record<string, number> = {}
  const times: Record<"grid" | "scene", Array<number>> = { grid: [], scene: [] }
  for (const line of stderr.split(/\r?\n/)) {
    const config = configLine.exec(line)
    if (config !== null) {
      const [, branch, num, den] = config
      if (Number(den) > 0) timeBase[branch!] = Number(num) / Number(den)
      continue
    }
    const frame = frameLine.exec(line)
    if (frame === null) continue
    const [, branch, , pts, ptsTime] = frame
    const base = timeBase[branch!]
    const seconds = base === undefined ? Number(ptsTime) : Number(pts) * base
    if (Number.isFinite(seconds)) times[branch as "grid" | "scene"].push(microseconds(seconds))
  }
  return { gridTimes: times.grid, sceneTimes: times.scene }
}

const damage = /partial file|corrupt|invalid data|error while decoding|error splitting|invalid nal|truncat|end of file/i

/**
 * The stretches where the grid lost frames: two grid frames in a row more than one slot apart mean the
 * slots between them had no frame at all. Each runs from the last frame before the hole to the first
 * after it. (A variable-rate video may have such holes too; the caller asks only when the decoder
 * reported damage.)
 */
export const gridGaps = (gridTimes: ReadonlyArray<number>, intervalSeconds: number): Array<DamagedSpan> => {
  const slot = (t: number) => Math.floor(t / intervalSeconds + 1e-6)
  const gaps: Array<DamagedSpan> = []
  for (let i = 1; i < gridTimes.length; i++) {
    const [before, after] = [gridTimes[i - 1]!, gridTimes[i]!]
    if (slot(after) - slot(before) >= 2) gaps.push({ start: before, end: after })
  }
  return gaps
}

/** Whether the decoder complained about damaged or missing data (as a file cut short makes it do). */
export const reportsDamage = (stderr: string): boolean =>
  stderr.split(/\r?\n/).some((line) => !line.startsWith("[showinfo@") && damage.test(line))
