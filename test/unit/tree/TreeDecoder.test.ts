import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeTree, decodeTreeText } from "../../../src/programs/tree/TreeDecoder.js"
import { syntheticTree, toNestedForm } from "../../support/trees/SyntheticTree.js"

const file = "trees/VID/tree.json"
const small = () => syntheticTree({ videoId: "VID", scenes: 2, eventsPerScene: 2, framesPerEvent: 3 })

const errorOf = (json: unknown): string => {
  const result = decodeTree(file, json)
  if (Either.isRight(result)) return assert.fail("expected a decode error")
  assert.strictEqual(result.left._tag, "TreeDecodeError")
  assert.strictEqual(result.left.file, file)
  return result.left.message
}

const mutate = (change: (nodes: Record<string, any>) => void) => {
  const tree = small() as any
  change(tree.nodes)
  return tree
}

describe("decodeTree", () => {
  it("decodes the flat and the nested form of one tree to the same index", () => {
    const flat = small()
    const fromFlat = Either.getOrThrow(decodeTree(file, flat))
    const fromNested = Either.getOrThrow(decodeTree(file, toNestedForm(flat)))
    assert.deepStrictEqual(fromNested, fromFlat)
    assert.strictEqual(fromFlat.nodes.size, 2 + 4 + 12)
    assert.deepStrictEqual(fromFlat.rootIds, ["VID_L1_000", "VID_L1_001"])
    const frame = fromFlat.nodes.get("VID_L1_000_L2_000_L3_001")!
    assert.strictEqual(frame.parentId, "VID_L1_000_L2_000")
    assert.strictEqual(frame.timeRange[0], frame.timeRange[1])
  })

  it("keeps unknown card fields and defaults missing list fields to []", () => {
    const tree = mutate((nodes) => {
      nodes.VID_L1_000.card = { scene_summary: "a kitchen", mood: "calm", camera: { angle: "wide" } }
      nodes.VID_L1_000_L2_000_L3_000.card = { frame_summary: "a cup", visible_text: null }
    })
    const index = Either.getOrThrow(decodeTree(file, tree))
    const scene = index.nodes.get("VID_L1_000")!.card
    assert.strictEqual(scene["mood"], "calm")
    assert.deepStrictEqual(scene["camera"], { angle: "wide" })
    assert.deepStrictEqual(scene["key_entities"], [])
    assert.deepStrictEqual(scene["visible_text"], [])
    assert.deepStrictEqual(index.nodes.get("VID_L1_000_L2_000_L3_000")!.card["visible_entities"], [])
    assert.deepStrictEqual(index.nodes.get("VID_L1_000_L2_000_L3_000")!.card["visible_text"], [])
  })

  it("accepts a list in a text field and a lone string in a list field, normalized", () => {
    const tree = mutate((nodes) => {
      nodes.VID_L1_000_L2_000.card = { event_description: "pouring", spatial_relations: ["cup left of pot", "pot on stove"] }
      nodes.VID_L1_000_L2_000_L3_000.card = { frame_summary: "a cup", visible_entities: "cup", visible_text: "" }
    })
    const index = Either.getOrThrow(decodeTree(file, tree))
    assert.strictEqual(index.nodes.get("VID_L1_000_L2_000")!.card["spatial_relations"], "cup left of pot; pot on stove")
    const frame = index.nodes.get("VID_L1_000_L2_000_L3_000")!.card
    assert.deepStrictEqual(frame["visible_entities"], ["cup"])
    assert.deepStrictEqual(frame["visible_text"], [])
  })

  it("still rejects a number where card text is expected, naming node and field", () => {
    const message = errorOf(mutate((nodes) => {
      nodes.VID_L1_000.card = { scene_summary: 42 }
    }))
    assert.include(message, "VID_L1_000")
    assert.include(message, "scene_summary")
  })

  it("names the node and field of a wrong level", () => {
    const message = errorOf(mutate((nodes) => (nodes.VID_L1_001.level = 4)))
    assert.strictEqual(message, `${file}: nodes.VID_L1_001.level: expected 1, 2 or 3, found 4 — fix the file or re-run the builder`)
  })

  it("names the node and field of a child id that does not exist", () => {
    const message = errorOf(mutate((nodes) => nodes.VID_L1_000.children_ids.push("VID_L1_000_L2_009")))
    assert.include(message, "nodes.VID_L1_000.children_ids[2]")
    assert.include(message, `"VID_L1_000_L2_009" does not exist`)
  })

  it("names the node and field of a non-numeric time_range", () => {
    const message = errorOf(mutate((nodes) => (nodes.VID_L1_000_L2_001.time_range = [0, "end"])))
    assert.include(message, "nodes.VID_L1_000_L2_001.time_range[1]: expected a number of seconds")
  })

  it("rejects a time_range whose start is after its end", () => {
    assert.include(errorOf(mutate((nodes) => (nodes.VID_L1_000.time_range = [300, 10]))), "nodes.VID_L1_000.time_range: start 300 is after end 10")
  })

  it("rejects a child that is not exactly one level down", () => {
    const message = errorOf(mutate((nodes) => nodes.VID_L1_000.children_ids.push("VID_L1_001_L2_000_L3_000")))
    assert.include(message, "nodes.VID_L1_000.children_ids[2]")
    assert.include(message, "is level 3, expected 2")
  })

  it("rejects a parentless node below level 1 and a node listed under two parents", () => {
    assert.include(
      errorOf(mutate((nodes) => nodes.VID_L1_000.children_ids.pop())),
      "nodes.VID_L1_000_L2_001.level: a level 2 node must be listed as a child of a level 1 node"
    )
    assert.include(
      errorOf(mutate((nodes) => nodes.VID_L1_001.children_ids.push("VID_L1_000_L2_000"))),
      `is also listed under "VID_L1_000"`
    )
  })

  it("names the JSON path inside the nested form, and rejects duplicate ids there", () => {
    const nested = toNestedForm(small()) as any
    nested.roots[1].children[0].children[2].card.visible_entities = 42
    assert.include(errorOf(nested), "roots[1].children[0].children[2].card.visible_entities")
    const duplicated = toNestedForm(small()) as any
    duplicated.roots[1].children[1].id = duplicated.roots[1].children[0].id
    assert.include(errorOf(duplicated), `roots[1].children[1].id: "VID_L1_001_L2_000" is already used by roots[1].children[0]`)
  })

  it("rejects a nested node at the wrong depth or below frames", () => {
    const misplaced = toNestedForm(small()) as any
    misplaced.roots[0].children[1].level = 3
    assert.include(errorOf(misplaced), "roots[0].children[1].level: expected 2 at this depth, found 3")
    const tooDeep = toNestedForm(small()) as any
    tooDeep.roots[0].children[0].children[0].children = [{ id: "VID_X", timestamp: 1, card: {} }]
    assert.include(errorOf(tooDeep), "roots[0].children[0].children[0].children[0]: nodes nest at most three levels deep")
  })

  it("requires a time for every node: an L3 node may give a timestamp instead", () => {
    const nested = toNestedForm(small()) as any
    delete nested.roots[0].children[0].children[0].timestamp
    assert.include(errorOf(nested), "roots[0].children[0].children[0].time_range: missing (an L3 node needs time_range or timestamp)")
    assert.include(errorOf(mutate((nodes) => delete nodes.VID_L1_000.time_range)), "nodes.VID_L1_000.time_range: missing")
  })

  it("reports text that is not JSON", () => {
    const result = decodeTreeText(file, "{ not json")
    assert.isTrue(Either.isLeft(result))
    assert.include(Either.isLeft(result) ? result.left.message : "", `${file}: not valid JSON`)
  })
})
