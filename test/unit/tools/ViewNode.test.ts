import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import type { LlmReply } from "../../../src/layers/testing/ScriptedLlm.js"
import { UnknownTool } from "../../../src/programs/tools/Dispatcher.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import { toolModel } from "../../support/agent/Fakes.js"
import { promptName } from "../../support/agent/Prompts.js"
import { makeToolContext, noLlm, noVlm, toolsOf } from "../../support/agent/ToolHarness.js"

const failing = (round: string) => (request: ChatRequest): LlmReply =>
  promptName(request.messages.at(-1)!.content) === round
    ? new ProviderError({ provider: "scripted", reason: "Server", status: 500, message: `${round} broke` })
    : toolModel(request)

const viewNode = (nodeId: string, tool: (request: ChatRequest) => LlmReply = toolModel) =>
  Effect.gen(function*() {
    const llm = yield* ScriptedLlm.make(tool)
    const context = makeToolContext()
    const result = yield* toolsOf(context).dispatch({ tool: "view_node", args: { node_id: nodeId } }).pipe(
      Effect.provide(Layer.merge(llm.layer, noVlm))
    )
    return { output: result.output, context, requests: yield* llm.requests }
  })

describe("view_node", () => {
  it.effect("prints the header, summary, verification, entities, on-screen text and child annotations", () =>
    Effect.gen(function*() {
      const { output, requests } = yield* viewNode("vid_L1_000")
      assert.strictEqual(
        output,
        [
          "[Node] vid_L1_000 | Scene | 0-300s",
          "[Summary] facts of vid_L1_000",
          "[Verified] details=checked vid_L1_000; confidence=0.9",
          "[Entities] cook, pot",
          "[On-screen text] PASTA NIGHT",
          "[Children] 2",
          "★★ vid_L1_000_L2_000 — holds the answer"
        ].join("\n")
      )
      // Four summarizer calls, each with the pack's tool system message and thinking off.
      assert.strictEqual(requests.length, 4)
      assert.isTrue(requests.every((r) => r.role === "tool"))
      assert.isTrue(requests.every((r) => r.thinking === false))
      assert.isTrue(requests.every((r) => r.messages[0]!.content === "TOOL-SYSTEM"))
      const verify = requests.find((r) => promptName(r.messages[1]!.content) === "view_node_verify")!
      assert.include(verify.messages[1]!.content, "draft=facts of vid_L1_000")
    }))

  it.effect("a frame has no children line and omits empty appendix fields", () =>
    Effect.gen(function*() {
      const { output } = yield* viewNode("vid_L1_000_L2_001_L3_001")
      assert.strictEqual(
        output,
        [
          "[Node] vid_L1_000_L2_001_L3_001 | Frame | 200-200s",
          "[Summary] facts of vid_L1_000_L2_001_L3_001",
          "[Verified] details=checked vid_L1_000_L2_001_L3_001; confidence=0.9",
          "[Entities] pan"
        ].join("\n")
      )
    }))

  it.effect("an extract failure prints the summary error and makes no verify call", () =>
    Effect.gen(function*() {
      const { output, context, requests } = yield* viewNode("vid_L1_000_L2_001_L3_000", failing("view_node_extract"))
      assert.include(output, "[Summary error] view_node_extract broke")
      assert.notInclude(output, "[Verified]")
      assert.include(output, "[Entities] tomato, hand")
      assert.isFalse(requests.some((r) => promptName(r.messages[1]!.content) === "view_node_verify"))
      assert.strictEqual(context.stats.extractFailed, 1)
    }))

  it.effect("a verify failure prints the skipped text after the summary", () =>
    Effect.gen(function*() {
      const { output, context } = yield* viewNode("vid_L1_000_L2_000", failing("view_node_verify"))
      assert.include(output, "[Summary] facts of vid_L1_000_L2_000\n[Verified] skipped (call failed)")
      assert.strictEqual(context.stats.verifyFailed, 1)
    }))

  it.effect("a children failure prints the plain child list", () =>
    Effect.gen(function*() {
      const { output, context } = yield* viewNode("vid_L1_000_L2_001", failing("view_node_children_extract"))
      assert.include(
        output,
        [
          "[Children] 3",
          "- vid_L1_000_L2_001_L3_000 | 130-130s | A hand holds a red tomato.",
          "- vid_L1_000_L2_001_L3_001 | 200-200s | Sauce simmers in a pan.",
          "- vid_L1_000_L2_001_L3_002 | 280-280s | The cook tastes the sauce."
        ].join("\n")
      )
      assert.strictEqual(context.stats.childrenFailed, 1)
    }))

  it.effect("children marks naming no real child fall back to the plain list", () =>
    Effect.gen(function*() {
      const tool = (request: ChatRequest): LlmReply =>
        promptName(request.messages[1]!.content).startsWith("view_node_children")
          ? "★★ vid_L9 — invented\nnone\ndetails=ok; confidence=0.2"
          : toolModel(request)
      const { output } = yield* viewNode("vid_L1_001", tool)
      assert.include(output, "[Children] 1\n- vid_L1_001_L2_000 | 300-600s | Four people share the pasta.")
    }))

  it.effect("an unknown node is tool error text, not a failure", () =>
    Effect.gen(function*() {
      const { output, requests } = yield* viewNode("vid_L7_000")
      assert.strictEqual(output, "[Tool error] no node \"vid_L7_000\" in this tree")
      assert.strictEqual(requests.length, 0)
    }))

  it.effect("an unknown tool is a typed UnknownTool error listing the tools", () =>
    Effect.gen(function*() {
      const error = yield* toolsOf(makeToolContext()).dispatch({ tool: "rewind", args: {} }).pipe(
        Effect.flip,
        Effect.provide(Layer.merge(noLlm, noVlm))
      )
      assert.instanceOf(error, UnknownTool)
      assert.deepStrictEqual(error.available, ["view_node", "search_similar", "observe_frame", "submit_answer"])
    }))
})
