// `vtree tree import --from longvidsearch` in-process: a video-caption.parquet written by a Parquet writer
// becomes one tree per video, offline, each clip an L3 node whose id ends with its clip index; tree
// validate accepts them; a corrupt file is refused in one line.
import { afterEach, assert, describe, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { captionParquet } from "../../support/benchmarks/LongVidSearchFiles.js"
import { runCli } from "../../support/cli/InProcess.js"
import { tempDir } from "../../support/harness/Cli.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
const folder = () => {
  const temp = tempDir()
  cleanups.push(temp.cleanup)
  return temp.dir
}

const clips = Array.from({ length: 5 }, (_, i) => ({
  vid: "-7wwfGJXEZg",
  slice_num: 5 - i,
  cap: `Clip ${5 - i}: soldiers march past gate ${5 - i}.`
}))

describe("vtree tree import --from longvidsearch", () => {
  it("imports video-caption.parquet offline: a tree per video, L3 ids ending with the clip index, valid", async () => {
    const dir = folder()
    const input = join(dir, "video-caption.parquet")
    writeFileSync(input, captionParquet([...clips, { vid: "0PBgtlsO9c4", slice_num: 1, cap: "A chef chops onions." }]))
    const trees = join(dir, "trees")
    for (const from of [["--from", "longvidsearch"], []]) {
      const result = await runCli(["tree", "import", input, "--out", trees, ...from], {})
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stdout, "imported 2 trees (6 captions)")
    }
    const tree = JSON.parse(readFileSync(join(trees, "-7wwfGJXEZg", "tree.json"), "utf8")) as {
      build: { source: { format: string; file: string } }
      nodes: Record<string, { level: number; time_range: [number, number]; card: Record<string, unknown> }>
    }
    assert.deepStrictEqual(tree.build.source, {
      ...tree.build.source,
      format: "longvidsearch",
      file: "video-caption.parquet"
    })
    const leaves = Object.entries(tree.nodes).filter(([, node]) => node.level === 3)
    assert.deepStrictEqual(
      leaves.map(([id, node]) => [id.replace(/^.*_L3_/, ""), node.time_range]),
      [["001", [0, 30]], ["002", [30, 60]], ["003", [60, 90]], ["004", [90, 120]], ["005", [120, 150]]]
    )
    assert.include(JSON.stringify(tree.nodes[leaves[2]![0]]!.card), "Clip 3: soldiers march past gate 3.")
    for (const video of ["-7wwfGJXEZg", "0PBgtlsO9c4"]) {
      const validated = await runCli(["tree", "validate", join(trees, video)], {})
      assert.strictEqual(validated.code, 0, validated.stdout + validated.stderr)
    }
  })

  it("refuses a corrupt parquet in one line, writing nothing", async () => {
    const dir = folder()
    const input = join(dir, "video-caption.parquet")
    const bytes = captionParquet(clips)
    bytes.fill(9, 4, bytes.length - 8)
    writeFileSync(input, bytes)
    const result = await runCli(["tree", "import", input, "--out", join(dir, "trees"), "--from", "longvidsearch"], {})
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr.trim(), /^vtree: .*video-caption\.parquet: not a Parquet file vtree can read \(.*\) — /)
    assert.strictEqual(result.stderr.trim().split("\n").length, 1)
  })
})
