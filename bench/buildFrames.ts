// Frame extraction for `vtree build`: the live FrameSource (one decode giving grid frames and scene
// scores, plus the probe before it) against the plain ffmpeg command that writes the same frames and
// nothing else, on a 10-minute 720p synthetic video. Paired runs, alternating which goes first.
//
//   npx tsx bench/buildFrames.ts        prints the section; the build bench embeds measureFrameExtraction
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import * as Ffmpeg from "../src/layers/ffmpeg/Ffmpeg.js"
import { gridSelect } from "../src/layers/ffmpeg/FrameGraph.js"
import { FrameSource } from "../src/services/FrameSource.js"
import { makeSyntheticVideo } from "../test/support/media/SyntheticVideo.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

// Detached, as @effect/platform starts ours: a new session is a new scheduler autogroup on Linux,
// and on a loaded machine processes in different autogroups get different shares of the CPU.
const runDetached = (command: string, args: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore" })
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))))
  })

const interval = 2
const width = 640

export interface FrameBenchResult {
  readonly videoSeconds: number
  readonly frames: number
  readonly shotChanges: number
  readonly cuts: number
  /** Wall milliseconds per round. */
  readonly oursMs: ReadonlyArray<number>
  readonly plainMs: ReadonlyArray<number>
  /** CPU milliseconds (user + system) of the ffmpeg process per round. */
  readonly oursCpuMs: ReadonlyArray<number>
  readonly plainCpuMs: ReadonlyArray<number>
  /** Medians of the per-round ratios ours / plain. */
  readonly ratio: number
  readonly cpuRatio: number
  readonly sameFrames: boolean
}

/** The 10-minute 720p video, made once per machine and kept in the temp folder (it takes minutes). */
export const benchVideo = async (): Promise<
  { readonly path: string; readonly seconds: number; readonly cuts: number }
> => {
  const segmentSeconds = Array.from({ length: 20 }, () => 30)
  const key = createHash("sha256").update(JSON.stringify({ segmentSeconds, v: 1 })).digest("hex").slice(0, 12)
  const dir = join(tmpdir(), `vtree-bench-720p-${key}`)
  const path = join(dir, "bench720.mp4")
  if (!existsSync(path)) {
    const staging = mkdtempSync(join(tmpdir(), "vtree-bench-720p-staging-"))
    process.stderr.write("bench buildFrames: making the 10-minute 720p video (once per machine)…\n")
    const made = await makeSyntheticVideo({
      dir: staging,
      name: "bench720",
      segmentSeconds,
      width: 1280,
      height: 720,
      fps: 25,
      timestamps: false,
      subtitleStream: false,
      videoCodecArgs: ["-c:v", "libx264", "-preset", "superfast", "-crf", "30"]
    })
    mkdirSync(dir, { recursive: true })
    renameSync(made.video, path)
    rmSync(staging, { recursive: true, force: true })
  }
  return { path, seconds: segmentSeconds.reduce((a, b) => a + b, 0), cuts: segmentSeconds.length - 1 }
}

const digests = (dir: string) =>
  readdirSync(dir).sort().map((name) => createHash("sha256").update(readFileSync(join(dir, name))).digest("hex"))

// On a shared machine wall time swings with the neighbours' load; the CPU time ffmpeg itself used
// swings far less. Both sides run ffmpeg through this wrapper, which appends bash's `times` (the
// children's user and system time) to a file, so the two are measured the same way.
const timedFfmpeg = (dir: string) => {
  const wrapper = join(dir, "timed-ffmpeg.sh")
  writeFileSync(wrapper, `#!/usr/bin/env bash\nffmpeg "$@"\nrc=$?\ntimes > "$VTREE_BENCH_TIMES"\nexit $rc\n`)
  chmodSync(wrapper, 0o755)
  return wrapper
}
const cpuMs = (timesFile: string) => {
  const children = readFileSync(timesFile, "utf8").trim().split("\n")[1] ?? ""
  return [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, [, min, sec]) => sum + (Number(min) * 60 + Number(sec)) * 1000,
    0
  )
}

