import { assert, describe, it } from "@effect/vitest"
import type { TreeNode } from "../../../src/domain/TreeIndex.js"
import {
  anchoredText,
  cardLines,
  childInfo,
  entityAppendix,
  nodeText,
  splitSentences
} from "../../../src/programs/tree/NodeText.js"

const node = (level: 1 | 2 | 3, card: Record<string, unknown>, subtitle = ""): TreeNode => ({
  id: `V_L1_000${level > 1 ? "_L2_000" : ""}${level > 2 ? "_L3_000" : ""}`,
  level,
  timeRange: [10, 20],
  card,
  subtitle,
  childrenIds: [],
  parentId: null,
  framePath: null
})

describe("node text", () => {
  it("puts the summary field first, one `field: value` line per non-empty field, then the subtitle", () => {
    const event = node(2, {
      entities: ["chef", "pan"],
      event_description: "The chef flips a pancake.",
      actions: [],
      state_changes: ""
    }, "Watch this. Ready?")
    assert.deepStrictEqual(cardLines(event), ["event_description: The chef flips a pancake.", "entities: chef, pan"])
    assert.strictEqual(
      nodeText(event),
      "event_description: The chef flips a pancake.\nentities: chef, pan\nsubtitle: Watch this. Ready?"
    )
  })

  it("anchors card lines as [cN] and subtitle sentences as [sN], with the map of what each stands for", () => {
    const frame = node(
      3,
      { frame_summary: "A red sign.", visual_attributes: { color: "red", size: "" } },
      "First line. Second one!\n第三句。第四句？"
    )
    const anchored = anchoredText(frame)
    assert.strictEqual(
      anchored.text,
      "[c1] frame_summary: A red sign.\n[c2] visual_attributes: color: red\n[s1] First line.\n[s2] Second one!\n[s3] 第三句。\n[s4] 第四句？"
    )
    assert.strictEqual(anchored.anchors.get("c2"), "visual_attributes: color: red")
    assert.strictEqual(anchored.anchors.get("s3"), "第三句。")
    assert.strictEqual(anchored.anchors.size, 6)
  })

  it("splits sentences across scripts and line breaks", () => {
    assert.deepStrictEqual(splitSentences("Hi there. How are you?\nFine"), ["Hi there.", "How are you?", "Fine"])
    assert.deepStrictEqual(splitSentences(""), [])
  })

  it("summarizes a child by its level's summary field, else by the first 120 characters of its card", () => {
    assert.strictEqual(childInfo(node(1, { scene_summary: "  A market at dawn. " })).summary, "A market at dawn.")
    assert.strictEqual(childInfo(node(3, { frame_summary: "a dog" })).summary, "a dog")
    const long = "x".repeat(300)
    const fallback = childInfo(node(2, { event_description: "", spatial_relations: long })).summary
    assert.strictEqual(fallback, `spatial_relations: ${long}`.slice(0, 120))
    assert.deepStrictEqual(childInfo(node(2, {})).timeRange, [10, 20])
  })
})

describe("entity appendix", () => {
  it("takes each level's entity field plus visible_text, trimmed and de-duplicated in order", () => {
    assert.deepStrictEqual(
      entityAppendix(node(1, { key_entities: [" chef ", "pan", "chef", ""], visible_text: ["OPEN", " OPEN"] })),
      {
        entities: ["chef", "pan"],
        visibleText: ["OPEN"]
      }
    )
    assert.deepStrictEqual(
      entityAppendix(node(2, { entities: ["dog"], key_entities: ["not this level's field"] })).entities,
      ["dog"]
    )
    assert.deepStrictEqual(entityAppendix(node(3, { visible_entities: ["sign", "sign"], visible_text: ["EXIT"] })), {
      entities: ["sign"],
      visibleText: ["EXIT"]
    })
  })

  it("leaves empty fields empty so callers omit their line", () => {
    assert.deepStrictEqual(entityAppendix(node(1, { key_entities: [], visible_text: ["  ", ""] })), {
      entities: [],
      visibleText: []
    })
    assert.deepStrictEqual(entityAppendix(node(3, {})), { entities: [], visibleText: [] })
  })
})
