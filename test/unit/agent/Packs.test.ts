import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { runQuestion } from "../../../src/programs/agent/RunQuestion.js"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import { call, scriptFor, submit } from "../../support/agent/Fakes.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"

// A summarizer that does not know the pack's wording: it answers by what the prompt asks for.
const anyPackTool = (request: ChatRequest): string => {
  const prompt = request.messages.at(-1)!.content
  if (/details=/.test(prompt) && !prompt.includes("★")) return "details=checked; confidence=0.9"
  if (prompt.includes("vid_L1_000_L2_001_L3_000") && prompt.includes("★")) {
    return "★★ vid_L1_000_L2_001_L3_000 — tomatoes\ndetails=ok; confidence=0.8"
  }
  return "three tomatoes"
}

const trajectory = [
  call("view_node", { node_id: "vid_L1_000_L2_001" }),
  call("search_similar", { query: "tomato", k: 1 }),
  call("observe_frame", { node_ids: ["vid_L1_000_L2_001_L3_000"] }),
  call("view_node", { node_id: "vid_L1_000", question: 42 }),
  submit("C")
]

const runWith = (pack: "en" | "zh") =>
  Effect.gen(function*() {
    const prompts = yield* loadPromptManager(packagedPromptsDir(pack))
    const llm = yield* ScriptedLlm.make(scriptFor(trajectory, anyPackTool))
    const vlm = yield* ScriptedVlm.make(() => "three tomatoes")
    const prediction = yield* runQuestion(
      {
        questionId: "q",
        question: "How many tomatoes?",
        options: ["A. 1", "B. 2", "C. 3", "D. 4"],
        taskType: "Counting Problem"
      },
      sampleTree(),
      { prompts }
    ).pipe(Effect.provide(Layer.merge(llm.layer, vlm.layer)))
    const firstAgent = (yield* llm.requests).find((request) => request.role === "agent")!
    return { prediction, outputs: prediction.steps.map((step) => step.output).join("\n"), firstAgent }
  }).pipe(Effect.provide(NodeContext.layer))

describe("prompt packs in a run", () => {
  it.effect("en prints the English markers", () =>
    Effect.gen(function*() {
      const { prediction, outputs, firstAgent } = yield* runWith("en")
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.prediction, "C")
      for (
        const marker of [
          "[Node]",
          "| Event |",
          "[Summary]",
          "[Verified]",
          "[Entities]",
          "[Children]",
          "★★",
          "[Search results]",
          "[Subtitle context]",
          "[Visual observation]",
          "[Check]",
          "[ok] answer submitted: C",
          "[Tool error]"
        ]
      ) {
        assert.include(outputs, marker)
      }
      assert.notInclude(outputs, "[节点]")
      assert.include(firstAgent.messages[1]!.content, "vid_L1_000")
    }))

  it.effect("zh prints the original Chinese markers", () =>
    Effect.gen(function*() {
      const { prediction, outputs } = yield* runWith("zh")
      assert.strictEqual(prediction.stopReason, "finished")
      for (
        const marker of [
          "[节点]",
          "| 事件 |",
          "[内容摘要]",
          "[核实]",
          "[实体]",
          "[子节点概览]",
          "★★",
          "[搜索结果]",
          "[字幕上下文]",
          "[视觉观察]",
          "[验证]",
          "[ok] 答案已提交: C"
        ]
      ) {
        assert.include(outputs, marker)
      }
      assert.notInclude(outputs, "[Node]")
    }))
})
