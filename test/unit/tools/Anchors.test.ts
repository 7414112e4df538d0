import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { parseChildAnnotations, resolveAnchors } from "../../../src/programs/tools/Summarizer.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import { promptName, promptVar, testLabels } from "../../support/agent/Prompts.js"
import { makeToolContext, noVlm, toolsOf } from "../../support/agent/ToolHarness.js"

const anchors = new Map([
  ["c1", "event_description: The cook adds three tomatoes."],
  ["s1", "Three tomatoes."]
])

describe("anchors", () => {
  it("ids mode keeps valid citations, drops and counts invalid ones", () => {
    const result = resolveAnchors("Three tomatoes [c1][c9]. Said aloud [s1, s7] too [x2].", anchors, "ids")
    assert.deepStrictEqual(result, { text: "Three tomatoes [c1]. Said aloud [s1] too [x2].", invalid: 2 })
  })

  it("quote mode expands citations to the lines they stand for", () => {
    const result = resolveAnchors("Three [c1], heard [s1].", anchors, "quote")
    assert.strictEqual(
      result.text,
      "Three [c1: event_description: The cook adds three tomatoes.], heard [s1: Three tomatoes.]."
    )
    assert.strictEqual(result.invalid, 0)
  })

  it.effect("view_node in anchor mode sends numbered text and assembles the reply", () =>
    Effect.gen(function*() {
      const tool = (request: ChatRequest) => {
        const prompt = request.messages[1]!.content
        return promptName(prompt) === "view_node_extract"
          ? "The cook adds three tomatoes [c1] [c7]."
          : "details=confirmed, heard [s1] and [s9]; confidence=0.9"
      }
      const llm = yield* ScriptedLlm.make(tool)
      const context = makeToolContext({ anchor: "quote" })
      const { output } = yield* toolsOf(context).dispatch({ tool: "view_node", args: { node_id: "vid_L1_000_L2_000" } })
        .pipe(
          Effect.provide(Layer.merge(llm.layer, noVlm))
        )
      const [extract] = yield* llm.requests
      assert.include(
        promptVar(extract!.messages[1]!.content, "node_text")!,
        "[c1] event_description: The cook fills a pot with water."
      )
      assert.include(
        output,
        "[Summary] The cook adds three tomatoes [c1: event_description: The cook fills a pot with water.]."
      )
      assert.include(output, "[Verified] details=confirmed, heard [s1: Fill it up.] and; confidence=0.9")
      assert.strictEqual(context.stats.invalidAnchors, 2)
      // Both rounds tell the model how to cite, or it would paraphrase without anchors.
      for (const request of yield* llm.requests) assert.include(request.messages[1]!.content, testLabels.anchorNote)
    }))
})

describe("child annotations", () => {
  it("keeps ★★/★ lines naming real children, once each, and nothing else", () => {
    const text = [
      "Here are the marks:",
      "★★ a_L2_000 — the pot",
      "- ★ a_L2_001: maybe",
      "★ a_L2_000 — again",
      "★★ `a_L2_002` — quoted id",
      "★ a_L2_999 — invented",
      "details=ok; confidence=0.7"
    ].join("\n")
    assert.deepStrictEqual(parseChildAnnotations(testLabels, text, new Set(["a_L2_000", "a_L2_001", "a_L2_002"])), [
      "★★ a_L2_000 — the pot",
      "★ a_L2_001: maybe",
      "★★ `a_L2_002` — quoted id"
    ])
  })
})
