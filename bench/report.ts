// Report benchmark: `vtree report` over a Video-MME-sized run (2,700 questions, 8 steps and 20 model calls
// each), in every format, and how fast headless Chromium opens the html page. Needs the built dist/
// (`npm run bench` builds it) and Debian's chromium.
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { VideoMmeTaskTypes } from "../src/domain/Question.js"
import * as SqliteRunStore from "../src/layers/sql/sqlite/SqliteRunStore.js"
import { unpackBodies } from "../src/programs/report/ReportHtml.js"
import { RunStore } from "../src/services/RunStore.js"
import { loadTimes, ms, probedCopy, timeCli } from "./reportPage.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const questions = 2_700

// Tool output that compresses like real captions (about 3× under gzip), not like one repeated sentence:
// words drawn from a small vocabulary by a seeded generator, so every run writes the same page.
const vocabulary = ("a the person people man woman child car red blue green table chair door window street room " +
  "walks stands sits holds opens looks turns speaks runs carries points smiles camera shows close view near behind " +
  "left right front back during after before while then scene frame text sign screen logo 12:30 two three").split(" ")
const prose = (chars: number, seed: number): string => {
  let state = seed * 2654435761 >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const words: Array<string> = []
  let length = 0
  while (length < chars) {
    const word = vocabulary[Math.floor(next() * vocabulary.length)]!
    words.push(word)
    length += word.length + 1
  }
  return words.join(" ") + "."
}

/** 2,700 saved questions, each with 8 steps (1.5 kB of tool output apiece) and 20 timed model calls. */
const fill = (file: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId: "bench", config: {}, startedAt: 0 })
    for (let i = 0; i < questions; i++) {
      const questionId = `${String(Math.floor(i / 3)).padStart(3, "0")}-${i % 3 + 1}`
      const start = i * 60_000
      yield* store.saveQuestion("bench", {
        prediction: {
          questionId,
          videoId: `video${Math.floor(i / 3)}`,
          taskType: VideoMmeTaskTypes[i % VideoMmeTaskTypes.length]!,
          duration: (["short", "medium", "long"] as const)[Math.floor(i / 900)]!,
          domain: [
            "Knowledge",
            "Film & Television",
            "Sports Competition",
            "Artistic Performance",
            "Life Record",
            "Multilingual"
          ][i % 6]!,
          question: `Benchmark question ${i}: how many people appear in the scene with the red car?`,
          options: ["A. One", "B. Two", "C. Three", "D. Four"],
          answer: "B",
          prediction: i % 11 === 0 ? null : i % 3 === 0 ? "C" : "B",
          correct: i % 3 !== 0 && i % 11 !== 0,
          evidence: "two people at 12:30",
          reasoning: "counted them in the frames",
          stepsUsed: 8,
          stopReason: "finished",
          error: null,
          promptTokens: 180_000,
          completionTokens: 6_000,
          startedAt: start,
          finishedAt: start + 45_000
        },
        steps: Array.from({ length: 8 }, (_, s) => ({
          step: s + 1,
          tool: s === 7 ? "submit_answer" : "view_node",
          args: { node_id: `video_L1_00${s}`, question: "people?" },
          output: `[Node] video_L1_00${s} | Scene | ${s * 300}-${s * 300 + 300}s\n` + prose(1_500, i * 8 + s),
          thought: "look at the next scene",
          reflect: { seen: s },
          plan: { next: "view children" }
        })),
        calls: Array.from({ length: 20 }, (_, c) => ({
          questionId,
          parentStep: Math.floor(c / 2.5) + 1,
          role: c % 3 === 0 ? "agent" as const : "tool" as const,
          model: c % 3 === 0 ? "reasoner" : "summarizer",
          startedAt: start + c * 2_000,
          durationMs: 1_500,
          promptTokens: 9_000,
          completionTokens: 300,
          status: "ok" as const,
          errorReason: null
        }))
      })
    }
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

