// The agent on an open-ended question (no options), in both protocols: its submit_answer carries free text,
// kept whole, with no letter read from it; the final-answer call after the step budget works the same.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, JSONSchema, Layer } from "effect"
import { answerTextOf } from "../../../src/domain/Answer.js"
import { SubmitAnswerArgs } from "../../../src/domain/Protocol.js"
import { Agent } from "../../../src/index.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { toolCallReply } from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { type QuestionInput, runQuestion, type RunQuestionOptions } from "../../../src/programs/agent/RunQuestion.js"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import { call, scriptFor } from "../../support/agent/Fakes.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"

const question: QuestionInput = { questionId: "open-1", question: "What does the cook add last?", options: [] }

// Several lines, quotes, a letter-like start and CJK: kept exactly as sent.
const freeText = "B-grade salt, then \"a pinch\" of pepper.\nLast: 葱花 (spring onion) — seen at 0:04:10."

const notes = JSON.stringify({ reflect: { seen: "the end" }, plan: { next: "answer" } })

const run = (agent: ReadonlyArray<ScriptedLlm.LlmReply>, options: Partial<RunQuestionOptions> = {}) =>
  Effect.gen(function*() {
    const prompts = yield* loadPromptManager(packagedPromptsDir("en"))
    const llm = yield* ScriptedLlm.make(scriptFor(agent))
    const vlm = yield* ScriptedVlm.make(() => "a pinch of salt")
    const prediction = yield* runQuestion(question, sampleTree(), { prompts, ...options }).pipe(
      Effect.provide(Layer.merge(llm.layer, vlm.layer))
    )
    const requests = (yield* llm.requests).filter((request) => request.role === "agent")
    return { prediction, requests, prompts }
  }).pipe(Effect.provide(NodeContext.layer))

describe("the agent on an open-ended question", () => {
  it.effect("json protocol: the free-text answer is kept whole, no letter read, and the prompt says to answer in words", () =>
    Effect.gen(function*() {
      const { prediction, prompts, requests } = yield* run([
        call("submit_answer", { answer: freeText, evidence: "vid_L1_000", reasoning: "the last event" })
      ])
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.answer, freeText)
      assert.strictEqual(prediction.prediction, null)
      assert.deepStrictEqual(answerTextOf(prediction.answer, 0), {
        answerText: freeText,
        answerForm: "free"
      })
      const [system, user] = requests[0]!.messages
      assert.include(system!.content, "answer in words")
      assert.include(user!.content, prompts.labels.openQuestion)
    }))

  it.effect("tools protocol: submit_answer's schema takes any text and its description says so", () =>
    Effect.gen(function*() {
      const { prediction, requests } = yield* run([
        toolCallReply([["submit_answer", { answer: freeText, evidence: "vid_L1_000" }]], { content: notes })
      ], { protocol: "tools" })
      assert.strictEqual(prediction.answer, freeText)
      assert.strictEqual(prediction.prediction, null)
      const submit = requests[0]!.tools!.find((tool) => tool.name === "submit_answer")!
      const { $schema: _, ...expected } = JSONSchema.make(SubmitAnswerArgs)
      assert.deepStrictEqual(submit.parameters, expected)
      assert.deepStrictEqual((submit.parameters as { properties: Record<string, unknown> }).properties["answer"], {
        type: "string"
      })
      assert.include(submit.description, "in words")
    }))

  it.effect("the library's Agent.runQuestion takes a question with no options at all", () =>
    Effect.gen(function*() {
      const prompts = yield* loadPromptManager(packagedPromptsDir("zh"))
      const llm = yield* ScriptedLlm.make(scriptFor([call("submit_answer", { answer: freeText })]))
      const vlm = yield* ScriptedVlm.make(() => "unused")
      const prediction = yield* Agent.runQuestion(
        { questionId: "api-1", question: "最后加了什么？" },
        sampleTree(),
        { prompts }
      ).pipe(Effect.provide(Layer.merge(llm.layer, vlm.layer)))
      assert.deepStrictEqual([prediction.answer, prediction.prediction], [freeText, null])
      assert.strictEqual(Agent.answerFormOf(prediction.answer!, 0), "free")
      const [, user] = (yield* llm.requests).find((request) => request.role === "agent")!.messages
      assert.include(user!.content, prompts.labels.openQuestion)
    }).pipe(Effect.provide(NodeContext.layer)))

  for (const protocol of ["json", "tools"] as const) {
    it.effect(`${protocol} protocol: the final-answer call after the step budget takes a free-text answer, forced`, () =>
      Effect.gen(function*() {
        const look = protocol === "json"
          ? call("view_node", { node_id: "vid_L1_000" })
          : toolCallReply([["view_node", { node_id: "vid_L1_000" }]], { content: notes })
        const answer = protocol === "json"
          ? call("submit_answer", { answer: freeText })
          : toolCallReply([["submit_answer", { answer: freeText }]], { content: notes })
        const { prediction, requests } = yield* run([look, answer], { protocol, maxSteps: 1 })
        assert.strictEqual(prediction.stopReason, "budget_exceeded")
        assert.isTrue(prediction.forced === true)
        assert.strictEqual(prediction.answer, freeText)
        assert.strictEqual(prediction.prediction, null)
        const last = requests[1]!.messages.at(-1)!.content
        assert.include(last, "for an open question, your answer in words")
      }))
  }
})
