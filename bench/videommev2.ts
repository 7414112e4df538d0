// Video-MME-v2's test.parquet at release size (3,200 questions, 800 groups of four), written with hyparquet-writer
// to a temporary folder, then timed: the whole load (`loadQuestionSet`: read, Parquet decode, detect, decode), and
// apart its two halves, Parquet bytes → rows and detect + decode of the rows.
// Runs alone (`npx tsx bench/videommev2.ts`, prints the section) or as a bench/run.ts section.
import { NodeContext } from "@effect/platform-node"
import { Effect, Either } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { decodeBenchmark } from "../src/programs/benchmarks/BenchmarkQuestions.js"
import { parquetRowsOf } from "../src/programs/questions/ParquetRows.js"
import { loadQuestionSet } from "../src/programs/questions/QuestionLoader.js"
import { manyVideoMmeV2Rows, videoMmeV2Parquet } from "../test/support/benchmarks/VideoMmeV2Inputs.js"
import { withTempDir } from "../test/support/TempDir.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const groups = 800
const runs = 5

interface Timing {
  readonly wall: number
  readonly cpu: number
}

/** Wall and CPU milliseconds: on a shared machine the CPU time is the steadier figure. */
const time = async (f: () => Promise<void>): Promise<Timing> => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  await f()
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }
}

const medianOf = async (f: () => Promise<void>): Promise<Timing> => {
  const samples: Array<Timing> = []
  for (let i = 0; i < runs; i++) samples.push(await time(f))
  return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) }
}

const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)

export const measure = () =>
  withTempDir("bench-videommev2", async (dir) => {
    const file = join(dir, "test.parquet")
    writeFileSync(file, videoMmeV2Parquet(manyVideoMmeV2Rows(groups)))
    const bytes = new Uint8Array(readFileSync(file))
    let questions = 0
    const load = await medianOf(async () => {
      const loaded = await run(loadQuestionSet(file).pipe(Effect.provide(NodeContext.layer)))
      if (loaded.benchmark !== "videommev2") throw new Error(`detected as ${loaded.benchmark}`)
      questions = loaded.questions.length
    })
    const rows = await run(parquetRowsOf(file, bytes))
    const toRows = await medianOf(async () => {
      await run(parquetRowsOf(file, bytes))
    })
    const decode = await medianOf(async () => {
      const result = decodeBenchmark({ _tag: "File", file: { file, content: { _tag: "Table", rows } } })
      if (Either.isLeft(result)) throw new Error(result.left.message)
    })
    return { bytes: bytes.length, questions, load, toRows, decode }
  })

const render = async (): Promise<string> => {
  const m = await measure()
  const row = (name: string, t: Timing) => `| ${name} | ${t.wall.toFixed(0)} | ${t.cpu.toFixed(0)} |`
  return [
    `A generated test.parquet in the released layout: ${m.questions.toLocaleString("en")} questions (${groups} groups`,
    `of four, eight options each), ${
      (m.bytes / 1024).toFixed(0)
    } KiB as hyparquet-writer writes it (snappy). Median of`,
    `${runs} runs, wall and CPU time. Load average at the run: ${
      os.loadavg()[0]!.toFixed(1)
    } on ${os.cpus().length} cores.`,
    "",
    "| step | wall (ms) | CPU (ms) |",
    "| --- | ---: | ---: |",
    row("whole load (`loadQuestionSet`: read, Parquet → rows, detect, decode)", m.load),
    row("Parquet bytes → rows (`parquetRowsOf`, hyparquet + compressors)", m.toRows),
    row("detect + decode of the rows (`decodeBenchmark`)", m.decode)
  ].join("\n")
}

const module: BenchModule = { title: "Video-MME-v2: detect and decode of test.parquet", run: render }
export default module

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write((await render()) + "\n")
}
