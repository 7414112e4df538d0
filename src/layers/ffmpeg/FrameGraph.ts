import type { DamagedSpan } from "../../domain/Media.js"
import { isControl } from "../../text/TerminalText.js"

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
  /** Where each grid frame's look (`lookSide`² RGB pixels, raw, one after another) is written. */
  readonly looksFile: string
}

/** Side of the tiny copy of each grid frame whose colours scene cuts compare: 4×4 keeps layout and palette. */
export const lookSide = 4
/** Bytes of one frame's look. */
export const lookBytes = lookSide * lookSide * 3

/** First file number image2 writes; frame n (0-based) of the grid branch is file n + firstFileNumber. */
export const firstFileNumber = 1

// `fps=1/2` emits the frame nearest the middle of each 2 s slot (0.96 s, 2.96 s, … on a 25 fps
// video), so the grid is a `select` instead: a frame is kept when it is the first at or after the next
// multiple of the interval. The epsilon absorbs time bases that cannot state k·interval exactly.
export const gridSelect = (intervalSeconds: number): string =>
  `isnan(prev_selected_t)+gte(floor(t/${intervalSeconds}+1e-6)-floor(prev_selected_t/${intervalSeconds}+1e-6),1)`

/**
 * One decode feeding two branches: the grid frames (showinfo@grid records each one's real time, then
 * they are scaled and written as JPEG, and as a tiny raw look for scene cuts) and the scene scores (on a small copy, reported by
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
    `[grid]select='${gridSelect(options.intervalSeconds)}',showinfo@grid,split=2[full][tiny]`,
    `[full]scale=${options.width}:-2[frames]`,
    // Area scaling averages every pixel into the cell it falls in: the look of the whole frame.
    `[tiny]scale=${lookSide}:${lookSide}:flags=area,format=rgb24[looks]`,
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
  options.outputPattern,
  "-map",
  "[looks]",
  "-fps_mode",
  "passthrough",
  "-f",
  "rawvideo",
  options.looksFile
]

/** The decoder's damage messages printed between the same two grid frames. */
export interface DamageReport {
  /** How many grid frames ffmpeg had shown when it printed them. */
  readonly gridFramesBefore: number
  /** The first of them as printed (cut to `keptLineLength`). */
  readonly first: string
  readonly count: number
}

export interface FramePassReport {
  /** Real times of the grid frames, in output order (frame n is file n + firstFileNumber). */
  readonly gridTimes: ReadonlyArray<number>
  readonly sceneTimes: ReadonlyArray<number>
  /** What the decoder said about damaged data, grouped by where it fell among the grid frames. */
  readonly damage: ReadonlyArray<DamageReport>
}

const configLine = /^\[showinfo@(grid|scene) @ [^\]]+\] config in time_base: (\d+)\/(\d+)/
const frameLine = /^\[showinfo@(grid|scene) @ [^\]]+\] n:\s*(\d+) pts:\s*(-?\d+) pts_time:(\S+)/

// What ffmpeg 5.1's demuxers, parsers and decoders print for damaged or missing data: "error while
// decoding MB 5 11", "concealing 64 DC, 64 AC, 64 MV errors in P frame", "Invalid NAL unit size",
// "partial file", MPEG-4's "ac-tex damaged", "Error at MB".
const damage =
  /partial file|corrupt|invalid data|error while decoding|error splitting|invalid nal|truncat|end of file|concealing \d+|missing picture|damaged|error at mb/i
// Only a library's own message is read ("[h264 @ 0x55…] …"), never the lines that carry the file's or the
// user's text: "Input #0 … from '<path>'", the indented metadata (a title may say "corrupt"), the output
// pattern. Filters, the scaler and the JPEG writer are ours, not the input's.
const libraryLine = /^\[([^\]]*?) @ 0x[0-9a-f]+\] (.*)$/i
const ours = /^(showinfo@|Parsed_|graph|swscaler|image2$)/
// ffmpeg's own lines about the decode, which name the input ("<path>: corrupt decoded frame in stream 0").
const decodeLine = /^Error while decoding stream #\d+:\d+: |: corrupt (decoded frame|input packet) in stream \d+$/

/** Whether a stderr line is the demuxer, a parser or the decoder reporting damaged data. */
const reportsDamage = (line: string): boolean => {
  const library = libraryLine.exec(line)
  if (library !== null) return !ours.test(library[1]!.trim()) && damage.test(library[2]!)
  return decodeLine.test(line)
}

// A message line kept from stderr is cut here before anything else is done with it.
const keptLineLength = 1000

// showinfo prints pts_time with 6 significant digits (0.01 s past 1000 s), so the time is computed
// from the integer pts and the branch's time base when ffmpeg reported it.
const microseconds = (seconds: number) => Math.round(seconds * 1e6) / 1e6

/**
 * Reads the frame times both showinfo instances printed to stderr, and the decoder's damage messages
 * with their place among the grid frames. The messages are counted, not kept: a badly damaged file
 * prints thousands, and one per stretch says what happened.
 */
