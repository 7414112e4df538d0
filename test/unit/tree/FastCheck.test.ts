import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { cardSchemaByLevel, FlatNode, NestedNode } from "../../../src/domain/Tree.js"
import { isPlainCard, isPlainFlatNode, isPlainNestedNode } from "../../../src/programs/tree/FastCheck.js"

// Values that sit on the edges of what the schemas accept: wrong types, nulls, NaN, arrays for objects.
const anything = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.constantFrom(0, 1, 2, 3, 4, -1, 1.5, Number.NaN),
  fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.integer()), { maxLength: 3 }),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 }),
  fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })),
  fc.tuple(fc.integer(), fc.string()),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.string({ maxLength: 2 }), { maxKeys: 2 })
)
const fieldsOf = (names: ReadonlyArray<string>) =>
  fc.record(Object.fromEntries(names.map((name) => [name, anything])), { requiredKeys: [] })

const cardFields = [
  "scene_summary", "key_entities", "main_actions", "visible_text", "event_description", "entities",
  "frame_summary", "visible_entities", "visual_attributes", "spatial_layout", "extra"
]
const nodeFields = ["level", "time_range", "timestamp", "subtitle", "frame_path", "id", "children_ids", "children"]

const accepts = (schema: Schema.Schema<any, any>, value: unknown) => Either.isRight(Schema.decodeUnknownEither(schema)(value))

describe("the plain fast path accepts nothing the schemas reject", () => {
  it("cards of every level", () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.constantFrom(1 as const, 2 as const, 3 as const), fieldsOf(cardFields), (level, card) => {
        if (!isPlainCard(level, card)) return
        accepted += 1
        assert.isTrue(accepts(cardSchemaByLevel[level], card), JSON.stringify(card))
      }),
      { numRuns: 3000 }
    )
    assert.isAbove(accepted, 50)
  })

  it("flat and nested node envelopes", () => {
    // Each field is plausible half the time, so many nodes pass the fast path and the check bites.
    const plausible: Record<string, fc.Arbitrary<unknown>> = {
      level: fc.constantFrom(1, 2, 3),
      time_range: fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })),
      timestamp: fc.integer({ min: 0, max: 9 }),
      subtitle: fc.string({ maxLength: 3 }),
      frame_path: fc.string({ maxLength: 3 }),
      id: fc.string({ maxLength: 3 }),
      children_ids: fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
      children: fc.array(anything, { maxLength: 2 })
    }
    const node = fc.tuple(
      fc.record(Object.fromEntries(nodeFields.map((name) => [name, fc.oneof(plausible[name]!, anything)])), { requiredKeys: [] }),
      fc.oneof(fc.constant(undefined), fc.constant(null), anything, fieldsOf(["frame_summary"]))
    ).map(([fields, card]) => (card === undefined ? fields : { ...fields, card }))
    let accepted = 0
    fc.assert(
      fc.property(node, (value) => {
        if (isPlainFlatNode(value)) {
          accepted += 1
          assert.isTrue(accepts(FlatNode, value), JSON.stringify(value))
        }
        if (isPlainNestedNode(value)) {
          accepted += 1
          assert.isTrue(accepts(NestedNode, value), JSON.stringify(value))
        }
      }),
      { numRuns: 5000 }
    )
    assert.isAbove(accepted, 50)
  })

  it("accepts the common shape, so large trees take the fast path", () => {
    const node = { level: 2, time_range: [0, 5], card: { event_description: "x", entities: ["a"], mood: 3 }, subtitle: "s", children_ids: ["c"] }
    assert.isTrue(isPlainFlatNode(node))
    assert.isTrue(isPlainCard(2, node.card))
    assert.isFalse(isPlainFlatNode({ ...node, time_range: [5, 0] }))
    assert.isFalse(isPlainCard(2, { entities: [1] }))
  })
})
