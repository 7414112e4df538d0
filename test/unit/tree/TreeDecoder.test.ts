import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeTree, decodeTreeBytes, decodeTreeText } from "../../../src/programs/tree/TreeDecoder.js"
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
      nodes.VID_L1_000_L2_000.card = {
        event_description: "pouring",
        spatial_relations: ["cup left of pot", "pot on stove"]
      }
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
    assert.strictEqual(
      message,
      `${file}: nodes.VID_L1_001.level: expected 1, 2 or 3, found 4 — fix the file or re-run the builder`
    )
  })

  it("names the node and field of a child id that does not exist", () => {
    const message = errorOf(mutate((nodes) => nodes.VID_L1_000.children_ids.push("VID_L1_000_L2_009")))
    assert.include(message, "nodes.VID_L1_000.children_ids[2]")
    assert.include(message, `"VID_L1_000_L2_009" does not exist`)
  })

  it("names the node and field of a non-numeric time_range", () => {
    const message = errorOf(mutate((nodes) => (nodes.VID_L1_000_L2_001.time_range = [0, "end"])))
    assert.include(
      message,
      "nodes.VID_L1_000_L2_001.time_range[1]: expected a finite number of seconds ≥ 0, found \"end\""
    )
  })

  it("rejects a time_range whose start is after its end", () => {
    assert.include(
      errorOf(mutate((nodes) => (nodes.VID_L1_000.time_range = [300, 10]))),
      "nodes.VID_L1_000.time_range: start 300 is after end 10"
    )
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
    assert.include(
      errorOf(duplicated),
      `roots[1].children[1].id: "VID_L1_001_L2_000" is already used by roots[1].children[0]`
    )
  })

  it("rejects a nested node at the wrong depth or below frames", () => {
    const misplaced = toNestedForm(small()) as any
    misplaced.roots[0].children[1].level = 3
    assert.include(errorOf(misplaced), "roots[0].children[1].level: expected 2 at this depth, found 3")
    const tooDeep = toNestedForm(small()) as any
    tooDeep.roots[0].children[0].children[0].children = [{ id: "VID_X", timestamp: 1, card: {} }]
    assert.include(
      errorOf(tooDeep),
      "roots[0].children[0].children[0].children[0]: nodes nest at most three levels deep"
    )
  })

  it("requires a time for every node: an L3 node may give a timestamp instead", () => {
    const nested = toNestedForm(small()) as any
    delete nested.roots[0].children[0].children[0].timestamp
    assert.include(
      errorOf(nested),
      "roots[0].children[0].children[0].time_range: missing (an L3 node needs time_range or timestamp)"
    )
    assert.include(
      errorOf(mutate((nodes) => delete nodes.VID_L1_000.time_range)),
      "nodes.VID_L1_000.time_range: missing"
    )
  })

  it("reports text that is not JSON", () => {
    const result = decodeTreeText(file, "{ not json")
    assert.isTrue(Either.isLeft(result))
    assert.include(Either.isLeft(result) ? result.left.message : "", `${file}: not valid JSON`)
  })
})

const textErrorOf = (text: string | Uint8Array, folder?: string): { path: string; message: string } => {
  const options = folder === undefined ? {} : { folder }
  const result = typeof text === "string" ? decodeTreeText(file, text, options) : decodeTreeBytes(file, text, options)
  if (Either.isRight(result)) return assert.fail("expected a decode error")
  return { path: result.left.path, message: result.left.message }
}

