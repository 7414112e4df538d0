import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { hashingEmbedding, makeHashingEmbedder } from "../../../src/layers/testing/HashingEmbedder.js"
import { buildBm25, scoreBm25, tokenize } from "../../../src/programs/tree/Bm25.js"
import { chunkText } from "../../../src/programs/tree/Chunking.js"
import { packVectors } from "../../../src/programs/tree/EmbeddingIndex.js"
import {
  buildRetrieval,
  nodeScores,
  searchBm25,
  searchEmbedding,
  searchHybrid,
  topIndices
} from "../../../src/programs/tree/Retrieval.js"
import { decodeTree } from "../../../src/programs/tree/TreeDecoder.js"
import { syntheticTree } from "../../support/trees/SyntheticTree.js"

type Cards = Record<string, Record<string, unknown>>

/** A 3 × 3 × 4 synthetic tree with some cards replaced. */
const treeWith = (cards: Cards, subtitles: Record<string, string> = {}) => {
  const json = syntheticTree({
    videoId: "V",
    scenes: 3,
    eventsPerScene: 3,
    framesPerEvent: 4,
    seed: 11
  }) as { nodes: Record<string, { card: unknown; subtitle: string }> }
  for (const [id, card] of Object.entries(cards)) json.nodes[id]!.card = card
  for (const [id, subtitle] of Object.entries(subtitles)) json.nodes[id]!.subtitle = subtitle
  return buildRetrieval(Either.getOrThrow(decodeTree("tree.json", json)))
}

describe("tokenize", () => {
  it("lowercases words and turns CJK runs into character bigrams", () => {
    assert.deepStrictEqual(tokenize("The Red-Car, 2 cars!"), ["the", "red", "car", "2", "cars"])
    assert.deepStrictEqual(tokenize("小狗在跑"), ["小狗", "狗在", "在跑"])
    assert.deepStrictEqual(tokenize("iPhone手机壳 猫"), ["iphone", "手机", "机壳", "猫"])
    assert.deepStrictEqual(tokenize("ＡＢＣ"), ["abc"])
  })
})

describe("chunkText", () => {
  it("cuts 4000-character windows overlapping by 800", () => {
    const text = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("")
    const chunks = chunkText(text)
    assert.deepStrictEqual(chunks.map((chunk) => chunk.length), [4000, 4000, 3600])
    assert.strictEqual(chunks[1], text.slice(3200, 7200))
    assert.strictEqual(chunks[2], text.slice(6400))
    assert.deepStrictEqual(chunkText("short"), ["short"])
  })
})

describe("BM25", () => {
  it("scores a document holding a rare term above those holding only common ones", () => {
    const index = buildBm25(["the dog runs", "the dog sits", "the zeppelin flies", "the dog and the cat"])
    const scores = scoreBm25(index, "dog zeppelin")
    assert.strictEqual(topIndices(scores, 1)[0], 2)
    assert.strictEqual(scoreBm25(index, "unicorn").every((score) => score === 0), true)
  })

  it("ranks the node holding a rare term first", () => {
    const index = treeWith({ V_L1_001_L2_002_L3_003: { frame_summary: "a zeppelin drifts over the street" } })
    const hits = searchBm25(index, "zeppelin street")
    assert.strictEqual(hits[0]!.nodeId, "V_L1_001_L2_002_L3_003")
    assert.strictEqual(hits[0]!.level, 3)
    assert.isAbove(hits[0]!.score, hits[1]?.score ?? 0)
    assert.strictEqual(hits.length, 5)
  })

  it("scores a node by its best chunk, so a term deep in a long subtitle still counts", () => {
    const long = `${"filler words again ".repeat(600)} the zeppelin lands ${"more filler ".repeat(200)}`
    const index = treeWith({}, { V_L1_002: long })
    assert.isAbove(index.chunkNode.filter((node) => index.nodeIds[node] === "V_L1_002").length, 2)
    assert.strictEqual(searchBm25(index, "zeppelin")[0]!.nodeId, "V_L1_002")
  })

  it("skips a node when a kept node is its ancestor or descendant", () => {
    const index = treeWith(
      {
        V_L1_000: { scene_summary: "zeppelin zeppelin festival" },
        V_L1_000_L2_001: { event_description: "a zeppelin over a crowd" },
        V_L1_000_L2_001_L3_000: { frame_summary: "zeppelin close up with people below" },
        V_L1_002_L2_000_L3_001: { frame_summary: "a zeppelin far away in a long and wordy description of the sky" }
      },
      { V_L1_000: "", V_L1_000_L2_001: "" }
    )
    // Without de-duplication the event and the frame under the top scene would fill places 2 and 3.
    assert.deepStrictEqual(
      topIndices(nodeScores(index, scoreBm25(index.bm25, "zeppelin")), 4, 0).map((n) => index.nodeIds[n]),
      ["V_L1_000", "V_L1_000_L2_001", "V_L1_000_L2_001_L3_000", "V_L1_002_L2_000_L3_001"]
    )
    const hits = searchBm25(index, "zeppelin", 5).map((hit) => hit.nodeId)
    assert.deepStrictEqual(hits, ["V_L1_000", "V_L1_002_L2_000_L3_001"])
  })

  it("keeps descendants of a skipped ancestor when the ancestor ranks below them", () => {
    const index = treeWith({
      V_L1_001: {
        scene_summary: "a long scene about many things, among them one zeppelin, and a lot of other words here"
      },
      V_L1_001_L2_000_L3_000: { frame_summary: "zeppelin" },
      V_L1_001_L2_001_L3_000: { frame_summary: "zeppelin zeppelin" }
    })
    const hits = searchBm25(index, "zeppelin", 5).map((hit) => hit.nodeId)
    assert.deepStrictEqual(hits, ["V_L1_001_L2_001_L3_000", "V_L1_001_L2_000_L3_000"])
  })
})