export const measureFrameExtraction = async (rounds = 3): Promise<FrameBenchResult> => {
  const video = await benchVideo()
  const work = mkdtempSync(join(tmpdir(), "vtree-bench-frames-"))
  const wrapper = timedFfmpeg(work)
  const timesFile = join(work, "times.txt")
  process.env["VTREE_BENCH_TIMES"] = timesFile
  const live = Ffmpeg.layer({
    ffmpeg: { name: "ffmpeg", command: wrapper, variable: "VTREE_FFMPEG", fromVariable: true },
    ffprobe: { name: "ffprobe", command: "ffprobe", variable: "VTREE_FFPROBE", fromVariable: false }
  }).pipe(Layer.provide(NodeContext.layer))
  const ours = async () => {
    const outDir = join(work, "ours")
    rmSync(outDir, { recursive: true, force: true })
    const start = performance.now()
    const result = await Effect.runPromise(
      Effect.flatMap(
        FrameSource,
        (source) => source.extract({ path: video.path, intervalSeconds: interval, width, outDir })
      ).pipe(
        Effect.provide(live)
      )
    )
    return { ms: performance.now() - start, cpu: cpuMs(timesFile), result }
  }
  // The simplest command that writes these frames: the same grid select and scale, nothing else.
  const plain = async () => {
    const outDir = join(work, "plain")
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir)
    const start = performance.now()
    await runDetached(wrapper, [
      "-hide_banner",
      "-nostdin",
      "-loglevel",
      "error",
      "-i",
      video.path,
      "-vf",
      `select='${gridSelect(interval)}',scale=${width}:-2`,
      "-fps_mode",
      "passthrough",
      "-q:v",
      "3",
      join(outDir, "%06d.jpg")
    ])
    return { ms: performance.now() - start, cpu: cpuMs(timesFile) }
  }
  try {
    const oursMs: Array<number> = []
    const plainMs: Array<number> = []
    const oursCpuMs: Array<number> = []
    const plainCpuMs: Array<number> = []
    let last: Awaited<ReturnType<typeof ours>> | undefined
    for (let round = 0; round < rounds; round++) {
      let other: Awaited<ReturnType<typeof plain>>
      if (round % 2 === 0) {
        last = await ours()
        other = await plain()
      } else {
        other = await plain()
        last = await ours()
      }
      oursMs.push(last.ms)
      oursCpuMs.push(last.cpu)
      plainMs.push(other.ms)
      plainCpuMs.push(other.cpu)
      process.stderr.write(
        `bench buildFrames: round ${round + 1}: ours ${last.ms.toFixed(0)} ms (cpu ${last.cpu.toFixed(0)}), plain ${
          other.ms.toFixed(0)
        } ms (cpu ${other.cpu.toFixed(0)})\n`
      )
    }
    const ourDigests = digests(join(work, "ours"))
    const plainDigests = digests(join(work, "plain"))
    return {
      videoSeconds: video.seconds,
      frames: last!.result.frames.length,
      shotChanges: last!.result.shotChanges.length,
      cuts: video.cuts,
      oursMs,
      plainMs,
      oursCpuMs,
      plainCpuMs,
      ratio: median(oursMs.map((ms, i) => ms / plainMs[i]!)),
      cpuRatio: median(oursCpuMs.map((ms, i) => ms / plainCpuMs[i]!)),
      sameFrames: ourDigests.length === plainDigests.length &&
        ourDigests.every((digest, i) => digest === plainDigests[i])
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

export const frameExtractionSection = (result: FrameBenchResult): string =>
  [
    "| what | median wall time (runs) | median ffmpeg CPU time (runs) |",
    "| --- | --- | --- |",
    `| vtree FrameSource (probe + one pass: grid frames and scene scores) | ${seconds(median(result.oursMs))} (${
      result.oursMs.map(seconds).join(", ")
    }) | ${seconds(median(result.oursCpuMs))} (${result.oursCpuMs.map(seconds).join(", ")}) |`,
    `| plain \`ffmpeg -vf "select=<grid>,scale=${width}:-2" -fps_mode passthrough -q:v 3\` | ${
      seconds(median(result.plainMs))
    } (${result.plainMs.map(seconds).join(", ")}) | ${seconds(median(result.plainCpuMs))} (${
      result.plainCpuMs.map(seconds).join(", ")
    }) |`,
    "",
    `**Ratio ${result.ratio.toFixed(2)}× wall, ${
      result.cpuRatio.toFixed(2)
    }× CPU** (medians of ${result.oursMs.length} paired rounds, order alternating; target ≤ 1.3×). ` +
    "CPU time is ffmpeg's own user + system time (bash `times` around each run): on a shared machine it moves far less than wall time.",
    `Video: ${result.videoSeconds / 60} minutes of 1280×720 at 25 fps (x264 superfast), ${result.cuts} hard cuts; ` +
    `one frame every ${interval} s at width ${width}: ${result.frames} frames, ${
      result.frames === 0
        ? ""
        : result.sameFrames
        ? "byte-identical to the plain command's"
        : "NOT identical to the plain command's"
    }; ` +
    `${result.shotChanges} shot changes found for ${result.cuts} cuts.`,
    `1-minute load average at the end: ${
      loadavg()[0]!.toFixed(1)
    } on ${cpus().length} cores (other work shares this machine).`
  ].join("\n")

const bench: BenchModule = {
  title: "Build: frame extraction (10-minute 720p video)",
  run: async () => frameExtractionSection(await measureFrameExtraction())
}
export default bench

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${await bench.run()}\n`)
}