export const parseFramePass = (stderr: string): FramePassReport => {
  const timeBase: Record<string, number> = {}
  const times: Record<"grid" | "scene", Array<number>> = { grid: [], scene: [] }
  const reports: Array<{ gridFramesBefore: number; first: string; count: number }> = []
  for (const line of stderr.split(/\r?\n/)) {
    if (!line.startsWith("[showinfo@")) {
      if (reportsDamage(line)) {
        const last = reports.at(-1)
        if (last !== undefined && last.gridFramesBefore === times.grid.length) last.count += 1
        else reports.push({ gridFramesBefore: times.grid.length, first: line.slice(0, keptLineLength), count: 1 })
      }
      continue
    }
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
  return { gridTimes: times.grid, sceneTimes: times.scene, damage: reports }
}

/**
 * The stretches where the grid lost frames: two grid frames in a row more than one slot apart mean the
 * slots between them had no frame at all. Each runs from the last frame before the hole to the first
 * after it. (A variable-rate video may have such holes too; they count only when the decoder reported
 * damage.)
 */
export const gridGaps = (
  gridTimes: ReadonlyArray<number>,
  intervalSeconds: number
): Array<{ start: number; end: number }> => {
  const slot = (t: number) => Math.floor(t / intervalSeconds + 1e-6)
  const gaps: Array<{ start: number; end: number }> = []
  for (let i = 1; i < gridTimes.length; i++) {
    const [before, after] = [gridTimes[i - 1]!, gridTimes[i]!]
    if (slot(after) - slot(before) >= 2) gaps.push({ start: before, end: after })
  }
  return gaps
}

/** At most this many spans are reported per video; more are joined across their shortest clean stretches. */
export const maxDamagedSpans = 32
/** Length a decoder message is cut to (an ellipsis marks the cut). */
export const decoderMessageLength = 160

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A decoder message as it may be shown and stored: the `[h264 @ 0x55…]` context becomes `h264:` (the
 * address is noise; `NULL` is the parser, which has no name), the input's path becomes its file name
 * (stderr is the file's and the user's data, not ours to copy around), control characters become
 * spaces, double quotes single ones (the summary quotes it), and it is cut to `decoderMessageLength`.
 */
export const decoderMessage = (line: string, input: string): string => {
  const name = input.split(/[\\/]/).pop() ?? input
  let text = line.replace(
    /^\[([^\]]*?) @ 0x[0-9a-f]+\]\s*/i,
    (_, context: string) => context.trim() === "NULL" || context.trim() === "" ? "" : `${context.trim()}: `
  )
  if (input !== "") {
    text = text.replace(new RegExp(`^${escapeRegExp(input)}: `), "").replaceAll(input, name)
  }
  text = Array.from(text, (char) => isControl(char.codePointAt(0)!) ? " " : char).join("")
    .replaceAll("\"", "'")
    .replace(/\s+/g, " ")
    .trim()
  const chars = Array.from(text)
  return chars.length <= decoderMessageLength ? text : `${chars.slice(0, decoderMessageLength - 1).join("")}…`
}

interface DamagedSpanOptions {
  readonly intervalSeconds: number
  /** The video's length: a message after the last grid frame reaches to it. */
  readonly durationSeconds: number
  /** The input as ffmpeg was given it (it names it in some messages). */
  readonly input: string
}

/**
 * The damaged spans of a frame pass, in order: holes in the grid (`missing`) and the stretches the
 * decoder complained about while still handing on frames (`corrupt`), overlapping ones joined, at most
 * `maxDamagedSpans`. Empty when the decoder said nothing — a clean video costs no more than the read of
 * its frame times.
 *
 * Where a message falls: ffmpeg prints it while decoding a frame that has not reached the filters yet,
 * so the frame is no earlier than the last grid frame shown before the message. Frame threads decode a
 * few frames ahead of the one handed on (up to ~16 plus the reorder delay), so its end is the second
 * grid frame shown after it, which allows one interval of lead.
 */
export const damagedSpans = (report: FramePassReport, options: DamagedSpanOptions): Array<DamagedSpan> => {
  if (report.damage.length === 0) return []
  const grid = report.gridTimes
  const videoEnd = Math.max(options.durationSeconds, grid.at(-1) ?? 0)
  const spans: Array<DamagedSpan> = [
    ...gridGaps(grid, options.intervalSeconds).map((gap): DamagedSpan => ({
      ...gap,
      picture: "missing",
      decoder: "",
      messages: 0
    })),
    ...report.damage.map((group): DamagedSpan => ({
      start: grid[group.gridFramesBefore - 1] ?? 0,
      end: grid[group.gridFramesBefore + 1] ?? videoEnd,
      picture: "corrupt",
      decoder: decoderMessage(group.first, options.input),
      messages: group.count
    }))
  ].sort((a, b) => a.start - b.start)
  const joined: Array<DamagedSpan> = []
  for (const span of spans) {
    const last = joined.at(-1)
    if (last !== undefined && span.start <= last.end) joined[joined.length - 1] = join(last, span)
    else joined.push(span)
  }
  return capSpans(joined, maxDamagedSpans)
}

const join = (a: DamagedSpan, b: DamagedSpan): DamagedSpan => ({
  start: Math.min(a.start, b.start),
  end: Math.max(a.end, b.end),
  picture: a.picture === "missing" || b.picture === "missing" ? "missing" : "corrupt",
  decoder: a.decoder !== "" ? a.decoder : b.decoder,
  messages: a.messages + b.messages
})

/** `spans` (in order, disjoint) joined across their shortest clean stretches until at most `max` remain. */
export const capSpans = (spans: ReadonlyArray<DamagedSpan>, max: number): Array<DamagedSpan> => {
  if (spans.length <= max) return [...spans]
  const between = spans.slice(1).map((span, i) => ({ i, clean: span.start - spans[i]!.end }))
  const bridged = new Set(
    between.sort((a, b) => a.clean - b.clean || a.i - b.i).slice(0, spans.length - max).map(({ i }) => i)
  )
  const out: Array<DamagedSpan> = [spans[0]!]
  for (let i = 1; i < spans.length; i++) {
    if (bridged.has(i - 1)) out[out.length - 1] = join(out.at(-1)!, spans[i]!)
    else out.push(spans[i]!)
  }
  return out
}
