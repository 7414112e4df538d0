import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { LlmConfig } from "../../../src/config/ProviderConfig.js"
import { chatBody } from "../../../src/layers/openai/OpenAiLlm.js"
import { endpoint, readReply, readStream } from "../../support/providers/ChatReplies.js"

const config: LlmConfig = {
  agent: endpoint,
  tool: endpoint,
  thinking: "none",
  reliability: { concurrency: 1, retries: 0 }
}

describe("native tool calls on the wire", () => {
  it("sends tools as OpenAI function definitions and the history's calls and tool answers in the wire form", () => {
    const body = chatBody(config, {
      role: "agent",
      messages: [
        { role: "system", content: "sys" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "view_node", arguments: "{\"node_id\":\"v_L1_000\"}" }]
        },
        { role: "tool", toolCallId: "call_1", content: "[Node] v_L1_000" },
        { role: "assistant", content: "plain" }
      ],
      tools: [{ name: "view_node", description: "Reads one node", parameters: { type: "object", properties: {} } }]
    })
    assert.deepStrictEqual(body["tools"], [
      {
        type: "function",
        function: { name: "view_node", description: "Reads one node", parameters: { type: "object", properties: {} } }
      }
    ])
    assert.deepStrictEqual(body["messages"], [
      { role: "system", content: "sys" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_1",
          type: "function",
          function: { name: "view_node", arguments: "{\"node_id\":\"v_L1_000\"}" }
        }]
      },
      { role: "tool", tool_call_id: "call_1", content: "[Node] v_L1_000" },
      { role: "assistant", content: "plain" }
    ])
    assert.isFalse("tools" in chatBody(config, { role: "agent", messages: [] }))
  })

  it("reads tool_calls off a reply: empty content is then no failure, object arguments become JSON text, a missing id gets one", () => {
    const reply = readReply({
      model: "m",
      choices: [{
        message: {
          content: null,
          reasoning_content: "look first",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "view_node", arguments: "{\"node_id\":\"x\"}" } },
            { type: "function", function: { name: "submit_answer", arguments: { answer: "B" } } }
          ]
        },
        finish_reason: "tool_calls"
      }],
      usage: { prompt_tokens: 5, completion_tokens: 2 }
    })
    assert.deepStrictEqual(
      reply,
      Either.right({
        content: "",
        reasoning: "look first",
        toolCalls: [
          { id: "call_a", name: "view_node", arguments: "{\"node_id\":\"x\"}" },
          { id: "call_1", name: "submit_answer", arguments: "{\"answer\":\"B\"}" }
        ],
        usage: { promptTokens: 5, completionTokens: 2 },
        model: "m"
      })
    )
    // Neither content nor a call is still a BadResponse.
    assert.isTrue(
      Either.isLeft(readReply({ choices: [{ message: { content: "", tool_calls: [] }, finish_reason: "stop" }] }))
    )
    // A call without a function name is a reply of the wrong shape.
    const bad = readReply({ choices: [{ message: { tool_calls: [{ id: "c", function: { arguments: "{}" } }] } }] })
    assert.isTrue(Either.isLeft(bad) && bad.left.message.includes("tool_calls.0.function.name"))
  })

  it("joins streamed tool-call pieces per index: the name once, the argument text in order", () => {
    const chunks = [
      { model: "m", choices: [{ delta: { role: "assistant", content: "{\"reflect\": {}}" } }] },
      {
        model: "m",
        choices: [{
          delta: {
            tool_calls: [{ index: 0, id: "call_x", type: "function", function: { name: "view_node", arguments: "" } }]
          }
        }]
      },
      { model: "m", choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "{\"node_" } }] } }] },
      { model: "m", choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "id\": \"v\"}" } }] } }] },
      {
        model: "m",
        choices: [{
          delta: { tool_calls: [{ index: 1, id: "call_y", function: { name: "submit_answer", arguments: "{}" } }] }
        }]
      },
      { model: "m", choices: [{ delta: {}, finish_reason: "tool_calls" }] },
      { model: "m", choices: [], usage: { prompt_tokens: 7, completion_tokens: 4 } }
    ]
    assert.deepStrictEqual(
      readStream(chunks),
      Either.right({
        content: "{\"reflect\": {}}",
        toolCalls: [
          { id: "call_x", name: "view_node", arguments: "{\"node_id\": \"v\"}" },
          { id: "call_y", name: "submit_answer", arguments: "{}" }
        ],
        usage: { promptTokens: 7, completionTokens: 4 },
        model: "m"
      })
    )
  })
})
