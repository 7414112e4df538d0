import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import {
  decodeRegistryReply,
  mergeRegistry,
  nameKey,
  type RegistryNode,
  registryParts,
  registryText
} from "../../../src/programs/builder/EntityRegistry.js"

const node = (id: string, level: 1 | 2, start: number, end: number, scene: string, card = {}): RegistryNode => ({
  id,
  level,
  start,
  end,
  card,
  scene
})

const nodes: ReadonlyArray<RegistryNode> = [
  node("v_L1_000", 1, 0, 40, "v_L1_000", { scene_summary: "A kitchen.", key_entities: ["Tom"] }),
  node("v_L1_000_L2_000", 2, 0, 20, "v_L1_000", { event_description: "Tom cooks.", entities: ["Tom", "a pan"] }),
  node("v_L1_000_L2_001", 2, 20, 40, "v_L1_000", { event_description: "A guest.", entities: ["Tim"] }),
  node("v_L1_001", 1, 3700, 3760, "v_L1_001", { scene_summary: "Later." }),
  node("v_L1_001_L2_000", 2, 3700, 3760, "v_L1_001", { event_description: "Tom again.", entities: ["the cook"] })
]
const known = new Set(nodes.map((n) => n.id))

describe("EntityRegistry", () => {
  it("cuts the cards into hours by where each scene starts, and heads each card with its node id", () => {
    const parts = registryParts(nodes)
    assert.deepStrictEqual(parts.map((part) => part.map((n) => n.id)), [
      ["v_L1_000", "v_L1_000_L2_000", "v_L1_000_L2_001"],
      ["v_L1_001", "v_L1_001_L2_000"]
    ])
    const text = registryText(parts[0]!, 0, 2)
    assert.match(text, /^Part 1 of 2: 0\.0 s – 40\.0 s, 1 scenes, 2 events$/m)
    assert.match(text, /^Event v_L1_000_L2_000 \(0\.0 s – 20\.0 s\): Tom cooks\.\n {2}entities: Tom; a pan$/m)
  })

  it("reads a bare list, a fenced object or DVD's id map; ids without the video's prefix are kept", () => {
    const bare = decodeRegistryReply(`[{"name": "Tom", "nodes": ["L1_000_L2_000"]}]`, known, "v")
    assert.deepStrictEqual(Either.getOrThrow(bare).map((e) => e.nodes), [["v_L1_000_L2_000"]])
    const fenced = decodeRegistryReply(
      "Here it is:\n```json\n{\"entities\": [{\"name\": \"Tom\", \"alias\": \"the cook\", \"nodes\": \"v_L1_000\",},]}\n```",
      known,
      "v"
    )
    assert.deepStrictEqual(Either.getOrThrow(fenced), [{
      name: "Tom",
      aliases: ["the cook"],
      description: "",
      nodes: ["v_L1_000"]
    }])
    const dvd = decodeRegistryReply(`{"subject_registry": {"Tim": {"nodes": ["v_L1_000_L2_001"]}}}`, known, "v")
    assert.deepStrictEqual(Either.getOrThrow(dvd).map((e) => e.name), ["Tim"])
  })

  it("asks again when the reply holds no list, and drops entries without a name or a known node", () => {
    assert.isTrue(Either.isLeft(decodeRegistryReply("I could not find any entities.", known, "v")))
    assert.isTrue(Either.isLeft(decodeRegistryReply(`{"people": 3}`, known, "v")))
    const kept = decodeRegistryReply(
      `{"entities": [{"name": "", "nodes": ["v_L1_000"]}, {"name": "X", "nodes": ["v_L9_000"]}, "Tom", {"name": "Tim", "nodes": ["v_L1_000_L2_001"]}]}`,
      known,
      "v"
    )
    assert.deepStrictEqual(Either.getOrThrow(kept).map((e) => e.name), ["Tim"])
  })

  it("merges across hours on a name or a name written as an alias, never on two aliases alone", () => {
    const first = [
      { name: "Tom", aliases: ["the man"], description: "The cook.", nodes: ["v_L1_000_L2_000"] },
      { name: "Tim", aliases: ["the man"], description: "", nodes: ["v_L1_000_L2_001"] }
    ]
    const second = [{ name: "The cook", aliases: ["tom"], description: "Cooks.", nodes: ["v_L1_001_L2_000"] }]
    const merged = mergeRegistry([first, second], nodes)
    assert.deepStrictEqual(merged.map((e) => [e.id, e.name, e.first_seen]), [
      ["entity_1", "Tom", 0],
      ["entity_2", "Tim", 20]
    ])
    assert.deepStrictEqual(merged[0]!.nodes, ["v_L1_000", "v_L1_000_L2_000", "v_L1_001", "v_L1_001_L2_000"])
    assert.deepStrictEqual(merged[0]!.aliases, ["the man", "The cook"])
    assert.strictEqual(merged[0]!.description, "The cook. Cooks.")
    assert.strictEqual(nameKey("  The  Cook! "), "cook")
  })
})
