import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { BuiltTree } from "../../../src/domain/Tree.js"
import { assembleTree, treeJsonBytes } from "../../../src/programs/builder/TreeAssembly.js"

const treeJsonText = (tree: BuiltTree) => Buffer.from(treeJsonBytes(tree)).toString("utf8")

const assembled = (eventEnd: number) =>
  assembleTree({
    videoId: "v",
    durationSeconds: 12.3456,
    domain: "Cooking",
    frameInterval: 2,
    cues: [{ start: 0, end: 1, text: "hello" }],
    build: { vtree_version: "0.0.0", models: { vlm: "m" } },
    scenes: [{
      start: 0,
      end: 12,
      card: { scene_summary: "a kitchen" },
      events: [{
        start: 0,
        end: eventEnd,
        card: { event_description: "eggs" },
        frames: [{ time: 0, card: { frame_summary: "an egg" }, source: "/cache/frame_000001.jpg" }]
      }]
    }]
  })

describe("tree.json through the Schema it is read with (issue #22)", () => {
  it("writes the same text as the plain object, keys in the flat form's order", () => {
    const { frameFiles, tree } = assembled(12)
    const text = treeJsonText(tree)
    assert.strictEqual(text, `${JSON.stringify(tree, null, 1)}\n`)
    const json = JSON.parse(text)
    assert.deepStrictEqual(Object.keys(json), [
      "videoID",
      "duration_category",
      "duration_seconds",
      "domain",
      "build",
      "nodes"
    ])
    assert.deepStrictEqual(Object.keys(json.nodes["v_L1_000_L2_000"]), [
      "level",
      "time_range",
      "card",
      "subtitle",
      "children_ids"
    ])
    assert.deepStrictEqual(frameFiles, [{
      target: "frames/L1_000_L2_000_L3_000.jpg",
      source: "/cache/frame_000001.jpg"
    }])
    assert.strictEqual(json.duration_seconds, 12.346)
  })

  it("refuses to write what the reader would refuse", () => {
    assert.throws(() => treeJsonText(assembled(-1).tree), /expected a finite number of seconds ≥ 0, found -1/)
  })

  it("writes, node by node, the bytes of the Schema-encoded tree: non-ASCII text, a registry, no nodes", () => {
    const { tree } = assembled(12)
    const wide: BuiltTree = {
      ...tree,
      entities: [{ id: "p1", name: "Ана", first_seen: 3 }],
      has_frames: false,
      nodes: Object.fromEntries(
        Object.entries(tree.nodes).map(([id, node]) => [id, { ...node, subtitle: `— ${id} 字幕 \u2028 "q" \\ 😀` }])
      )
    }
    const many: BuiltTree = {
      ...tree,
      nodes: Object.fromEntries(
        Array.from({ length: 70 }, (_, i) => [`v_${i}`, {
          level: 3 as const,
          time_range: [i, i + 1] as const,
          card: { frame_summary: `кадр ${i}`, visible_entities: ["a", "b"] },
          children_ids: []
        }])
      )
    }
    for (const value of [tree, wide, many, { ...tree, nodes: {} }]) {
      assert.strictEqual(treeJsonText(value), `${JSON.stringify(Schema.encodeSync(BuiltTree)(value), null, 1)}\n`)
    }
  })
})
