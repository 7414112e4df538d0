// video_ask with an open-ended question (issue 41, item 4): no choices, the agent told to answer in words,
// its answer returned whole with no option letter.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import type { LLMProvider } from "../../../src/services/LLMProvider.js"
import { askTools, noVlm, question, viewNode } from "../../support/mcp/AskAgent.js"
import { type CallResult, type Era, eras, sdkClient } from "../../support/mcp/SdkClient.js"

const freeText = "Rice, steamed in a black pot.\nSeen at 0:01:10 — \"B\" is only the pot's label."

const submitting = (answer: string) =>
  JSON.stringify({ action: { tool: "submit_answer", args: { answer, evidence: "scene 0" } } })

/** The agent views the first scene, then submits `answer`. */
const script = (answer: string) => {
  let agentCalls = 0
  return ScriptedLlm.make((request) => {
    if (request.role !== "agent") return "a summary"
    agentCalls += 1
    return agentCalls === 1 ? viewNode(0) : submitting(answer)
  })
}

const askOnce = (era: Era, llm: Layer.Layer<LLMProvider>, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const tools = yield* askTools()
    const client = yield* sdkClient({ name: "vtree", version: "0", tools }, era)
    return (yield* Effect.promise(() => client.callTool({ name: "video_ask", arguments: args }))) as CallResult
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, llm, noVlm)))

describe.each(eras)("video_ask with an open-ended question (%s client)", (era) => {
  const open: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ["without options", { video_id: question.video_id, question: "What is cooked?" }],
    ["with empty choices", { ...question, options: { choices: [] } }]
  ]
  for (const [name, args] of open) {
    it.scoped(`${name}: the answer comes back whole, in words, with no option letter`, () =>
      Effect.gen(function*() {
        const llm = yield* script(freeText)
        const result = yield* askOnce(era, llm.layer, args)
        assert.isFalse(result.isError)
        const body = result.structuredContent!
        assert.strictEqual(body.status, "finished")
        assert.strictEqual(body.answer, freeText)
        assert.isNull(body.option)
        assert.strictEqual(body.answer_form, "free")
        const agent = (yield* llm.requests).filter((request) => request.role === "agent")
        assert.include(agent[0]!.messages[1]!.content, "What is cooked?")
      }))
  }

  it.scoped("with choices the answer is read as a letter as before, its form said", () =>
    Effect.gen(function*() {
      const llm = yield* script("The answer is B")
      const body = (yield* askOnce(era, llm.layer, question)).structuredContent!
      assert.deepStrictEqual([body.option, body.answer, body.answer_form], ["B", "The answer is B", "extracted"])
    }))
})
