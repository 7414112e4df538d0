// The agent loop with `protocol: "tools"`: steps are native function calls, the notes are message text,
// and every loop rule of the JSON protocol still holds.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, JSONSchema, Layer, type Schema, TestClock } from "effect"
import fc from "fast-check"
import { ObserveFrameArgs, SubmitAnswerArgs, ViewNodeArgs } from "../../../src/domain/Protocol.js"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { type LlmReply, toolCallReply } from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { parseToolCall } from "../../../src/programs/agent/Parse.js"
import { type QuestionInput, runQuestion, type RunQuestionOptions } from "../../../src/programs/agent/RunQuestion.js"
import { call, scriptFor } from "../../support/agent/Fakes.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"
import { mutate, mutations } from "../../support/agent/Mutations.js"
import { testPrompts } from "../../support/agent/Prompts.js"

const question: QuestionInput = {
  questionId: "q1",
  question: "How many tomatoes does the cook add?",
  options: ["A. One", "B. Two", "C. Three", "D. Four"],
  taskType: "Counting Problem"
}

const notes = JSON.stringify({ reflect: { learned: "scene 1 is the kitchen" }, plan: { next: "answer" } })
const submitCall = (answer: string) =>
  toolCallReply([["submit_answer", { answer, evidence: "frame 2", reasoning: "counted" }]], { content: notes })

const setup = (agent: ReadonlyArray<LlmReply>, options: Partial<RunQuestionOptions> = {}) =>
  Effect.gen(function*() {
    const llm = yield* ScriptedLlm.make(scriptFor(agent))
    const vlm = yield* ScriptedVlm.make(() => "three red tomatoes")
    const program = runQuestion(question, sampleTree(), { prompts: testPrompts(), protocol: "tools", ...options }).pipe(
      Effect.provide(Layer.merge(llm.layer, vlm.layer))
    )
    const agentRequests = Effect.map(llm.requests, (requests) => requests.filter((request) => request.role === "agent"))
    return { program, agentRequests }
  })

const withoutDraft = <A, I>(schema: Schema.Schema<A, I>) => {
  const { $schema: _, ...rest } = JSONSchema.make(schema)
  return rest
}

