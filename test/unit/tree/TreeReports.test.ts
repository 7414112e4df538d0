import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { listFrames, searchTree, showNode, showOutline, validateTree } from "../../../src/programs/tree/TreeReports.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

type TreeJson = { nodes: Record<string, Record<string, unknown>> }

const tempTree = (change: (tree: TreeJson) => void = () => {}, frames?: (id: string) => boolean) =>
  Effect.gen(function*() {
    // The folder is named after the videoID, as the loader requires.
    const dir = join(yield* scopedTempDir("cli"), "VID")
    const tree = syntheticTree({ videoId: "VID", scenes: 2, eventsPerScene: 3, framesPerEvent: 4 }) as TreeJson
    tree.nodes["VID_L1_001_L2_002"]!["card"] = {
      event_description: "A zeppelin lands.",
      entities: ["zeppelin", " crew ", "zeppelin"],
      visible_text: ["GATE 4"]
    }
    tree.nodes["VID_L1_001_L2_002"]!["subtitle"] = "Here it comes. Hold the ropes!"
    change(tree)
    writeTree(dir, tree, frames === undefined ? {} : { frames })
    return dir
  })

layer(NodeContext.layer)("vtree tree", (it) => {
  it.scoped("validate counts levels, time and frames found or missing", () =>
    Effect.gen(function*() {
      const dir = yield* tempTree(undefined, (id) => !id.endsWith("_L3_003"))
      const report = yield* validateTree(dir)
      assert.include(report, "nodes: 2 L1 scenes, 6 L2 events, 24 L3 frames (32 in all)")
      assert.include(report, "time: 0:00–10:00 (10:00)")
      assert.include(report, "frames: 18 found, 6 missing (frames/L1_000_L2_000_L3_003.jpg")
      assert.include(yield* validateTree(join(dir, "tree.json")), "video: VID · long · 10:00 · Synthetic")
    }))

  it.scoped("show prints node text, children and the entity appendix; --anchor numbers lines", () =>
    Effect.gen(function*() {
      const dir = yield* tempTree()
      const plain = yield* showNode(dir, "VID_L1_001_L2_002", false)
      assert.include(plain, "[Node] VID_L1_001_L2_002 | Event | 8:20–10:00\nevent_description: A zeppelin lands.")
      assert.include(plain, "[Children] 4\n  VID_L1_001_L2_002_L3_000 | ")
      assert.include(plain, "[Entities] zeppelin; crew\n[On-screen text] GATE 4")
      const anchored = yield* showNode(dir, "VID_L1_001_L2_002", true)
      assert.include(anchored, "[c1] event_description: A zeppelin lands.")
      assert.include(anchored, "[s1] Here it comes.\n[s2] Hold the ropes!")
    }))

  it.scoped("show counts one scene, event or frame in the singular", () =>
    Effect.gen(function*() {
      const dir = join(yield* scopedTempDir("cli"), "VID")
      writeTree(dir, syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }))
      const lines = (yield* showOutline(dir)).split("\n")
      assert.match(lines[0]!, / · 1 scene, 1 event, 1 frame$/)
      assert.match(lines[2]!, /^ {2}Event VID_L1_000_L2_000 \| .* \| 1 frame \| /)
    }))

  it.scoped("search lists hits with level, score and time; frames resolves an event to its frames", () =>
    Effect.gen(function*() {
      const dir = yield* tempTree()
      const results = (yield* searchTree(dir, "zeppelin", 2)).split("\n")
      assert.strictEqual(results[0], `[Search results] query "zeppelin" → 1 node`)
      assert.match(results[1]!, /^1\. VID_L1_001_L2_002 \| L2 score=\d+\.\d{3} \| 8:20–10:00$/)
      const frames = (yield* listFrames(dir, ["VID_L1_001_L2_002"])).split("\n")
      assert.strictEqual(frames.length, 4)
      assert.strictEqual(frames[0], `VID_L1_001_L2_002_L3_000 ${join(dir, "frames/L1_001_L2_002_L3_000.jpg")} exists`)
    }))

  it.scoped("validate fails naming node and field for a wrong level, a missing child and a non-numeric time", () =>
    Effect.gen(function*() {
      const cases: Array<[(tree: TreeJson) => void, string]> = [
        [(tree) => (tree.nodes["VID_L1_000"]!["level"] = 7), "nodes.VID_L1_000.level: expected 1, 2 or 3, found 7"],
        [
          (tree) => (tree.nodes["VID_L1_000"]!["children_ids"] as Array<string>).push("VID_L1_000_L2_042"),
          `nodes.VID_L1_000.children_ids[3]: child "VID_L1_000_L2_042" does not exist`
        ],
        [
          (tree) => (tree.nodes["VID_L1_001_L2_000"]!["time_range"] = ["a", 3]),
          "nodes.VID_L1_001_L2_000.time_range[0]: expected a finite number of seconds ≥ 0, found \"a\""
        ]
      ]
      for (const [change, expected] of cases) {
        const dir = yield* tempTree(change)
        const error = yield* Effect.flip(validateTree(dir))
        assert.strictEqual(error._tag, "TreeDecodeError")
        assert.strictEqual(error.message, `${join(dir, "tree.json")}: ${expected} — fix the file or re-run the builder`)
      }
    }))

  it.scoped("errors for an unknown or unusable node id name CLI commands, not the agent's tools", () =>
    Effect.gen(function*() {
      const dir = yield* tempTree()
      const unknown = yield* Effect.flip(showNode(dir, "nope", false))
      assert.strictEqual(
        unknown.message,
        `node "nope" does not exist in VID — its scenes are VID_L1_000, VID_L1_001; ` +
          `list ids with \`vtree tree show ${dir}\` (the outline) or \`vtree tree search ${dir} <words>\``
      )
      const frames = yield* Effect.flip(listFrames(dir, ["nope"]))
      const scene = yield* Effect.flip(listFrames(dir, ["VID_L1_000"]))
      for (const message of [unknown.message, frames.message, scene.message]) {
        assert.notInclude(message, "view_node")
        assert.notInclude(message, "search_similar")
        assert.include(message, "`vtree tree ")
      }
    }))

  it.scoped("show without a node id prints the outline: scenes and events with times, frames and a one-line summary", () =>
    Effect.gen(function*() {
      const dir = yield* tempTree((tree) => {
        // The second scene moved past the hour, with everything under it.
        for (const [id, node] of Object.entries(tree.nodes)) {
          const range = node["time_range"] as [number, number]
          if (id.startsWith("VID_L1_001")) node["time_range"] = [range[0] + 3422, range[1] + 3422]
        }
      })
      const lines = (yield* showOutline(dir)).split("\n")
      assert.strictEqual(lines[0], "VID · long · 10:00 · Synthetic · 2 scenes, 6 events, 24 frames")
      // 40 words of summary, cut to fit the line.
      assert.match(lines[1]!, /^Scene VID_L1_000 \| 0:00–5:00 \| \w+( \w+)* ?\w*…$/)
      assert.match(lines[2]!, /^ {2}Event VID_L1_000_L2_000 \| 0:00–1:40 \| 4 frames \| \w+/)
      assert.strictEqual(lines.filter((line) => line.startsWith("Scene ")).length, 2)
      assert.strictEqual(lines.filter((line) => line.startsWith("  Event ")).length, 6)
      assert.include(lines, "  Event VID_L1_001_L2_002 | 1:05:22–1:07:02 | 4 frames | A zeppelin lands.")
      assert.isTrue(lines.some((line) => line.startsWith("Scene VID_L1_001 | 1:02:02–1:07:02 | ")))
      // One line per node, whatever the summary's length.
      assert.strictEqual(lines.length, 1 + 2 + 6)
      for (const line of lines) assert.isAtMost(line.length, 160)
    }))

  it.scoped("the outline keeps hostile card text to one inert line", () =>
    Effect.gen(function*() {
      const dir = yield* tempTree((tree) => {
        tree.nodes["VID_L1_000"]!["card"] = { scene_summary: "evil\u001b]0;owned\u0007 scene\nSecond line\r\u001b[2J" }
      })
      const outline = yield* showOutline(dir)
      assert.notInclude(outline, "\u001b")
      assert.notInclude(outline, "\u0007")
      assert.notInclude(outline, "\r")
      assert.include(outline, "Scene VID_L1_000 | 0:00–5:00 | evil\\x1b]0;owned\\x07 scene Second line")
      assert.strictEqual(outline.split("\n").length, 9)
    }))
})
