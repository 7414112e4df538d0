// The tree-level fields an import writes: the entity registry (shown beside the nodes it concerns) and
// `has_frames: false` (decoded into the index, so observe_frame and validate can tell).
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { TreeNode } from "../../../../src/domain/TreeIndex.js"
import { entityAppendix, entityLine } from "../../../../src/programs/tree/NodeText.js"
import { decodeTree } from "../../../../src/programs/tree/TreeDecoder.js"

const registry = [
  { id: "person_1", name: "Anna", appearance: "red coat", identity: "the host", first_seen: 2 },
  { id: "dog_1", name: "Rex", first_seen: 50 },
  { id: "cat_1" }
]
const node = (card: Record<string, unknown>, timeRange: readonly [number, number]): TreeNode => ({
  id: "v_L1_000_L2_000",
  level: 2,
  timeRange,
  card,
  subtitle: "",
  childrenIds: [],
  parentId: null,
  framePath: null
})

describe("entity registry", () => {
  it("adds the entries a node names or first sees to its entities, after the card's own", () => {
    const appendix = entityAppendix(
      node({ event_description: "anna feeds the CAT_1", entities: ["bowl"] }, [30, 40]),
      registry
    )
    assert.deepStrictEqual(appendix.entities, ["bowl", "Anna (person_1): red coat; the host", "cat_1"])
    const seen = entityAppendix(node({ event_description: "a yard" }, [45, 60]), registry)
    assert.deepStrictEqual(seen.entities, ["Rex (dog_1)"])
  })

  it("matches a name as a whole word, not inside another word", () => {
    const tom = [{ id: "p_2", name: "Tom" }, { id: "p_3", name: "李雷" }]
    const inside = entityAppendix(node({ event_description: "tomatoes on a p_22 tray" }, [0, 1]), tom)
    assert.deepStrictEqual(inside.entities, [])
    const whole = entityAppendix(node({ event_description: "Tom's knife, then 李雷在切菜" }, [0, 1]), tom)
    assert.deepStrictEqual(whole.entities, ["Tom (p_2)", "李雷 (p_3)"])
  })

  it("writes an entry without a name as its id", () => {
    assert.strictEqual(entityLine({ id: "x", identity: "a stranger" }), "x: a stranger")
  })

  it("decodes entities and has_frames from tree.json into the index", () => {
    const tree = {
      videoID: "v",
      has_frames: false,
      entities: [{ id: "p", name: "P", first_seen: 1 }],
      nodes: { v_L1_000: { level: 1, time_range: [0, 10], card: { scene_summary: "s" }, children_ids: [] } }
    }
    const decoded = Either.getOrThrowWith(decodeTree("tree.json", tree), (error) => new Error(error.message))
    assert.strictEqual(decoded.hasFrames, false)
    assert.deepStrictEqual(decoded.entities, [{ id: "p", name: "P", first_seen: 1 }])
  })

  it("refuses a registry entry without an id, naming the path", () => {
    const index = decodeTree("tree.json", {
      videoID: "v",
      entities: [{ name: "P" }],
      nodes: { v_L1_000: { level: 1, time_range: [0, 10], card: {}, children_ids: [] } }
    })
    const error = Either.getLeft(index)
    assert.isTrue(error._tag === "Some")
    assert.match(error._tag === "Some" ? error.value.message : "", /^tree\.json: entities\[0\]\.id/)
  })
})
