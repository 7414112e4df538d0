// Cost of the embedded OCR (tesseract.js): worker start, first frame, warm frames, RSS before and after
// the first OCR, with 1 and 2 workers and with chi_sim added. Each figure comes from fresh processes
// (bench/ocr-probe.ts) so RSS is the OCR's alone; frames are 640×360 JPEGs with text drawn by ffmpeg.
import { execFile } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { renderTextFrame } from "../test/support/ocr/RenderFrame.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const probe = fileURLToPath(new URL("./ocr-probe.ts", import.meta.url))
const root = fileURLToPath(new URL("..", import.meta.url))

const slides: ReadonlyArray<ReadonlyArray<string>> = [
  ["Add 3 tomatoes", "Salt to taste"],
  ["STEP 2: STIR WELL", "Oven 180 C"],
  ["Chop the onions", "Total time 25 min"],
  ["Chapter 4", "The water cycle"],
  ["Press START to begin", "Score 1250"],
  ["Breaking news", "Markets close higher"],
  ["Q3 revenue up 12%", "Costs flat"],
  ["Lesson 7: fractions", "1/2 + 1/4 = 3/4"],
  ["Exit 42 Springfield", "Speed limit 65"],
  ["Thank you for watching", "Subscribe for more"]
]

interface Probe {
  readonly langs: string
  readonly workers: number
  readonly rssBefore: number
  readonly coldMs: number
  readonly read: number
  readonly rssAfterFirst: number
  readonly warm: ReadonlyArray<number>
  readonly batchMs: number
  readonly frames: number
  readonly rssAfter: number
  readonly startMs: number
}

const runProbe = async (langs: string, workers: number, frames: ReadonlyArray<string>): Promise<Probe> => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--import",
    "tsx",
    probe,
    langs,
    String(workers),
    ...frames
  ], { cwd: root })
  const result = JSON.parse(stdout.trim().split("\n").pop()!) as Probe
  if (result.read !== workers) throw new Error(`ocr probe: read ${result.read} of ${workers} frames`)
  return result
}

const ms = (value: number) => `${Math.round(value)} ms`
const mb = (value: number) => `${Math.round(value)} MB`

const bench: BenchModule = {
  title: "OCR (tesseract.js, embedded)",
  run: async () => {
    const dir = await mkdtemp(Path.join(tmpdir(), "vtree-bench-ocr-"))
    try {
      const frames = slides.map((_, index) => Path.join(dir, `frame_${index}.jpg`))
      await Promise.all(slides.map((lines, index) => renderTextFrame(frames[index]!, { lines })))
      const configs = [
        { langs: "eng", workers: 1, rounds: 3 },
        { langs: "eng", workers: 2, rounds: 2 },
        { langs: "eng+chi_sim", workers: 1, rounds: 2 }
      ]
      const rows: Array<string> = []
      for (const config of configs) {
        const probes: Array<Probe> = []
        for (let round = 0; round < config.rounds; round++) {
          probes.push(await runProbe(config.langs, config.workers, frames))
        }
        const of = (pick: (probe: Probe) => number) => median(probes.map(pick))
        rows.push(
          `| ${config.langs} | ${config.workers} | ${ms(of((p) => p.startMs))} | ${ms(of((p) => p.coldMs))} | ${
            ms(median(probes.flatMap((p) => p.warm)))
          } | ${ms(of((p) => p.batchMs / p.frames))} | ${mb(of((p) => p.rssBefore))} | ${
            mb(of((p) => p.rssAfterFirst))
          } | +${mb(of((p) => p.rssAfterFirst - p.rssBefore))} | ${mb(of((p) => p.rssAfter))} |`
        )
      }
      return [
        `Machine: ${cpus().length} cores (load ${
          loadavg()[0]!.toFixed(1)
        }), Node ${process.versions.node}. ${frames.length} frames of 640×360, two lines of`,
        "DejaVu Sans text each, drawn by ffmpeg. Each row: the median over fresh processes (3, 2, 2 rounds).",
        "",
        "| langs | workers | worker start | first OCR call (cold) | per frame, warm (median of 10 × rounds) | per frame, 10 at once | RSS before (layer built) | RSS after first call | Δ RSS | RSS after all ~20 frames |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ...rows,
        "",
        "- *worker start*: a bare start (thread, WASM core, trained data from node_modules) once the data is in the OS cache.",
        "- *first OCR call (cold)*: the first `transcribeFrames` with one frame per worker, workers started inside it: what the",
        "  first OCR question pays. *RSS before* is the process after loading vtree's modules under tsx with the layer built",
        "  (no worker); the Δ is what OCR adds."
      ].join("\n")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
}

export default bench
