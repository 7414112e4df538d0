// Native function calling through the real SDK against openai-sim: whole replies and streamed ones
// (DashScope thinking is streamed), the request's tools and the history's calls on the wire.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"
import { type ChatRequest, LLMProvider } from "../../../src/services/LLMProvider.js"
import { llmConfig, withSim } from "./support.js"

const request: ChatRequest = {
  role: "agent",
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "question" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_0", name: "view_node", arguments: "{\"node_id\":\"a\"}" }]
    },
    { role: "tool", toolCallId: "call_0", content: "[Node] a" }
  ],
  tools: [{
    name: "submit_answer",
    description: "Submit",
    parameters: { type: "object", properties: { answer: { type: "string" } } }
  }]
}

const reply = {
  content: "{\"reflect\": {\"seen\": \"a\"}}",
  reasoning: "enough",
  toolCalls: [{
    id: "call_9",
    name: "submit_answer",
    arguments: { answer: "C", evidence: "node a holds the answer to the question" }
  }]
}

const expected = {
  content: "{\"reflect\": {\"seen\": \"a\"}}",
  reasoning: "enough",
  toolCalls: [{
    id: "call_9",
    name: "submit_answer",
    arguments: "{\"answer\":\"C\",\"evidence\":\"node a holds the answer to the question\"}"
  }]
}

describe("OpenAiLlm tool calls against openai-sim", () => {
  for (const thinking of ["none", "dashscope"] as const) {
    it.scoped(`sends tools and the call history, reads tool_calls back (${thinking === "none" ? "whole" : "streamed"})`, () =>
      Effect.gen(function*() {
        const sim = yield* withSim({ chat: { "agent-model": [reply] } })
        const response = yield* Effect.flatMap(LLMProvider, (llm) => llm.chat(request)).pipe(
          Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { thinking })))
        )
        assert.deepStrictEqual({
          content: response.content,
          reasoning: response.reasoning,
          toolCalls: response.toolCalls
        }, expected)
        const body = sim.requests[0]!.body
        assert.strictEqual(body["stream"] === true, thinking === "dashscope")
        assert.deepStrictEqual(body["tools"], [{ type: "function", function: request.tools![0] }])
        const messages = body["messages"] as ReadonlyArray<Record<string, unknown>>
        assert.deepStrictEqual(messages.slice(2), [
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "call_0",
              type: "function",
              function: { name: "view_node", arguments: "{\"node_id\":\"a\"}" }
            }]
          },
          { role: "tool", tool_call_id: "call_0", content: "[Node] a" }
        ])
      }))
  }
})
