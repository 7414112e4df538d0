// The large html report: a 2,700-question run whose agent looked at frames (two observe_frame steps per
// question, three frames each, every video's frames its own JPEGs in a temp trees folder), written through
// the SQLite store and rendered by the built CLI as `report --format html`, with the frames embedded as
// thumbnails and as links. Measures the page's size and how fast headless Chromium opens it. Needs the
// built dist/ (`npm run bench` builds it) and Debian's chromium.
import { Effect } from "effect"
import jpeg from "jpeg-js"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqliteRunStore from "../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../src/services/RunStore.js"
import { seededRandom, syntheticTree, writeTree } from "../test/support/trees/SyntheticTree.js"
import { loadTimes, ms, probedCopy, timeCli } from "./reportPage.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const videos = 900
const perVideo = 3
const questions = videos * perVideo

// A 640×360 frame with texture (gradients, blocks and grain from a seeded generator), so its thumbnail
// weighs what a real frame's does rather than a flat colour's few hundred bytes.
const frame = (seed: number): Uint8Array => {
  const random = seededRandom(seed)
  const width = 640
  const height = 360
  const data = Buffer.alloc(width * height * 4)
  const blocks = Array.from({ length: 12 }, () => ({
    x: random() * width,
    y: random() * height,
    r: 30 + random() * 90,
    c: [random() * 255, random() * 255, random() * 255]
  }))
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4
      const block = blocks.find((b) => Math.abs(x - b.x) < b.r && Math.abs(y - b.y) < b.r * 0.6)
      const grain = (random() - 0.5) * 24
      const base = block?.c ?? [x * 0.3, y * 0.5, 120]
      data[i] = Math.max(0, Math.min(255, base[0]! + grain))
      data[i + 1] = Math.max(0, Math.min(255, base[1]! + grain))
      data[i + 2] = Math.max(0, Math.min(255, base[2]! + grain))
      data[i + 3] = 255
    }
  }
  return jpeg.encode({ width, height, data }, 80).data
}

const writeTrees = (trees: string) => {
  // Twelve textured frames made once, copied under each tree's names: thumbnails are made per file, so
  // 5,400 files cost what 5,400 different frames would, without drawing 5,400 frames pixel by pixel.
  const distinct = Array.from({ length: 12 }, (_, i) => frame(i + 1))
  for (let v = 0; v < videos; v++) {
    const videoId = `video${v}`
    writeTree(
      join(trees, videoId),
      syntheticTree({ videoId, scenes: 1, eventsPerScene: 2, framesPerEvent: 3, sceneSeconds: 1800, seed: v + 1 })
    )
    for (let e = 0; e < 2; e++) {
      for (let f = 0; f < 3; f++) {
        mkdirSync(join(trees, videoId, "frames"), { recursive: true })
        writeFileSync(
          join(trees, videoId, "frames", `L1_000_L2_00${e}_L3_00${f}.jpg`),
          distinct[(v * 6 + e * 3 + f) % distinct.length]!
        )
      }
    }
  }
}

const step = (n: number, tool: string, args: Record<string, unknown>, output: string) => ({
  step: n,
  tool,
  args,
  output,
  thought: "look closer",
  reflect: {},
  plan: {}
})