describe("AgentLoop, tools protocol", () => {
  it.effect("offers the tools as functions whose schemas are the dispatcher's, and answers each call by its id", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([
        toolCallReply([["view_node", { node_id: "vid_L1_000" }]], {
          content: notes,
          reasoning: "look at the kitchen first"
        }),
        submitCall("C")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.stepsUsed, 2)
      assert.strictEqual(prediction.prediction, "C")
      assert.deepStrictEqual(prediction.steps.map((step) => step.tool), ["view_node", "submit_answer"])
      const [first, second] = prediction.steps
      assert.strictEqual(first!.thought, "look at the kitchen first")
      assert.deepStrictEqual(first!.reflect, { learned: "scene 1 is the kitchen" })
      assert.deepStrictEqual(first!.plan, { next: "answer" })
      assert.deepStrictEqual(first!.replyShapes, ["function-call"])
      assert.include(first!.raw, "\"tool_calls\"")
      assert.strictEqual(second!.output, "[ok] answer submitted: C")

      const requests = yield* agentRequests
      const tools = requests[0]!.tools!
      assert.deepStrictEqual(tools.map((tool) => tool.name), [
        "view_node",
        "search_similar",
        "observe_frame",
        "submit_answer"
      ])
      assert.deepStrictEqual(tools[0]!.parameters, withoutDraft(ViewNodeArgs))
      assert.deepStrictEqual(tools[2]!.parameters, withoutDraft(ObserveFrameArgs))
      assert.deepStrictEqual(tools[3]!.parameters, withoutDraft(SubmitAnswerArgs))
      assert.isTrue(tools.every((tool) => tool.description !== ""))
      const system = requests[0]!.messages[0]!
      assert.isTrue(system.role === "system" && system.content.endsWith("TOOLS-PROTOCOL\n"))
      // The call stays in the history and its output answers it by id.
      const history = requests[1]!.messages
      const assistant = history.at(-2)!
      assert.isTrue(assistant.role === "assistant" && assistant.toolCalls?.[0]?.id === "call_1")
      const answer = history.at(-1)!
      assert.isTrue(answer.role === "tool" && answer.toolCallId === "call_1")
      assert.strictEqual(answer.content, first!.output)
      assert.isFalse(history.some((message) => message.content.includes("look at the kitchen first")))
    }))

  it.effect("a reply without a call gets the corrective message and counts as a parse failure; three end the question", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([
        call("view_node", { node_id: "vid_L1_000" }),
        "I would look at the kitchen",
        { content: "", toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 }, model: "m" }
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "parse_error")
      assert.strictEqual(prediction.stepsUsed, 0)
      assert.strictEqual(prediction.stats.parseFailures, 3)
      assert.include(prediction.error!, "the reply has no tool call")
      const second = (yield* agentRequests)[1]!.messages.at(-1)!
      assert.deepStrictEqual(second, { role: "user", content: "NO-TOOL-CALL (the reply has no tool call)" })
    }))

  it.effect("arguments that are no JSON object answer the call with a tool error; a cut-off object is repaired", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([
        toolCallReply([["view_node", "[\"vid_L1_000\"]"]]),
        toolCallReply([["view_node", "{\"node_id\": \"vid_L1_000\""]]),
        submitCall("B")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.stepsUsed, 2)
      assert.strictEqual(prediction.stats.parseFailures, 1)
      assert.deepStrictEqual(prediction.steps[0]!.args, { node_id: "vid_L1_000" })
      assert.deepStrictEqual(prediction.steps[0]!.replyShapes, ["function-call", "repaired"])
      const corrective = (yield* agentRequests)[1]!.messages.at(-1)!
      assert.deepStrictEqual(corrective, {
        role: "tool",
        toolCallId: "call_1",
        content: "[Tool error] the arguments of \"view_node\" are not a JSON object"
      })
    }))

  it.effect("of several calls the first is the step, and only it stays in the history", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([
        toolCallReply([["view_node", { node_id: "vid_L1_000" }], ["submit_answer", { answer: "A" }]]),
        submitCall("C")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stepsUsed, 2)
      assert.strictEqual(prediction.prediction, "C")
      assert.deepStrictEqual(prediction.steps[0]!.replyShapes, ["function-call", "first-of-several"])
      const assistant = (yield* agentRequests)[1]!.messages.at(-2)!
      assert.isTrue(assistant.role === "assistant" && assistant.toolCalls?.length === 1)
    }))

  it.effect("unknown functions are not steps, are answered by id, and are bounded", () =>
    Effect.gen(function*() {
      const unknown = toolCallReply([["watch_video", { minute: 3 }]])
      const { agentRequests, program } = yield* setup([unknown, unknown, unknown], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.strictEqual(prediction.stepsUsed, 0)
      assert.strictEqual(prediction.stats.unknownTools, 2)
      const answer = (yield* agentRequests)[1]!.messages.at(-1)!
      assert.isTrue(answer.role === "tool" && answer.toolCallId === "call_1")
      assert.include(answer.content, "[Tool error] unknown tool \"watch_video\"; available: view_node")
    }))

  it.effect("a transient error is retried after 20 s, and every call counts in the usage", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([
        new ProviderError({ provider: "scripted", reason: "RateLimited", message: "slow down" }),
        submitCall("D")
      ])
      const fiber = yield* Effect.fork(program)
      yield* TestClock.adjust("19999 millis")
      assert.strictEqual((yield* agentRequests).length, 1)
      yield* TestClock.adjust("1 millis")
      const prediction = yield* Fiber.join(fiber)
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.prediction, "D")
      assert.strictEqual(prediction.usage.agent.calls, 2)
      const records = yield* (yield* MemoryCallLog).entries
      assert.strictEqual(
        prediction.usage.agent.completionTokens,
        records.filter((record) => record.role === "agent").reduce((sum, record) => sum + record.completionTokens, 0)
      )
      assert.isAbove(prediction.usage.agent.completionTokens, 0)
    }).pipe(Effect.provide(MemoryCallLog.layer)))

  it.effect("the final-answer call offers submit_answer alone, after the last call was answered by its id", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([
        toolCallReply([["view_node", { node_id: "vid_L1_000" }]], { content: notes }),
        submitCall("B")
      ], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.strictEqual(prediction.forced, true)
      assert.strictEqual(prediction.prediction, "B")
      const requests = yield* agentRequests
      assert.strictEqual(requests[0]!.tools!.length, 4)
      assert.deepStrictEqual(requests[1]!.tools!.map((tool) => tool.name), ["submit_answer"])
      const [answered, note] = requests[1]!.messages.slice(-2)
      assert.isTrue(answered!.role === "tool" && answered!.toolCallId === "call_1")
      assert.deepStrictEqual(note, { role: "user", content: "FINAL-ANSWER-CALL: call submit_answer now." })
    }))

  it.effect("a final reply calling no function leaves the question unanswered", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([
        toolCallReply([["view_node", { node_id: "vid_L1_000" }]], { content: notes }),
        "The answer is B."
      ], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.isNull(prediction.prediction)
      assert.isUndefined(prediction.forced)
      assert.include(prediction.error!, "the reply has no tool call")
    }))

  it.effect("the json protocol offers no tools and keeps the system prompt as the pack wrote it", () =>
    Effect.gen(function*() {
      const { agentRequests, program } = yield* setup([call("submit_answer", { answer: "C" })], { protocol: "json" })
      assert.strictEqual((yield* program).prediction, "C")
      const [request] = yield* agentRequests
      assert.isUndefined(request!.tools)
      assert.notInclude(request!.messages[0]!.content, "TOOLS-PROTOCOL")
    }))
})

