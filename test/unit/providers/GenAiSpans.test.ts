// The GenAI conventions vtree's spans follow, checked without an exporter: which token counts each operation's
// span carries, the breakdown read off a reply's usage block, and when an agent run is a nested invocation.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { usageAttributes } from "../../../src/services/GenAiConventions.js"
import { withInvokeAgentSpan, workflowSpan } from "../../../src/services/Telemetry.js"
import { readReply } from "../../support/providers/ChatReplies.js"

const call = {
  promptTokens: 300,
  completionTokens: 50,
  cachedPromptTokens: 40,
  reasoningTokens: 8,
  tokenBreakdown: { cacheWriteInput: 10, textInput: 100, imageInput: 200, textOutput: 50 }
}

describe("GenAI span conventions", () => {
  it("puts cache, reasoning and per-modality counts on inference spans only, and only input on embeddings", () => {
    assert.deepStrictEqual(usageAttributes("chat", call), {
      "gen_ai.usage.input_tokens": 300,
      "gen_ai.usage.output_tokens": 50,
      "gen_ai.usage.cache_read.input_tokens": 40,
      "gen_ai.usage.reasoning.output_tokens": 8,
      "gen_ai.usage.cache_write.input_tokens": 10,
      "gen_ai.usage.text.input_tokens": 100,
      "gen_ai.usage.image.input_tokens": 200,
      "gen_ai.usage.text.output_tokens": 50
    })
    assert.deepStrictEqual(usageAttributes("generate_content", { promptTokens: 0, completionTokens: 0 }), {
      "gen_ai.usage.input_tokens": 0,
      "gen_ai.usage.output_tokens": 0
    })
    assert.deepStrictEqual(usageAttributes("embeddings", call), { "gen_ai.usage.input_tokens": 300 })
    assert.deepStrictEqual(usageAttributes("invoke_agent", call), {
      "gen_ai.usage.input_tokens": 300,
      "gen_ai.usage.output_tokens": 50
    })
  })

  it("reads cache writes and counts by modality from a reply's usage details, absent when none is reported", () => {
    const breakdownOf = (usage: unknown) => {
      const reply = readReply({ model: "m", choices: [{ message: { content: "x" } }], usage })
      return Either.isRight(reply) ? reply.right.tokenBreakdown : reply.left.message
    }
    // DashScope's vision models and explicit cache.
    assert.deepStrictEqual(
      breakdownOf({
        prompt_tokens: 1300,
        completion_tokens: 40,
        prompt_tokens_details: {
          cached_tokens: 0,
          cache_creation_input_tokens: 1024,
          text_tokens: 276,
          image_tokens: 1024
        },
        completion_tokens_details: { text_tokens: 40 }
      }),
      { cacheWriteInput: 1024, textInput: 276, imageInput: 1024, textOutput: 40 }
    )
    // OpenAI's audio counts.
    assert.deepStrictEqual(
      breakdownOf({
        prompt_tokens: 90,
        completion_tokens: 30,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 20 }
      }),
      { audioInput: 60, audioOutput: 20 }
    )
    assert.isUndefined(
      breakdownOf({ prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 3 } })
    )
    assert.isUndefined(breakdownOf({ prompt_tokens: 5, completion_tokens: 1 }))
  })

  const agentSpan = withInvokeAgentSpan({ "vtree.question_id": "q1" })(Effect.currentSpan)

  it.effect("an agent run inside a workflow is nested; one outside any invocation is not", () =>
    Effect.gen(function*() {
      const alone = yield* agentSpan
      assert.strictEqual(alone.name, "invoke_agent vtree")
      assert.strictEqual(alone.attributes.get("gen_ai.invocation.is_nested"), false)
      assert.strictEqual(alone.attributes.get("vtree.question_id"), "q1")

      const [workflow, inside] = yield* Effect.gen(function*() {
        return [yield* Effect.currentSpan, yield* Effect.withSpan(agentSpan, "Infer.answerAll")] as const
      }).pipe(Effect.withSpan(...workflowSpan("vtree infer")))
      assert.strictEqual(workflow.name, "invoke_workflow vtree infer")
      assert.strictEqual(workflow.attributes.get("gen_ai.invocation.is_nested"), false)
      assert.strictEqual(workflow.attributes.get("langfuse.observation.type"), "chain")
      assert.strictEqual(inside.attributes.get("gen_ai.invocation.is_nested"), true)
      assert.strictEqual(inside.attributes.get("openinference.span.kind"), "AGENT")

      // MCP's video_ask: under a tools/call span (execute_tool), which is no invocation.
      const underTool = yield* Effect.withSpan(agentSpan, "tools/call video_ask", {
        attributes: { "gen_ai.operation.name": "execute_tool" }
      })
      assert.strictEqual(underTool.attributes.get("gen_ai.invocation.is_nested"), false)
    }))
})
