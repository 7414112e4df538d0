/**
 * Videos made by the tests themselves with the real ffmpeg: visually distinct segments with known cut
 * times, the presentation time burned into every frame, a sine tone, and subtitles both as an `.srt`
 * beside the video and muxed in as a stream. Also the broken inputs the builder must refuse.
 */
import { execFile } from "node:child_process"
import { open, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import type { SubtitleCue } from "../../../src/domain/Media.js"

const run = promisify(execFile)

/** lavfi sources that look nothing alike, so each cut scores high on ffmpeg's scene measure. */
export const segmentSources = [
  "color=c=red",
  "testsrc2",
  "smptebars",
  "color=c=blue",
  "rgbtestsrc",
  "color=c=0x30a030",
  "yuvtestsrc",
  "color=c=white"
] as const

export interface SyntheticVideoOptions {
  readonly dir: string
  /** File name without extension (the videoID). */
  readonly name?: string
  /** Length of each segment in seconds; the sources cycle through `segmentSources`. */
  readonly segmentSeconds?: ReadonlyArray<number>
  readonly width?: number
  readonly height?: number
  readonly fps?: number
  readonly cues?: ReadonlyArray<SubtitleCue>
  /** Mux the cues into the video as a mov_text stream (default true). */
  readonly subtitleStream?: boolean
  /** A caption drawn across the middle of each segment (same order as `segmentSeconds`). */
  readonly labels?: ReadonlyArray<string>
  /** Draw the presentation time on each frame (default true). */
  readonly timestamps?: boolean
  /** Extra encoder arguments (default: x264 veryfast, crf 28). */
  readonly videoCodecArgs?: ReadonlyArray<string>
  readonly audioBitrate?: string
  /** Output options placed before the file name (metadata, bit-exact flags). */
  readonly extraOutputArgs?: ReadonlyArray<string>
  /** Put the MP4 index first, as streaming sites do (default true). */
  readonly faststart?: boolean
}

export interface SyntheticVideo {
  readonly video: string
  /** The same cues as an SRT file, named `<name>.srt` beside the video (a sidecar). */
  readonly srt: string
  readonly durationSeconds: number
  /** Times where one segment ends and the next begins. */
  readonly cutTimes: ReadonlyArray<number>
  readonly cues: ReadonlyArray<SubtitleCue>
}

export const defaultCues: ReadonlyArray<SubtitleCue> = [
  { start: 0.5, end: 2.5, text: "The red room is empty." },
  { start: 5.5, end: 8, text: "A test pattern appears." },
  { start: 12.5, end: 15, text: "Colour bars fill the screen." }
]

const clock = (seconds: number, separator: "," | ".") => {
  const ms = Math.round(seconds * 1000)
  const pad = (value: number, width = 2) => String(value).padStart(width, "0")
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${
    pad(Math.floor(ms / 1000) % 60)
  }${separator}${pad(ms % 1000, 3)}`
}

export const formatSrt = (cues: ReadonlyArray<SubtitleCue>): string =>
  cues.map((cue, i) => `${i + 1}\n${clock(cue.start, ",")} --> ${clock(cue.end, ",")}\n${cue.text}\n`).join("\n")

export const formatVtt = (cues: ReadonlyArray<SubtitleCue>): string =>
  `WEBVTT\n\n${cues.map((cue) => `${clock(cue.start, ".")} --> ${clock(cue.end, ".")}\n${cue.text}\n`).join("\n")}`

let fontFile: Promise<string> | undefined
/** A TrueType font for drawtext, from fontconfig (fonts-dejavu-core in CI). */
export const findFont = (): Promise<
  string
> => (fontFile ??= run("fc-match", ["--format=%{file}", "DejaVu Sans Mono"]).then(({ stdout }) => stdout.trim()))

export const makeSyntheticVideo = async (options: SyntheticVideoOptions): Promise<SyntheticVideo> => {
  const name = options.name ?? "synthetic"
  const segments = options.segmentSeconds ?? [5, 7, 6]
  const width = options.width ?? 320
  const height = options.height ?? 180
  const fps = options.fps ?? 25
  const cues = options.cues ?? defaultCues
  const durationSeconds = segments.reduce((sum, seconds) => sum + seconds, 0)
  const cutTimes = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).reduce((sum, s) => sum + s, 0))
  const video = join(options.dir, `${name}.mp4`)
  const srt = join(options.dir, `${name}.srt`)
  await writeFile(srt, formatSrt(cues))

  const inputs = segments.flatMap((seconds, i) => {
    const source = segmentSources[i % segmentSources.length]!
    return [
      "-f",
      "lavfi",
      "-i",
      `${source}${source.includes("=") ? ":" : "="}s=${width}x${height}:r=${fps}:d=${seconds}`
    ]
  })
  const timestamps = options.timestamps ?? true
  const font = timestamps || (options.labels ?? []).length > 0 ? await findFont() : ""
  const fontSize = Math.max(12, Math.round(height / 8))
  const draw = timestamps
    ? `,drawtext=fontfile='${font}':text='%{pts\\:flt}':fontsize=${fontSize}:fontcolor=white:box=1:boxcolor=black:x=4:y=4`
    : ""
  const labels = (options.labels ?? []).map((label, i) => {
    const from = segments.slice(0, i).reduce((sum, s) => sum + s, 0)
    const to = from + (segments[i] ?? 0)
    return `,drawtext=fontfile='${font}':text='${
      label.replace(/[':\\]/g, "")
    }':fontsize=${fontSize}:fontcolor=white:box=1:boxcolor=black@0.6:x=(w-text_w)/2:y=(h-text_h)/2:enable='gte(t,${from})*lt(t,${to})'`
  })
  const graph = `${segments.map((_, i) => `[${i}:v]`).join("")}concat=n=${segments.length}:v=1:a=0${draw}${
    labels.join("")
  }[v]`
  const audio = ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${durationSeconds}`]
  const withSubtitles = options.subtitleStream ?? true
  const subtitleInput = withSubtitles ? ["-i", srt] : []
  const n = segments.length
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    ...inputs,
    ...audio,
    ...subtitleInput,
    "-filter_complex",
    graph,
    "-map",
    "[v]",
    "-map",
    `${n}:a`,
    ...(withSubtitles ? ["-map", `${n + 1}:s`, "-c:s", "mov_text", "-metadata:s:s:0", "language=eng"] : []),
    ...(options.videoCodecArgs ?? ["-c:v", "libx264", "-preset", "veryfast", "-crf", "28"]),
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-b:a",
    options.audioBitrate ?? "64k",
    "-ac",
    "1",
    ...((options.faststart ?? true) ? ["-movflags", "+faststart"] : []),
    ...(options.extraOutputArgs ?? []),
    "-t",
    String(durationSeconds),
    video
  ])
  return { video, srt, durationSeconds, cutTimes, cues }
}

/** An audio-only file (a tone). */
export const makeAudioOnly = async (dir: string, name = "tone.m4a"): Promise<string> => {
  const path = join(dir, name)
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "sine=d=3",
    "-c:a",
    "aac",
    path
  ])
  return path
}

/** The first `fraction` of `source`'s bytes, as a download cut short would leave it. */
export const truncateCopy = async (source: string, target: string, fraction: number): Promise<string> => {
  const size = (await stat(source)).size
  const handle = await open(source, "r")
  try {
    const bytes = Buffer.alloc(Math.floor(size * fraction))
    await handle.read(bytes, 0, bytes.length, 0)
    await writeFile(target, bytes)
  } finally {
    await handle.close()
  }
  return target
}

/**
 * A copy of `source` whose video packets presented from `fromSeconds` to `toSeconds` (keyframes spared)
 * have the middle of their payload overwritten with pseudo-random bytes, as a bad sector or a flipped
 * download would leave them: the container and every packet's size stay intact, so the decoder still
 * hands on a picture for every frame, with damaged blocks. Returns the times of the packets it damaged.
 */
export const corruptPackets = async (
  source: string,
  target: string,
  fromSeconds: number,
  toSeconds: number
): Promise<ReadonlyArray<number>> => {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-show_entries",
    "packet=pts_time,pos,size,flags",
    "-of",
    "json",
    source
  ])
  const packets = (JSON.parse(stdout) as {
    packets: ReadonlyArray<{ pts_time: string; pos: string; size: string; flags: string }>
  }).packets
    .map((p) => ({ time: Number(p.pts_time), pos: Number(p.pos), size: Number(p.size), key: p.flags.includes("K") }))
    .filter((p) => !p.key && p.time >= fromSeconds && p.time <= toSeconds && p.size >= 64)
  const bytes = await readFile(source)
  let seed = 0x2545f491
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24
  for (const packet of packets) {
    const from = packet.pos + Math.floor(packet.size * 0.3)
    const to = packet.pos + Math.floor(packet.size * 0.7)
    for (let i = from; i < to; i++) bytes[i] = next()
  }
  await writeFile(target, bytes)
  return packets.map((p) => p.time).sort((a, b) => a - b)
}