describe("parseToolCall", () => {
  it("reads notes as JSON or prose, think blocks as the thought, and names what is wrong", () => {
    const json = parseToolCall(notes, { name: "view_node", arguments: "{\"node_id\": \"x\"}" }, 1)
    assert.deepStrictEqual(json, {
      _tag: "Parsed",
      reply: {
        reflect: { learned: "scene 1 is the kitchen" },
        plan: { next: "answer" },
        action: { tool: "view_node", args: { node_id: "x" } }
      },
      shapes: ["function-call"]
    })
    const prose = parseToolCall("<think>scene first</think>Scene 1 looks right.", {
      name: " view_node ",
      arguments: ""
    }, 1)
    assert.deepStrictEqual(prose, {
      _tag: "Parsed",
      reply: { reflect: { text: "Scene 1 looks right." }, plan: {}, action: { tool: "view_node", args: {} } },
      shapes: ["think-stripped", "function-call"],
      thought: "scene first"
    })
    const other = parseToolCall("{\"confidence\": 0.4}", { name: "view_node", arguments: "{}" }, 1)
    assert.isTrue(other._tag === "Parsed" && other.reply.reflect["confidence"] === 0.4)
    assert.deepStrictEqual(parseToolCall("", { name: "", arguments: "{}" }, 1), {
      _tag: "Unparseable",
      reason: "the tool call names no function"
    })
    assert.deepStrictEqual(parseToolCall("", { name: "view_node", arguments: "42" }, 1), {
      _tag: "Unparseable",
      reason: "the arguments of \"view_node\" are not a JSON object"
    })
  })

  it("never throws over mutated notes and arguments, and what it accepts has a tool and object args", () => {
    const inserts = ["{", "}", "\"", "<think>", "</think>", "[", "\\", ","]
    fc.assert(
      fc.property(mutations(inserts, 6), mutations(inserts, 6), (noteChanges, argChanges) => {
        const parsed = parseToolCall(mutate(notes, noteChanges), {
          name: "view_node",
          arguments: mutate("{\"node_id\": \"vid_L1_000\"}", argChanges)
        }, 1)
        if (parsed._tag === "Parsed") {
          assert.strictEqual(parsed.reply.action.tool, "view_node")
          assert.isTrue(typeof parsed.reply.action.args === "object" && !Array.isArray(parsed.reply.action.args))
        } else {
          assert.isAbove(parsed.reason.length, 0)
        }
      }),
      { numRuns: 300 }
    )
  })
})
