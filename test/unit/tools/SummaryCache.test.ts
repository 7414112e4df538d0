import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { makeSummaryCache } from "../../../src/programs/tools/SummaryCache.js"
import { toolModel } from "../../support/agent/Fakes.js"
import { promptName } from "../../support/agent/Prompts.js"
import { makeToolContext, noVlm, toolsOf } from "../../support/agent/ToolHarness.js"

const view = (nodeId: string, question?: string) => ({
  tool: "view_node",
  args: question === undefined ? { node_id: nodeId } : { node_id: nodeId, question }
})

describe("summary cache", () => {
  it.effect("a revisited node (same question, same prompt) costs no model call, across questions of a run", () =>
    Effect.gen(function*() {
      const llm = yield* ScriptedLlm.make(toolModel)
      const cache = makeSummaryCache()
      const first = makeToolContext({ cache })
      const second = makeToolContext({ cache })
      const a = yield* toolsOf(first).dispatch(view("vid_L1_000_L2_000")).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      const b = yield* toolsOf(first).dispatch(view("vid_L1_000_L2_000")).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      const c = yield* toolsOf(second).dispatch(view("vid_L1_000_L2_000")).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      assert.strictEqual(a.output, b.output)
      assert.strictEqual(a.output, c.output)
      assert.strictEqual((yield* llm.requests).length, 2)
      assert.strictEqual(first.stats.summaryCacheHits, 1)
      assert.strictEqual(second.stats.summaryCacheHits, 1)
      // Another question is another prompt: computed again.
      yield* toolsOf(first).dispatch(view("vid_L1_000_L2_000", "What is in the pot?")).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      assert.strictEqual((yield* llm.requests).length, 4)
    }))

  it.effect("concurrent requests for the same key share one computation", () =>
    Effect.gen(function*() {
      const llm = yield* ScriptedLlm.make(toolModel, { latency: "1 second" })
      const context = makeToolContext()
      const tools = toolsOf(context)
      const fiber = yield* Effect.all([
        tools.dispatch(view("vid_L1_000_L2_000")),
        tools.dispatch(view("vid_L1_000_L2_000"))
      ], {
        concurrency: 2
      }).pipe(Effect.provide(Layer.merge(llm.layer, noVlm)), Effect.fork)
      yield* TestClock.adjust("2 seconds")
      const [one, two] = yield* Fiber.join(fiber)
      assert.strictEqual(one.output, two.output)
      assert.strictEqual((yield* llm.requests).length, 2)
      assert.strictEqual(context.stats.summaryCacheHits, 1)
    }))

  it.effect("degraded results are not kept: the next visit tries again", () =>
    Effect.gen(function*() {
      let failures = 1
      const llm = yield* ScriptedLlm.make((request) =>
        promptName(request.messages[1]!.content) === "view_node_verify" && failures-- > 0
          ? new ProviderError({ provider: "scripted", reason: "Server", message: "hiccup" })
          : toolModel(request)
      )
      const context = makeToolContext()
      const first = yield* toolsOf(context).dispatch(view("vid_L1_000_L2_000")).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      const second = yield* toolsOf(context).dispatch(view("vid_L1_000_L2_000")).pipe(
        Effect.provide(Layer.merge(llm.layer, noVlm))
      )
      assert.include(first.output, "[Verified] skipped (call failed)")
      assert.include(second.output, "[Verified] details=checked vid_L1_000_L2_000")
      assert.strictEqual((yield* llm.requests).length, 4)
    }))

  it.effect("a failing computation is not memoised and its waiters see the failure", () =>
    Effect.gen(function*() {
      const cache = makeSummaryCache()
      let runs = 0
      const failing = Effect.suspend(() => (runs++, Effect.fail("boom" as const)))
      const error = yield* Effect.flip(cache.getOrCompute("k", failing))
      assert.strictEqual(error, "boom")
      assert.strictEqual(cache.size(), 0)
      const value = yield* cache.getOrCompute("k", Effect.succeed(42))
      assert.strictEqual(value, 42)
      assert.strictEqual(yield* cache.getOrCompute("k", Effect.succeed(0)), 42)
      assert.strictEqual(runs, 1)
    }))
})