describe("strict trees", () => {
  it("rejects negative and infinite times, naming the field", () => {
    assert.include(
      errorOf(mutate((nodes) => (nodes.VID_L1_000.time_range = [-5, 10]))),
      "nodes.VID_L1_000.time_range[0]: expected a finite number of seconds ≥ 0, found -5"
    )
    // JSON.parse reads 1e999 as Infinity.
    const infinite = JSON.stringify(small()).replace(`"time_range":[0,300]`, `"time_range":[0,1e999]`)
    assert.include(
      textErrorOf(infinite).message,
      "nodes.VID_L1_000.time_range[1]: expected a finite number of seconds ≥ 0, found null"
    )
    const nested = toNestedForm(small()) as any
    nested.roots[0].children[0].children[0].timestamp = -1
    assert.include(
      errorOf(nested),
      "roots[0].children[0].children[0].timestamp: expected a finite number of seconds ≥ 0"
    )
  })

  it("rejects a child outside its parent's time, beyond the stated 0.5 s tolerance", () => {
    const outside = errorOf(mutate((nodes) => (nodes.VID_L1_000_L2_001.time_range = [100, 400])))
    assert.include(
      outside,
      `nodes.VID_L1_000.children_ids[1]: child "VID_L1_000_L2_001" spans 100-400 s, outside its parent's 0-300 s (more than the 0.5 s allowed for rounding)`
    )
    const rounding = mutate((nodes) => (nodes.VID_L1_000_L2_001.time_range = [150, 300.4]))
    assert.isTrue(Either.isRight(decodeTree(file, rounding)))
  })

  it("rejects a duplicate key with its JSON path, line and column", () => {
    const text = `{"videoID":"VID","nodes":{"VID_L1_000":{"level":1,"time_range":[0,1],\n "level":2}}}`
    const error = textErrorOf(text)
    assert.strictEqual(error.path, "nodes.VID_L1_000.level")
    assert.strictEqual(
      error.message,
      `${file}: nodes.VID_L1_000.level: duplicate key "level" (line 2, column 2) — keep one of the two; fix the file or re-run the builder`
    )
    assert.include(
      textErrorOf(`{"videoID":"A","videoID":"VID","nodes":{}}`).message,
      `${file}: videoID: duplicate key "videoID"`
    )
    // The same key in two sibling objects is not a duplicate.
    assert.isTrue(Either.isRight(decodeTreeText(file, JSON.stringify(small()))))
  })

  it("rejects invalid UTF-8 with its byte offset, and accepts a real U+FFFD and a byte-order mark", () => {
    const text = JSON.stringify(mutate((nodes) => (nodes.VID_L1_000.subtitle = "caf\uFFFD \u00e9")))
    const good = new TextEncoder().encode(text)
    const bad = Uint8Array.from(good)
    const offset = new TextEncoder().encode(text.slice(0, text.indexOf("\u00e9"))).length
    bad[offset] = 0xff
    const error = textErrorOf(bad)
    assert.strictEqual(
      error.message,
      `${file}: not valid UTF-8 at byte ${offset} (line 1, column ${
        text.indexOf("\u00e9") + 1
      }) — save the file as UTF-8 or re-run the builder`
    )
    assert.isTrue(Either.isRight(decodeTreeBytes(file, good)))
    assert.isTrue(Either.isRight(decodeTreeBytes(file, Uint8Array.from([0xef, 0xbb, 0xbf, ...good]))))
  })

  it("bounds the nesting depth with a located error, never a stack overflow (10,000 nested arrays)", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    for (const field of ["time_range", "key_entities", "subtitle", "children_ids"]) {
      const text = JSON.stringify(small()).replace(
        new RegExp(`"${field}":(\\[[^\\]]*\\]|"[^"]*")`),
        `"${field}":${deep}`
      )
      const error = textErrorOf(text)
      assert.match(
        error.message,
        /^trees\/VID\/tree\.json: nodes\.VID_L1_000\.(card\.)?\w+(\[0\])+…: nested more than 64 levels deep \(line 1, column \d+\) — /
      )
      assert.include(error.path, `${field}[0][0]`)
    }
    const nested = JSON.stringify(toNestedForm(small())).replace(`"subtitle":`, `"subtitle":${deep},"x":`)
    assert.match(
      textErrorOf(nested).message,
      /^trees\/VID\/tree\.json: roots\[0\]\.subtitle(\[0\])+…: nested more than 64 levels deep/
    )
  })

  it("requires the videoID to match the tree's folder, in either form", () => {
    const text = JSON.stringify(small())
    assert.strictEqual(
      textErrorOf(text, "OTHER").message,
      `${file}: videoID: "VID" differs from the tree's folder "OTHER" — rename the folder to VID, or fix the videoID (a video's tree is found as <trees>/<videoID>/tree.json)`
    )
    assert.isTrue(Either.isRight(decodeTreeText(file, text, { folder: "VID" })))
    // A videoID names a folder too: the same rule as a question's videoID.
    const escaping = JSON.stringify({ ...small(), videoID: "../VID" })
    assert.include(textErrorOf(escaping).message, `${file}: videoID: "../VID" contains a path separator`)
    const nested = toNestedForm(small()) as any
    delete nested.metadata
    assert.include(
      textErrorOf(JSON.stringify(nested), "OTHER").message,
      `${file}: roots[0].id: "VID" differs from the tree's folder "OTHER"`
    )
  })

  it("refuses a frame_path that leaves the tree's folder", () => {
    for (
      const framePath of ["../../etc/passwd", "/etc/passwd", "frames/../../x.jpg", "C:\\x.jpg", "frames/a\u0000.jpg"]
    ) {
      const message = errorOf(mutate((nodes) => (nodes.VID_L1_000_L2_000_L3_000.frame_path = framePath)))
      assert.include(
        message,
        `nodes.VID_L1_000_L2_000_L3_000.frame_path: ${
          JSON.stringify(framePath)
        } leaves the tree's folder — write a path relative`
      )
    }
    const inside = mutate((nodes) => (nodes.VID_L1_000_L2_000_L3_000.frame_path = "custom/odd..name.jpg"))
    assert.isTrue(Either.isRight(decodeTree(file, inside)))
  })

  it("refuses a node id that is not a plain name, in either form (issue #39: vid_../../x read any *.jpg)", () => {
    /** The tree with the frame VID_L1_000_L2_000_L3_000 renamed to `id` everywhere it is named. */
    const renamed = (id: string) =>
      mutate((nodes) => {
        const frame = nodes.VID_L1_000_L2_000_L3_000
        delete nodes.VID_L1_000_L2_000_L3_000
        nodes[id] = { ...frame, id }
        nodes.VID_L1_000_L2_000.children_ids[0] = id
      })
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["VID_../../../../home/someone/secret/photo", "contains a path separator"],
      ["VID_..\\..\\x", "contains a path separator"],
      ["..", "names a directory"],
      ["VID_a\u0000b", "contains a NUL byte"],
      ["VID_\u001b]0;x\u0007", "contains the control character U+001B"],
      ["VID_\u009b31m", "contains the control character U+009B"],
      ["VID_\u202egpj.exe", "contains the control character U+202E"],
      [" ", "is empty"],
      [`VID_${"x".repeat(400)}`, "longer than 400 bytes"]
    ]
    for (const [id, problem] of cases) {
      const message = errorOf(renamed(id))
      assert.include(message, `${file}: nodes: node id`)
      assert.include(message, `node id "${id.slice(0, 4)}`)
      assert.include(message, problem)
      assert.include(message, "node ids are plain names")
      assert.notMatch(message, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
      const nested = toNestedForm(renamed(id))
      const nestedResult = decodeTree(file, nested)
      assert.isTrue(Either.isLeft(nestedResult) && nestedResult.left.message.includes(problem))
    }
    assert.include(errorOf(renamed(`VID_${"x".repeat(400)}`)), `"VID_${"x".repeat(75)}…"`)
    // Ids as vtree build and tree import write them, and other plain names, still decode.
    for (const id of ["VID_L1_000_L2_000_L3_000", "VID_3_12", "VID_odd..name", "VID_é-ü~1a2b3c4d", "VID_.hidden"]) {
      assert.isTrue(Either.isRight(decodeTree(file, renamed(id))), id)
    }
  })
})

describe("TreeDecodeError reasons", () => {
  const reasonOf = (text: string | Uint8Array) => {
    const result = typeof text === "string" ? decodeTreeText(file, text) : decodeTreeBytes(file, text)
    return Either.isLeft(result) ? result.left.reason : assert.fail("expected a decode error")
  }

  it("tells a caller which way the file failed", () => {
    assert.strictEqual(reasonOf("{ not json"), "Syntax")
    assert.strictEqual(reasonOf(`{"videoID":"A","videoID":"VID","nodes":{}}`), "DuplicateKey")
    assert.strictEqual(reasonOf("[".repeat(100) + "]".repeat(100)), "TooDeep")
    assert.strictEqual(reasonOf(Uint8Array.from([0x7b, 0xff, 0x7d])), "Encoding")
    assert.strictEqual(reasonOf(JSON.stringify(mutate((nodes) => (nodes.VID_L1_000.level = 7)))), "Invalid")
  })
})
