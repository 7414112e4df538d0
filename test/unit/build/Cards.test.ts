import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { cardFieldsByLevel, listFieldsByLevel, textFieldsByLevel } from "../../../src/domain/Tree.js"
import {
  completeCard,
  cueLines,
  decodeEventReply,
  decodeSceneReply,
  degradedEventCards,
  degradedSceneCard,
  eventText,
  retryText,
  sceneText
} from "../../../src/programs/builder/Cards.js"

const frame = (summary: string) => ({
  frame_summary: summary,
  visible_entities: ["pan"],
  visual_attributes: { colors: "red" }
})

describe("event call", () => {
  it("labels every frame by its time and lists the subtitles with theirs", () => {
    const text = eventText({
      index: 2,
      total: 9,
      start: 40,
      end: 60,
      frameTimes: [40, 42.04],
      cues: [{ start: 41.2, end: 43, text: "Crack  the\neggs" }]
    })
    assert.strictEqual(
      text,
      "Event 3 of 9: 40.0 s – 60.0 s\nFrames (2, attached in this order):\n1. t=40.0 s\n2. t=42.0 s\nSubtitles:\n[41.2–43.0 s] Crack the eggs"
    )
    assert.strictEqual(cueLines([]), "(none)")
  })

  it("decodes a fenced reply with a trailing comma (repaired like agent replies)", () => {
    const raw = "Here it is:\n```json\n" +
      JSON.stringify({
        event: { event_description: "Eggs go in.", entities: "pan" },
        frames: [frame("one"), frame("two")]
      }).replace(/}$/, ",}") +
      "\n```"
    const cards = Either.getOrThrow(decodeEventReply(raw, 2))
    assert.strictEqual(cards.event["event_description"], "Eggs go in.")
    // A lone string in a list field becomes a one-item list; every field of the level is present.
    assert.deepStrictEqual(cards.event["entities"], ["pan"])
    for (const field of [...listFieldsByLevel[2], ...textFieldsByLevel[2]]) assert.property(cards.event, field)
    assert.deepStrictEqual(cards.frames.map((c) => c["frame_summary"]), ["one", "two"])
    assert.deepStrictEqual(cards.frames[0]!["visual_attributes"], { colors: "red" })
  })

  it("accepts the event card flattened beside frames", () => {
    const raw = JSON.stringify({ event_description: "Flat.", frames: [frame("a")] })
    const cards = Either.getOrThrow(decodeEventReply(raw, 1))
    assert.strictEqual(cards.event["event_description"], "Flat.")
    assert.notProperty(cards.event, "frames")
  })

  it("says what is wrong, for the second ask", () => {
    const problem = (raw: string, n = 2) =>
      Either.getLeft(decodeEventReply(raw, n)).pipe((o) => (o._tag === "Some" ? o.value : "ok"))
    assert.strictEqual(
      problem(JSON.stringify({ event: { event_description: "x" }, frames: [frame("a")] })),
      "\"frames\" has 1 cards, expected 2 (one per image, in order)"
    )
    assert.include(
      problem(JSON.stringify({ event: { event_description: "" }, frames: [] }), 0),
      "event.event_description: missing or empty"
    )
    assert.include(
      problem(JSON.stringify({ event: { event_description: "x", entities: 3 }, frames: [] }), 0),
      "event.entities"
    )
    assert.include(
      problem(JSON.stringify({ event: { event_description: "x" }, frames: [{ frame_summary: 5 }] }), 1),
      "frames[0].frame_summary"
    )
    assert.strictEqual(problem("I cannot see the images."), "expected one JSON object: no JSON object found")
    assert.strictEqual(problem(JSON.stringify({ frames: [] }), 0), "missing \"event\" object")
    assert.include(retryText("T", "bad"), "T\n\nYour previous reply could not be used: bad.")
  })

  it("degrades to the raw text, keeping frame cards that decode", () => {
    const raw =
      "{\"event\": {\"summary\": \"The cook adds eggs\"}, \"frames\": [{\"frame_summary\": \"eggs\"}, {\"oops\": 1}]}"
    const cards = degradedEventCards(raw, 2)
    assert.strictEqual(cards.event["degraded"], true)
    assert.include(String(cards.event["event_description"]), "The cook adds eggs")
    assert.notInclude(String(cards.event["event_description"]), "{")
    assert.deepStrictEqual([cards.frames[0]!["frame_summary"], cards.frames[0]!["degraded"]], ["eggs", undefined])
    assert.deepStrictEqual([cards.frames[1]!["frame_summary"], cards.frames[1]!["degraded"]], ["", true])
    assert.strictEqual(degradedEventCards("plain words", 3).frames.length, 3)
  })
})

