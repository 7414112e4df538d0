import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, TestClock } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import type { SearchHit } from "../../../src/domain/TreeIndex.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { isKeywordFallback } from "../../../src/programs/tree/KeywordFallback.js"
import { toolModel } from "../../support/agent/Fakes.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"
import { promptVar } from "../../support/agent/Prompts.js"
import { makeToolContext, noLlm, noVlm, toolsOf } from "../../support/agent/ToolHarness.js"

const order = [
  "vid_L1_000_L2_001_L3_002",
  "vid_L1_001",
  "vid_L1_000_L2_000",
  "vid_L1_000_L2_001_L3_000",
  "vid_L1_001_L2_000"
]

const hits = (k: number): ReadonlyArray<SearchHit> => {
  const tree = sampleTree()
  return order.slice(0, k).map((nodeId, i) => {
    const node = tree.index.nodes.get(nodeId)!
    return { nodeId, level: node.level, score: 0.9 - i * 0.1, timeRange: node.timeRange }
  })
}

const searchIn = (batchConcurrency: number, k = 5) =>
  Effect.gen(function*() {
    const llm = yield* ScriptedLlm.make(toolModel, { latency: "1 second" })
    const context = makeToolContext({ tree: sampleTree({ search: (_, k) => hits(k) }), batchConcurrency })
    const fiber = yield* toolsOf(context)
      .dispatch({ tool: "search_similar", args: { query: "tomato", question: "how many?", k } })
      .pipe(Effect.provide(Layer.merge(llm.layer, noVlm)), Effect.fork)
    return { fiber, llm }
  })

describe("search_similar", () => {
  it.effect("k = 5 with 1 s calls takes 2 s of virtual time, results in retrieval order", () =>
    Effect.gen(function*() {
      const { fiber, llm } = yield* searchIn(8)
      yield* TestClock.adjust("1999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual((yield* llm.requests).length, 10)
      const lines = result.output.split("\n")
      assert.strictEqual(lines[0], "[Search results] query \"tomato\" → 5 nodes")
      assert.deepStrictEqual(lines.filter((line) => /^\d+\. /.test(line)), [
        "1. vid_L1_000_L2_001_L3_002 | L3 score=0.900 [280s, 280s]",
        "2. vid_L1_001 | L1 score=0.800 [300s, 600s]",
        "3. vid_L1_000_L2_000 | L2 score=0.700 [0s, 120s]",
        "4. vid_L1_000_L2_001_L3_000 | L3 score=0.600 [130s, 130s]",
        "5. vid_L1_001_L2_000 | L2 score=0.500 [300s, 600s]"
      ])
      assert.strictEqual(lines[2], "   [Summary] facts of vid_L1_000_L2_001_L3_002")
      assert.strictEqual(lines[3], "   [Verified] details=checked vid_L1_000_L2_001_L3_002; confidence=0.9")
    }))

  it.effect("the fiber bound holds: 5 hits on 2 fibers take three rounds of two calls", () =>
    Effect.gen(function*() {
      const { fiber } = yield* searchIn(2)
      yield* TestClock.adjust("5999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 millis")
      assert.include((yield* Fiber.join(fiber)).output, "→ 5 nodes")
    }))

  it.effect("one hit reads '→ 1 node', the plural rule of every count vtree prints", () =>
    Effect.gen(function*() {
      const { fiber } = yield* searchIn(8, 1)
      yield* TestClock.adjust("2 seconds")
      const lines = (yield* Fiber.join(fiber)).output.split("\n")
      assert.strictEqual(lines[0], "[Search results] query \"tomato\" → 1 node")
    }))

  it.effect("the search prompts carry the query and the question", () =>
    Effect.gen(function*() {
      const llm = yield* ScriptedLlm.make(toolModel)
      const context = makeToolContext({ tree: sampleTree({ search: (_, k) => hits(k) }) })
      yield* toolsOf(context).dispatch({ tool: "search_similar", args: { query: "red tomato", k: "1" } }).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      const [extract] = yield* llm.requests
      const prompt = extract!.messages[1]!.content
      assert.strictEqual(promptVar(prompt, "query"), "red tomato")
      assert.strictEqual(promptVar(prompt, "question"), context.question)
      assert.strictEqual(promptVar(prompt, "level"), "Frame")
    }))

  it.effect("one hit's failed extract does not stop the others", () =>
    Effect.gen(function*() {
      const llm = yield* ScriptedLlm.make((request) =>
        promptVar(request.messages[1]!.content, "node_id") === "vid_L1_001"
          ? new ProviderError({ provider: "scripted", reason: "BadResponse", message: "empty reply" })
          : toolModel(request)
      )
      const context = makeToolContext({ tree: sampleTree({ search: (_, k) => hits(k) }) })
      const { output } = yield* toolsOf(context).dispatch({ tool: "search_similar", args: { query: "x", k: 3 } }).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      assert.include(output, "2. vid_L1_001 | L1 score=0.800 [300s, 600s]\n   [Summary error] empty reply\n3.")
      assert.include(output, "   [Verified] details=checked vid_L1_000_L2_000; confidence=0.9")
    }))

  it.effect("a failed embedding search falls back to keyword results, says so and is counted", () =>
    Effect.gen(function*() {
      const tree = sampleTree({ search: (_, k) => hits(k) })
      const broken = {
        ...tree,
        search: () =>
          Effect.fail(new ProviderError({ provider: "embed", reason: "Timeout", message: "embedding timed out" }))
      }
      const context = makeToolContext({ tree: broken })
      const llm = yield* ScriptedLlm.make(toolModel)
      const { output } = yield* toolsOf(context).dispatch({ tool: "search_similar", args: { query: "x", k: 2 } })
        .pipe(Effect.provide(Layer.merge(llm.layer, noVlm)))
      assert.include(output, "semantic search unavailable (embedding timed out); keyword results")
      assert.include(output, "1. vid_L1_000_L2_001_L3_002 | L3 score=0.900")
      assert.strictEqual(context.stats.embedFallbacks, 1)
      assert.isTrue(isKeywordFallback(output))
    }))

  it.effect("bad args name the field", () =>
    Effect.gen(function*() {
      const { output } = yield* toolsOf(makeToolContext()).dispatch({
        tool: "search_similar",
        args: { query: "x", k: 0 }
      }).pipe(
        Effect.provide(Layer.merge(noLlm, noVlm))
      )
      assert.match(output, /^\[Tool error\] search_similar: .*k/s)
    }))
})