describe("topIndices", () => {
  it("orders best first, ties by position, and drops scores at or below the floor", () => {
    assert.deepStrictEqual(topIndices([1, 3, -5, 3, 0, -1], 10, -1), [1, 3, 0, 4])
    assert.deepStrictEqual(topIndices([1, 3, -5, 3, 0, -1], 2, -1), [1, 3])
    assert.deepStrictEqual(topIndices([2, 1], 0), [])
  })

  it("returns the same order as a full stable sort", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 70 }),
        (values, limit) => {
          const expected = values.map((_, i) => i).filter((i) => values[i]! > -3).sort((a, b) =>
            values[b]! - values[a]! || a - b
          ).slice(0, limit)
          assert.deepStrictEqual(topIndices(values, limit, -3), expected)
        }
      )
    )
  })
})

describe("embedding and hybrid search", () => {
  const cards: Cards = {
    V_L1_000_L2_000_L3_000: { frame_summary: "zeppelin over the market, a crowd watching from the bridge" },
    V_L1_001_L2_001_L3_001: { frame_summary: "一只小狗" },
    V_L1_002_L2_002_L3_002: { frame_summary: "zeppelin 一只小狗" }
  }
  const embedder = makeHashingEmbedder({ dimensions: 512 })
  const matrixOf = (index: ReturnType<typeof treeWith>) =>
    packVectors(index.chunkTexts.map((text) => hashingEmbedding(text, 512)))!

  it("ranks by cosine similarity over the normalized matrix", () => {
    const index = treeWith(cards)
    const hits = searchEmbedding(index, matrixOf(index), hashingEmbedding("zeppelin 小狗", 512), 3)
    assert.strictEqual(hits[0]!.nodeId, "V_L1_002_L2_002_L3_002")
    assert.isAtMost(hits[0]!.score, 1.0001)
  })

  it("fuses BM25 and cosine ranks: a node both rank comes first, one only the embedding finds still appears", () => {
    const index = treeWith(cards)
    // BM25 tokenizes CJK as bigrams, so the single character 狗 matches no BM25 term; the hashing
    // embedder hashes single CJK characters, so it does.
    const lexical = searchBm25(index, "zeppelin 狗").map((hit) => hit.nodeId)
    assert.notInclude(lexical, "V_L1_001_L2_001_L3_001")
    const [vector] = Effect.runSync(embedder.embed(["zeppelin 狗"]))
    const hybrid = searchHybrid(index, matrixOf(index), "zeppelin 狗", vector!, 5)
    const ids = hybrid.map((hit) => hit.nodeId)
    assert.strictEqual(ids[0], "V_L1_002_L2_002_L3_002")
    assert.include(ids, "V_L1_001_L2_001_L3_001")
    assert.include(ids, "V_L1_000_L2_000_L3_000")
    assert.isAbove(hybrid[0]!.score, 1 / 61)
  })
})