describe("scene call", () => {
  it("lists each event card with its time and subtitles", () => {
    const text = sceneText({
      index: 0,
      start: 0,
      end: 40,
      events: [
        {
          start: 0,
          end: 20,
          card: completeCard(2, { event_description: "Intro.", entities: ["host"] }),
          subtitle: "Hello"
        },
        { start: 20, end: 40, card: completeCard(2, { event_description: "Cooking." }), subtitle: "" }
      ]
    })
    assert.strictEqual(
      text,
      "Scene 1: 0.0 s – 40.0 s, 2 events\n\nEvent 1 (0.0 s – 20.0 s): Intro.\n  entities: host\n  subtitles: Hello\n\nEvent 2 (20.0 s – 40.0 s): Cooking."
    )
  })

  it("decodes the card, bare or wrapped, and degrades when unusable", () => {
    assert.strictEqual(
      Either.getOrThrow(decodeSceneReply("{\"scene_summary\": \"A kitchen.\"}"))["scene_summary"],
      "A kitchen."
    )
    const wrapped = Either.getOrThrow(
      decodeSceneReply("{\"scene\": {\"scene_summary\": \"B\", \"key_entities\": [\" a \", \"a\", \"\"]}}")
    )
    assert.deepStrictEqual(wrapped["key_entities"], ["a"])
    assert.deepStrictEqual(wrapped["visible_text"], [])
    assert.strictEqual(wrapped["temporal_flow"], "")
    assert.isTrue(Either.isLeft(decodeSceneReply("{\"main_setting\": \"x\"}")))
    const degraded = degradedSceneCard("Sorry, here: a kitchen scene")
    assert.deepStrictEqual([degraded["scene_summary"], degraded["degraded"]], ["Sorry, here: a kitchen scene", true])
  })
})

describe("cards keep only their level's fields (issue #29)", () => {
  const bookkeeping = { index: 3, frame_index: 2, frame_number: "2", time: 4, t: "4 s", id: "f2", notes: "x" }

  it("drops the model's bookkeeping keys from event, frame and scene cards, keeping the fields in card order", () => {
    const raw = JSON.stringify({
      event: { ...bookkeeping, event_description: "Eggs go in.", entities: ["pan"], event_index: 0 },
      frames: [{ ...bookkeeping, frame_summary: "one", visual_attributes: { colors: "red" } }]
    })
    const cards = Either.getOrThrow(decodeEventReply(raw, 1))
    assert.deepStrictEqual(Object.keys(cards.event), [...cardFieldsByLevel[2]])
    assert.deepStrictEqual(Object.keys(cards.frames[0]!), [...cardFieldsByLevel[3]])
    // What the model put inside a card field stays as it wrote it.
    assert.deepStrictEqual(cards.frames[0]!["visual_attributes"], { colors: "red" })
    const scene = Either.getOrThrow(
      decodeSceneReply(JSON.stringify({ scene: { ...bookkeeping, scene_index: 1, scene_summary: "A kitchen." } }))
    )
    assert.deepStrictEqual(Object.keys(scene), [...cardFieldsByLevel[1]])
  })

  it("keeps the builder's own degraded marker", () => {
    assert.strictEqual(degradedSceneCard("words")["degraded"], true)
    assert.strictEqual(degradedEventCards("words", 1).event["degraded"], true)
    assert.strictEqual(degradedEventCards("words", 1).frames[0]!["degraded"], true)
  })
})