const fill = (file: string, trees: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId: "bench", config: { treesDir: trees, protocol: "tools" }, startedAt: 0 })
    for (let i = 0; i < questions; i++) {
      const video = `video${Math.floor(i / perVideo)}`
      const start = i * 60_000
      yield* store.saveQuestion("bench", {
        prediction: {
          questionId: `${String(Math.floor(i / perVideo)).padStart(3, "0")}-${i % perVideo + 1}`,
          videoId: video,
          taskType: "Counting Problem",
          duration: (["short", "medium", "long"] as const)[i % 3]!,
          domain: null,
          question: `Question ${i}: how many people stand by the red car?`,
          options: ["A. One", "B. Two", "C. Three", "D. Four"],
          answer: "B",
          prediction: i % 3 === 0 ? "C" : "B",
          correct: i % 3 !== 0,
          evidence: "two people",
          reasoning: "counted them in the frames",
          stepsUsed: 4,
          stopReason: "finished",
          error: null,
          promptTokens: 40_000,
          completionTokens: 2_000,
          startedAt: start,
          finishedAt: start + 30_000
        },
        steps: [
          step(1, "view_node", { node_id: `${video}_L1_000` }, `[Node] ${video}_L1_000 | Scene | 0-1800s`),
          // An event id stands for its three frames.
          step(2, "observe_frame", { node_ids: [`${video}_L1_000_L2_000`], question: "people?" }, "two people"),
          step(3, "observe_frame", { node_ids: [`${video}_L1_000_L2_001`], question: "car?" }, "a red car"),
          step(4, "submit_answer", { answer: "B" }, "B")
        ],
        calls: Array.from({ length: 4 }, (_, c) => ({
          questionId: `${String(Math.floor(i / perVideo)).padStart(3, "0")}-${i % perVideo + 1}`,
          parentStep: c + 1,
          role: c === 1 || c === 2 ? "vlm" as const : "agent" as const,
          model: c === 1 || c === 2 ? "vl" : "reasoner",
          startedAt: start + c * 5_000,
          durationMs: 4_000,
          promptTokens: 10_000,
          completionTokens: 500,
          status: "ok" as const,
          errorReason: null
        }))
      })
    }
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

const module: BenchModule = {
  title: "Large html report",
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), "vtree-bench-large-report-"))
    try {
      const trees = join(dir, "trees")
      writeTrees(trees)
      const db = join(dir, "vtree.db")
      await Effect.runPromise(fill(db, trees))
      const runs = 3
      const render = (mode: "embed" | "link", out: string) =>
        median(Array.from(
          { length: runs },
          () => timeCli(["report", "--run-id", "bench", "--format", "html", "--frames", mode, "--out", out], dir)
        ))
      const embedTime = render("embed", "embed.html")
      const linkTime = render("link", "link.html")
      const embedPage = join(dir, "embed.html")
      const linkPage = join(dir, "link.html")
      const embedText = readFileSync(embedPage, "utf8")
      const stored = [...embedText.matchAll(/<script type="text\/plain" id="frame-\d+">([^<]*)<\/script>/g)]
      const thumbnailBytes = stored.reduce((sum, m) => sum + m[1]!.length, 0)
      const embed = loadTimes(probedCopy(embedPage), runs)
      const link = loadTimes(probedCopy(linkPage), runs)
      const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
      const frameFiles = videos * 6
      return [
        `A run of ${
          questions.toLocaleString("en-US")
        } questions over ${videos} trees, written through the SQLite store: each`,
        "question has two observe_frame steps of three frames each (an event id standing for its frames), and every",
        `tree has its own six 640×360 JPEG frames (${frameFiles.toLocaleString("en-US")} files in a temp trees folder,`,
        "textured so a thumbnail weighs about what a real frame's does). `vtree report --format html` run 3 times",
        "through the built CLI, medians; the page opened 3 times in headless Chromium (`chromium --headless",
        "--dump-dom`), the navigation timing read back from the page.",
        "",
        "| `--frames` | Render (wall, incl. Node start) | Page size | DOMContentLoaded | load |",
        "|---|---:|---:|---:|---:|",
        `| \`embed\` (thumbnails in the page) | ${ms(embedTime)} | ${mb(statSync(embedPage).size)} | ${
          ms(embed.dcl)
        } | ${ms(embed.load)} |`,
        `| \`link\` (links into the trees folder) | ${ms(linkTime)} | ${mb(statSync(linkPage).size)} | ${
          ms(link.dcl)
        } | ${ms(link.load)} |`,
        "",
        `With \`embed\`, the ${
          stored.length.toLocaleString("en-US")
        } thumbnails (at most 320 px wide, each frame file once`,
        `however many steps sent it) are ${mb(thumbnailBytes)} of base64 in the page. They travel as inert text`,
        "(`<script type=\"text/plain\">`), not as images: the browser neither decodes nor lays them out when the page",
        "opens; a trajectory's images are made from that text the first time the trajectory is opened. With `link`,",
        "the images are `loading=\"lazy\"` links the browser fetches as they scroll into view."
      ].join("\n")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export default module
