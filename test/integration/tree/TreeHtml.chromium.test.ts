import { assert, describe, it } from "@effect/vitest"
import jpeg from "jpeg-js"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { runCli } from "../../support/cli/InProcess.js"
import { countColor, dumpDom, screenshot } from "../../support/harness/Chromium.js"
import { tempDir } from "../../support/harness/Cli.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

type Json = Record<string, unknown>
const temp = tempDir()
afterAll(() => temp.cleanup())

// Frames are 640×360 solid colours; one frame, deep in the page, has a colour of its own.
const magenta = "#c8287a"
const green = "#20b040"
const solid = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number]
  const data = Buffer.alloc(640 * 360 * 4)
  for (let i = 0; i < data.length; i += 4) data.set([r, g, b, 255], i)
  return jpeg.encode({ width: 640, height: 360, data }, 90).data
}
const hostile = `<script>document.title="owned"</script><img src=x onerror=alert(1)> & "q"`
const target = "VID_L1_001_L2_002_L3_003"

const makeTrees = () => {
  const trees = join(temp.dir, "trees")
  const tree = syntheticTree({
    videoId: "VID",
    scenes: 2,
    eventsPerScene: 3,
    framesPerEvent: 4,
    sceneSeconds: 2400
  }) as {
    nodes: Record<string, Json>
  }
  tree.nodes["VID_L1_001_L2_002"]!["card"] = { event_description: "A zeppelin lands.", visible_text: ["GATE 4"] }
  tree.nodes["VID_L1_000"]!["subtitle"] = hostile
  tree.nodes["VID_L1_000_L2_000"]!["card"] = { event_description: hostile, [hostile]: "field name" }
  writeTree(join(trees, "VID"), tree)
  const other = syntheticTree({ videoId: "OTHER", scenes: 1, eventsPerScene: 1, framesPerEvent: 2 })
  writeTree(join(trees, "OTHER"), other)
  const pink = solid(magenta)
  for (const [id, node] of Object.entries(tree.nodes)) {
    if (node["level"] !== 3) continue
    writeFileSync(join(trees, "VID", "frames", `${id.slice(4)}.jpg`), id === target ? solid(green) : pink)
  }
  return trees
}
const trees = makeTrees()

describe("vtree tree html in headless Chromium", () => {
  it("writes one page with thumbnails at most 320 px wide, times as h:mm:ss, and hostile text as text", async () => {
    const file = join(temp.dir, "vid.html")
    const result = await runCli(["tree", "html", join(trees, "VID"), "--out", file], {})
    assert.strictEqual(result.code, 0, result.stderr)
    const page = readFileSync(file, "utf8")
    const thumbs = [...page.matchAll(/src="data:image\/jpeg;base64,([^"]+)"/g)].map((m) =>
      jpeg.decode(Buffer.from(m[1]!, "base64"))
    )
    assert.strictEqual(thumbs.length, 24)
    for (const thumb of thumbs) assert.deepStrictEqual([thumb.width, thumb.height], [320, 180])
    // Scene 2 starts at 40:00 and the video ends at 1:20:00.
    assert.include(page, `40:00–1:20:00`)
    assert.notInclude(page, "<script>document.title")
    assert.notInclude(page, "<img src=x")
    assert.include(page, "&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt;")

    const shot = screenshot(file, 1200, 1400, { settleMs: 5_000 })
    assert.isAbove(countColor(shot, magenta, 24), 20_000)
    // The green frame is far below the first screen...
    assert.strictEqual(countColor(shot, green, 24), 0)
    // ...and its anchor brings it into view: the page scrolls down to it.
    const anchored = dumpDom(`${file}#${target}`, { settleMs: 5_000 })
    const [at, y] = (/<body data-at="([^"]*)"/.exec(anchored)?.[1] ?? "").split(" ")
    assert.strictEqual(at, target)
    assert.isAbove(Number(y), 2_000)

    const dom = dumpDom(file)
    assert.strictEqual(dom.match(/<title>([^<]*)<\/title>/)?.[1], "vtree tree VID")
    for (const id of ["VID_L1_000", "VID_L1_001_L2_002", target]) assert.include(dom, `id="${id}"`)
    assert.include(dom, `href="#${target}"`)
  }, 180_000)

  it("searches cards and subtitles: ?q= keeps the matching nodes and their ancestors, hides the rest", async () => {
    const file = join(temp.dir, "search.html")
    assert.strictEqual((await runCli(["tree", "html", join(trees, "VID"), "--out", file], {})).code, 0)
    const dom = dumpDom(`${file}?q=zeppelin%20gate`)
    assert.include(dom, `<span id="q-count" class="muted">1 node matches</span>`)
    assert.match(dom, /<section class="node event hit" id="VID_L1_001_L2_002">/)
    assert.match(dom, /<section class="node scene" id="VID_L1_001">/)
    assert.match(dom, /<section class="node scene" id="VID_L1_000" hidden="">/)
    assert.match(dom, /<section class="node event" id="VID_L1_001_L2_001" hidden="">/)
    const none = dumpDom(`${file}?q=no-such-word`)
    assert.include(none, `0 nodes match`)
  }, 180_000)

  it("given a trees folder, writes an index of every tree; --frames link points at the frame files", async () => {
    mkdirSync(join(temp.dir, "pages"))
    const file = join(temp.dir, "pages", "trees.html")
    const result = await runCli(["tree", "html", trees, "--out", file, "--frames", "link"], {})
    assert.strictEqual(result.code, 0, result.stderr)
    const page = readFileSync(file, "utf8")
    assert.include(page, `<a href="#tree-OTHER">OTHER</a>`)
    assert.include(page, `<a href="#tree-VID">VID</a>`)
    assert.include(page, `src="../trees/VID/frames/L1_000_L2_000_L3_000.jpg"`)
    assert.notInclude(page, "data:image/jpeg")
    // The linked frames load from the trees folder: the page draws them.
    const single = join(temp.dir, "pages", "vid.html")
    assert.strictEqual(
      (await runCli(["tree", "html", join(trees, "VID"), "--out", single, "--frames", "link"], {})).code,
      0
    )
    const shot = screenshot(single, 1200, 1400, { settleMs: 5_000 })
    assert.isAbove(countColor(shot, magenta, 24), 10_000)
  }, 180_000)

  it("refuses to write the page over or inside the trees it reads, leaving them untouched", async () => {
    const before = readFileSync(join(trees, "VID", "tree.json"), "utf8")
    for (const out of [join(trees, "VID", "tree.json"), join(trees, "VID", "page.html"), join(trees, "x.html")]) {
      const result = await runCli(["tree", "html", trees, "--out", out], {})
      assert.strictEqual(result.code, 1)
      assert.match(result.stderr.trim(), /^vtree: --out .*(one of this command's inputs|lies inside)/)
      assert.strictEqual(result.stderr.trim().split("\n").length, 1)
    }
    assert.strictEqual(readFileSync(join(trees, "VID", "tree.json"), "utf8"), before)
    assert.isFalse(existsSync(join(trees, "VID", "page.html")))
  })
})