const module: BenchModule = {
  title: "Report: 2,700 questions, text / json / html / compare, html load in Chromium",
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), "vtree-bench-report-"))
    try {
      const db = join(dir, "vtree.db")
      await Effect.runPromise(fill(db))
      const runs = 3
      const text = median(Array.from({ length: runs }, () => timeCli(["report", "--run-id", "bench"], dir)))
      const json = median(
        Array.from({ length: runs }, () => timeCli(["report", "--run-id", "bench", "--format", "json"], dir))
      )
      const html = median(
        Array.from(
          { length: runs },
          () => timeCli(["report", "--run-id", "bench", "--format", "html", "--out", "r.html"], dir)
        )
      )
      const compare = median(
        Array.from({ length: runs }, () => timeCli(["report", "--compare", "bench", "bench"], dir))
      )
      const help = median(Array.from({ length: runs }, () => timeCli(["--help"], dir)))
      const page = join(dir, "r.html")
      const size = statSync(page).size
      const pageText = readFileSync(page, "utf8")
      const packed = /<script type="application\/gzip" id="bodies">([^<]*)<\/script>/.exec(pageText)?.[1]?.length ?? 0
      const unpacked = unpackBodies(pageText).reduce((sum, body) => sum + Buffer.byteLength(body), 0)
      const probed = probedCopy(page)
      const { dcl, load } = loadTimes(probed, runs)
      // The same page with nothing deferred: every row and trajectory shell built before the first paint,
      // as the page did before (and about how long the deferred part takes to build after it).
      const eager = join(dir, "eager.html")
      writeFileSync(
        eager,
        readFileSync(probed, "utf8")
          .replace(
            /<\/tbody><\/table><script type="text\/html" id="rest-rows">([^]*?)<\/script>/,
            "\n$1</tbody></table>"
          )
          .replace(/<\/div>\n<script type="text\/html" id="rest-shells">([^]*?)<\/script>/, "\n$1</div>")
      )
      const eagerLoad = loadTimes(eager, runs).load
      return [
        `A run of ${
          questions.toLocaleString("en-US")
        } questions (8 steps with 1.5 kB of tool output and 20 timed model calls each),`,
        "written through the SQLite store; each command run 3 times through the built CLI (`node dist/bin.js`), median wall time",
        "including Node's start (`vtree --help` alone, the floor, is given for comparison).",
        "",
        "| Command | Median wall time | Over `--help` |",
        "|---|---:|---:|",
        `| \`vtree --help\` | ${ms(help)} | — |`,
        `| \`vtree report\` (text) | ${ms(text)} | ${ms(text - help)} |`,
        `| \`vtree report --format json\` | ${ms(json)} | ${ms(json - help)} |`,
        `| \`vtree report --format html --out r.html\` (steps loaded) | ${ms(html)} | ${ms(html - help)} |`,
        `| \`vtree report --compare bench bench\` | ${ms(compare)} | ${ms(compare - help)} |`,
        "",
        `The html page is ${
          (size / 1e6).toFixed(1)
        } MB, one file. Opened in headless Chromium (\`chromium --headless --dump-dom\`,`,
        "3 times, the navigation timing read back from the page): DOMContentLoaded at",
        `${ms(dcl)}, load at ${ms(load)} (median) — target under 2,000 ms: ${load < 2_000 ? "met" : "missed"}` +
        ` (${(load / 2_000).toFixed(2)}× the target). Every trajectory body (each step's tool output, the bulk of a`,
        `run) travels in one gzipped JSON array, ${(packed / 1e6).toFixed(1)} MB of the page as base64 (${
          (unpacked / 1e6).toFixed(1)
        } MB unpacked), which the`,
        "browser unpacks (its own DecompressionStream) the first time a trajectory is opened. The first 100 question rows and",
        "trajectory shells are markup; the rest travel as inert text and are built right after the first paint (sorting,",
        `filtering or a link to a later question builds them at once). Built before the first paint instead, the page loads at ${
          ms(eagerLoad)
        }.`
      ].join("\n")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export default module
