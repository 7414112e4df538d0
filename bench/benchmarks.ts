// Detect + decode of a generated 10,000-question input per benchmark layout (target: ≤ 1 s each).
// Runs alone (`npx tsx bench/benchmarks.ts`, prints the section) or as a bench/run.ts section.
import { Either } from "effect"
import * as os from "node:os"
import { pathToFileURL } from "node:url"
import type { BenchmarkInput } from "../src/programs/benchmarks/Benchmark.js"
import { classifyText, decodeBenchmark } from "../src/programs/benchmarks/BenchmarkQuestions.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const n = 10_000
const runs = 5
const parseJson = (text: string) => Either.try(() => JSON.parse(text) as unknown)
const options4 = (i: number) => [`red ${i}`, `blue ${i}`, `green, ${i}`, `"grey" ${i}`]

const texts: ReadonlyArray<
  { readonly name: string; readonly files: ReadonlyArray<readonly [string, string]>; readonly folder?: string }
> = [
  {
    name: "videomme",
    files: [[
      "videomme.jsonl",
      Array.from({ length: n }, (_, i) =>
        JSON.stringify({
          video_id: String(Math.floor(i / 3)).padStart(3, "0"),
          duration: "medium",
          domain: "Knowledge",
          sub_category: "History",
          videoID: `vid${Math.floor(i / 3)}`,
          question_id: `q${i}`,
          task_type: "Counting Problem",
          question: `How many things are there in scene ${i}?`,
          options: options4(i).map((o, k) => `${"ABCD"[k]}. ${o}`),
          answer: "ABCD"[i % 4]
        })).join("\n")
    ]]
  },
  {
    name: "lvbench",
    files: [[
      "video_info.meta.jsonl",
      Array.from({ length: n / 10 }, (_, v) =>
        JSON.stringify({
          key: `video${v}`,
          type: "cartoon",
          video_info: { duration_minutes: 70 },
          qa: Array.from({ length: 10 }, (_, k) => ({
            uid: `${v}-${k}`,
            question: `What happens at ${k}?\n(A) one\n(B) two\n(C) three\n(D) four`,
            answer: "ABCD"[k % 4],
            question_type: k % 2 === 0 ? ["reasoning", "key information retrieval"] : ["entity recognition"],
            time_reference: "00:10-00:20"
          }))
        })).join("\n")
    ]]
  },
  {
    name: "longvideobench",
    files: [[
      "lvb_val.json",
      JSON.stringify(Array.from({ length: n }, (_, i) => ({
        id: `v${i}_0`,
        video_path: `v${Math.floor(i / 4)}.mp4`,
        subtitle_path: `v${Math.floor(i / 4)}_en.json`,
        duration: 500,
        duration_group: 600,
        starting_timestamp_for_subtitles: 0,
        question: `What is shown at ${i}?`,
        candidates: [...options4(i), "none"],
        correct_choice: i % 5,
        question_category: "S2E",
        topic_category: "NP-News",
        level: "L1"
      })))
    ]]
  },
  {
    name: "mlvu",
    folder: "mlvu_dev",
    files: ["plotQA", "needle", "ego", "count", "order"].map((task, t) =>
      [
        `${t + 1}_${task}.json`,
        JSON.stringify(Array.from({ length: n / 5 }, (_, i) => ({
          video: `${task}_${Math.floor(i / 2)}.mp4`,
          duration: 300,
          question: `Question ${i}?`,
          candidates: options4(i),
          answer: options4(i)[i % 4],
          question_type: task
        })))
      ] as const
    )
  },
  {
    name: "egoschema",
    files: [[
      "questions.json",
      JSON.stringify(Array.from({ length: n }, (_, i) => ({
        q_uid: `uid-${i}`,
        google_drive_id: `g${i}`,
        question: `What is c doing in ${i}?`,
        "option 0": "a",
        "option 1": "b",
        "option 2": "c",
        "option 3": "d",
        "option 4": "e"
      })))
    ]]
  },
  {
    name: "nextqa",
    files: [[
      "val.csv",
      [
        "video,frame_count,width,height,question,answer,qid,type,a0,a1,a2,a3,a4",
        ...Array.from(
          { length: n },
          (_, i) =>
            `${1000 + Math.floor(i / 8)},300,640,480,"why did he say ""no, never"" at ${i}",${i % 5},${
              i % 8
            },CW,"a, b",c,d,e,f`
        )
      ].join("\r\n")
    ]]
  }
]

const inputOf = (t: (typeof texts)[number]): BenchmarkInput => {
  const files = t.files.map(([file, text]) => ({ file, content: classifyText(text, parseJson) }))
  return t.folder === undefined ? { _tag: "File", file: files[0]! } : { _tag: "Folder", dir: t.folder, files }
}

/** Wall and CPU milliseconds: on a shared machine the CPU time is the steadier figure. */
const time = (f: () => void): { readonly wall: number; readonly cpu: number } => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  f()
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }
}
const medians = (samples: ReadonlyArray<{ readonly wall: number; readonly cpu: number }>) => ({
  wall: median(samples.map((s) => s.wall)),
  cpu: median(samples.map((s) => s.cpu))
})

interface Timing {
  readonly wall: number
  readonly cpu: number
}

export const measure = (): ReadonlyArray<
  { readonly name: string; readonly parse: Timing; readonly decode: Timing; readonly questions: number }
> =>
  texts.map((t) => {
    const parse = medians(Array.from({ length: runs }, () => time(() => inputOf(t))))
    const input = inputOf(t)
    let questions = 0
    const decode = medians(Array.from({ length: runs }, () =>
      time(() => {
        const result = decodeBenchmark(input)
        if (Either.isLeft(result)) throw new Error(result.left.message)
        if (result.right.benchmark.name !== t.name) {
          throw new Error(`${t.name} detected as ${result.right.benchmark.name}`)
        }
        questions = result.right.questions.length
      })))
    return { name: t.name, parse, decode, questions }
  })

const render = (): string => {
  const rows = measure()
  return [
    `Detect + decode (\`decodeBenchmark\`: detection, row decoding, id check) of a generated ${
      n.toLocaleString("en")
    }-question input per layout,`,
    `median of ${runs} runs, wall and CPU time (the CPU figure is the steadier one on a shared machine); the loader's read`,
    `(file text → JSON values / csv text, \`classifyText\` over JSON.parse) beside it. Target ≤ 1000 ms. Load average at the`,
    `run: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores.`,
    "",
    "| layout | questions | detect + decode, wall (ms) | CPU (ms) | CPU of the 1 s target | text → values, CPU (ms) |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.name} | ${r.questions} | ${r.decode.wall.toFixed(0)} | ${r.decode.cpu.toFixed(0)} | ${
        (r.decode.cpu / 10).toFixed(0)
      } % | ${r.parse.cpu.toFixed(0)} |`
    )
  ].join("\n")
}

const module: BenchModule = { title: "Benchmark layouts: detect and decode", run: async () => render() }
export default module

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(render() + "\n")
}
