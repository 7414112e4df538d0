import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import jpeg from "jpeg-js"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { unpackBodies } from "../../../src/programs/report/ReportHtml.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { dumpDom } from "../../support/harness/Chromium.js"
import { tempDir } from "../../support/harness/Cli.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

const temp = tempDir()
afterAll(() => temp.cleanup())

const trees = join(temp.dir, "trees")
writeTree(
  join(trees, "VID"),
  syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 2, framesPerEvent: 3, sceneSeconds: 4000 })
)
const data = Buffer.alloc(640 * 360 * 4, 180)
for (const name of ["L1_000_L2_000_L3_000", "L1_000_L2_000_L3_001", "L1_000_L2_000_L3_002", "L1_000_L2_001_L3_000"]) {
  writeFileSync(join(trees, "VID", "frames", `${name}.jpg`), jpeg.encode({ width: 640, height: 360, data }, 90).data)
}
const db = join(temp.dir, "vtree.db")

const step = (n: number, tool: string, args: Record<string, unknown>, output: string) => ({
  step: n,
  tool,
  args,
  output,
  thought: null,
  reflect: {},
  plan: {}
})

await Effect.runPromise(
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId: "r1", config: { treesDir: trees }, startedAt: 0 })
    yield* store.saveQuestion("r1", {
      prediction: {
        questionId: "q1",
        videoId: "VID",
        taskType: "Counting Problem",
        duration: "long",
        domain: null,
        question: "How many eggs?",
        options: ["A. 1", "B. 2"],
        answer: "B",
        prediction: "B",
        correct: true,
        evidence: null,
        reasoning: null,
        stepsUsed: 3,
        stopReason: "finished",
        error: null,
        promptTokens: 10,
        completionTokens: 5,
        startedAt: 0,
        finishedAt: 10_000
      },
      steps: [
        step(1, "view_node", { node_id: "VID_L1_000_L2_001" }, "[Node] VID_L1_000_L2_001 | Event | 2000-4000s"),
        // An event id stands for its frames (all three here, in order).
        step(
          2,
          "observe_frame",
          { node_ids: ["VID_L1_000_L2_000"], question: "eggs?" },
          "[Visual observation] two eggs"
        ),
        step(
          3,
          "observe_frame",
          { node_ids: ["VID_L1_000_L2_001_L3_000", "VID_L1_000_L2_001_L3_001"] },
          "one frame is gone"
        )
      ],
      calls: [{
        questionId: "q1",
        parentStep: 2,
        role: "vlm",
        model: "vl",
        startedAt: 1_000,
        durationMs: 2_000,
        promptTokens: 5,
        completionTokens: 2,
        status: "ok",
        errorReason: null
      }]
    })
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: db })))
)

describe("frames in the html report", () => {
  it("shows each observe_frame step's frames as thumbnails with node id and time, filled in when opened", async () => {
    const pages = join(temp.dir, "pages")
    mkdirSync(pages)
    const treePage = join(pages, "trees.html")
    writeFileSync(treePage, "<!DOCTYPE html><title>tree</title>")
    const file = join(pages, "report.html")
    const result = await runCli(
      ["report", "--db", db, "--format", "html", "--out", file, "--tree-page", treePage],
      {}
    )
    assert.strictEqual(result.code, 0, result.stderr)
    const page = readFileSync(file, "utf8")
    const body = unpackBodies(page)[0]!
    // Three frames of the event, each with its node id (a link into the tree page) and its time.
    const captions = [...body.matchAll(/<figcaption>(.*?)<\/figcaption>/g)].map((m) => m[1])
    assert.deepStrictEqual(captions.slice(0, 3), [
      `<a href="trees.html#VID_L1_000_L2_000_L3_000">VID_L1_000_L2_000_L3_000</a> · 5:33`,
      `<a href="trees.html#VID_L1_000_L2_000_L3_001">VID_L1_000_L2_000_L3_001</a> · 16:40`,
      `<a href="trees.html#VID_L1_000_L2_000_L3_002">VID_L1_000_L2_000_L3_002</a> · 27:46`
    ])
    // The second step: a frame file that is not an image says so, beside the good one.
    assert.match(body, /<div class="nofile">[^<]*L1_000_L2_001_L3_001\.jpg: not an image/)
    // Named relative to its tree's folder, never by the local path the report was made on (issue #39).
    assert.match(body, /<div class="nofile">frames\/L1_000_L2_001_L3_001\.jpg: not an image/)
    // Node ids in args and outputs link to the tree page; the timeline has its legend.
    assert.include(body, `[Node] <a href="trees.html#VID_L1_000_L2_001">VID_L1_000_L2_001</a> | Event`)
    assert.include(body, `vlm call</p>`)
    // Each thumbnail travels once, at most 320 px wide.
    const stored = [...page.matchAll(/<script type="text\/plain" id="frame-(\d+)">([^<]+)<\/script>/g)]
    assert.strictEqual(stored.length, 4)
    for (const [, , base64] of stored) assert.strictEqual(jpeg.decode(Buffer.from(base64!, "base64")).width, 320)

    const opened = dumpDom(`${file}#q0`, { settleMs: 5_000 })
    const images = [...opened.matchAll(/<img data-frame="\d+"[^>]*>/g)].map((m) => m[0])
    assert.strictEqual(images.length, 4)
    for (const img of images) assert.match(img, /src="data:image\/jpeg;base64,\/9j\//)
  }, 180_000)

  it("--frames link points into the trees folder; a missing --tree-page is one line", async () => {
    const file = join(temp.dir, "linked.html")
    const result = await runCli(["report", "--db", db, "--format", "html", "--out", file, "--frames", "link"], {})
    assert.strictEqual(result.code, 0, result.stderr)
    const page = readFileSync(file, "utf8")
    const body = unpackBodies(page)[0]!
    assert.include(body, `<img src="trees/VID/frames/L1_000_L2_000_L3_000.jpg"`)
    assert.notInclude(page, `id="frame-0"`)
    // No tree page: node ids stay text.
    assert.notInclude(body, `<a href="`)
    const missing = await runCli(
      ["report", "--db", db, "--format", "html", "--tree-page", join(temp.dir, "no.html")],
      {}
    )
    assert.strictEqual(missing.code, 1)
    assert.match(
      missing.stderr.trim(),
      /^vtree: --tree-page .*no\.html: not found — write it first with `vtree tree html/
    )
  }, 120_000)
})
