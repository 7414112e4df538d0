// Subtitle parsing at scale (issue #33: the old parser was quadratic, 100k cues took 80 s). SRT and WebVTT files
// of 10k, 50k and 100k cues go through parseSubtitles, the function the builder and the import call; linearity is
// read as the time per cue at 100k against the time per cue at 10k (1.0 is perfectly linear).
import { Effect } from "effect"
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { parseSubtitles } from "../src/domain/SubtitleFormat.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const sizes = [10_000, 50_000, 100_000] as const
const repeats = 3

const stamp = (seconds: number, separator: "," | "."): string => {
  const ms = Math.round(seconds * 1000)
  const part = (value: number, width: number) => String(value).padStart(width, "0")
  return `${part(Math.floor(ms / 3_600_000), 2)}:${part(Math.floor(ms / 60_000) % 60, 2)}:${
    part(Math.floor(ms / 1000) % 60, 2)
  }${separator}${part(ms % 1000, 3)}`
}

const srt = (cues: number): string =>
  Array.from({ length: cues }, (_, i) => `${i + 1}\n${stamp(i / 2, ",")} --> ${stamp(i / 2 + 0.25, ",")}\nline ${i}\n`)
    .join("\n")

// The hostile shape: every cue on screen until the end of one minute, written out of order.
const vtt = (cues: number): string =>
  "WEBVTT\n\n" +
  Array.from({ length: cues }, (_, i) => `${stamp(((i * 7919) % 600) / 10, ".")} --> 00:01:00.000\ncue ${i}\n`)
    .join("\n")

const timeParse = async (text: string, path: string, expected: number): Promise<number> => {
  const started = performance.now()
  const cues = await Effect.runPromise(parseSubtitles(text, { path }))
  const elapsed = performance.now() - started
  if (cues.length !== expected) throw new Error(`${path}: read ${cues.length} cues, expected ${expected}`)
  return elapsed
}

const medianOf = async (text: string, path: string, expected: number): Promise<number> => {
  await timeParse(text, path, expected)
  const times: Array<number> = []
  for (let i = 0; i < repeats; i++) times.push(await timeParse(text, path, expected))
  return median(times)
}

const run = async (): Promise<string> => {
  const loadAtStart = loadavg()[0]!
  const rows: Array<{ cues: number; srt: number; vtt: number }> = []
  for (const cues of sizes) {
    rows.push({
      cues,
      srt: await medianOf(srt(cues), "bench.srt", cues),
      vtt: await medianOf(vtt(cues), "bench.vtt", cues)
    })
  }
  const loadAtEnd = loadavg()[0]!
  const ms = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`
  const first = rows[0]!
  const last = rows.at(-1)!
  const perCue = (row: { cues: number; srt: number; vtt: number }, key: "srt" | "vtt") => row[key] / row.cues
  const linearity = (key: "srt" | "vtt") => (perCue(last, key) / perCue(first, key)).toFixed(2)
  return [
    "`parseSubtitles` (the builder's and the import's subtitle reader) on SRT files of one cue every half second and on",
    "WebVTT files of cues all running to the end of one minute, written out of order (issue #33's hostile shape). Median",
    `of ${repeats} after one warm-up, tsx on the sources, Node ${process.versions.node}; load ${
      loadAtStart.toFixed(1)
    } at`,
    `the start and ${
      loadAtEnd.toFixed(1)
    } at the end on 2 shared cores. The old parser was quadratic (10k cues 1.4 s, 50k`,
    "15 s, 100k 80 s).",
    "",
    "| cues | SRT | WebVTT |",
    "|---:|---:|---:|",
    ...rows.map((row) => `| ${row.cues.toLocaleString("en-US")} | ${ms(row.srt)} | ${ms(row.vtt)} |`),
    "",
    `Time per cue at 100k over time per cue at 10k (1.00 is linear): SRT ${linearity("srt")}, WebVTT ${
      linearity("vtt")
    }. The issue's goal is 100k cues in at most 1 s; read the 100k row against the load above.`
  ].join("\n")
}

export default { title: "Subtitle parsing: 100,000 cues", run } satisfies BenchModule
