import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, TestClock } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import type { LlmReply } from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { AgentObserver, makeObserver } from "../../../src/programs/agent/Observer.js"
import { type QuestionInput, runQuestion, type RunQuestionOptions } from "../../../src/programs/agent/RunQuestion.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import { call, scriptFor, submit, toolModel } from "../../support/agent/Fakes.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"
import { testPrompts } from "../../support/agent/Prompts.js"

const question: QuestionInput = {
  questionId: "q1",
  question: "How many tomatoes does the cook add?",
  options: ["A. One", "B. Two", "C. Three", "D. Four"],
  taskType: "Counting Problem"
}

const transient = (reason: "RateLimited" | "Server" | "Timeout" | "Transport") =>
  new ProviderError({ provider: "scripted", reason, message: `${reason} from the fake` })

const setup = (
  agent: ReadonlyArray<LlmReply>,
  options: Partial<RunQuestionOptions> & { readonly tool?: (request: ChatRequest) => LlmReply } = {}
) =>
  Effect.gen(function*() {
    const llm = yield* ScriptedLlm.make(scriptFor(agent, options.tool ?? toolModel))
    const vlm = yield* ScriptedVlm.make(() => "a red tomato")
    const program = runQuestion(question, sampleTree(), { prompts: testPrompts(), ...options }).pipe(
      Effect.provide(Layer.merge(llm.layer, vlm.layer))
    )
    return { program, llm }
  })

const agentRequests = (llm: ScriptedLlm.ScriptedLlm) =>
  Effect.map(llm.requests, (requests) => requests.filter((request) => request.role === "agent"))

describe("AgentLoop", () => {
  it.effect("accepts fenced replies and flat args, and finishes with the normalized letter", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup([
        "```json\n" + JSON.stringify({ action: { tool: "view_node", node_id: "vid_L1_000_L2_001" } }) + "\n```",
        call("submit_answer", { answer: "The best answer is C." })
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.stepsUsed, 2)
      assert.deepStrictEqual(prediction.steps.map((step) => step.tool), ["view_node", "submit_answer"])
      assert.deepStrictEqual(prediction.steps[0]!.args, { node_id: "vid_L1_000_L2_001" })
      assert.deepStrictEqual(prediction.steps[0]!.reflect, {})
      assert.include(prediction.steps[0]!.output, "[Node] vid_L1_000_L2_001 | Event | 120-300s")
      assert.strictEqual(prediction.answer, "The best answer is C.")
      assert.strictEqual(prediction.prediction, "C")
      assert.include(prediction.steps[1]!.output, "[ok] answer submitted: The best answer is C.")
      // The tool result is what the agent reads next.
      const second = (yield* agentRequests(llm))[1]!
      assert.strictEqual(second.messages.at(-1)!.content, prediction.steps[0]!.output)
      assert.strictEqual(second.thinking, true)
    }))

  it.effect("three unparseable replies in a row end with parse_error and no steps", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup(["I think it is C", "{\"plan\": {}}", "```\nnope\n```"])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "parse_error")
      assert.strictEqual(prediction.stepsUsed, 0)
      assert.strictEqual(prediction.stats.parseFailures, 3)
      assert.isNull(prediction.prediction)
      const requests = yield* agentRequests(llm)
      assert.strictEqual(requests.length, 3)
      assert.strictEqual(
        requests[1]!.messages.at(-1)!.content,
        "PARSE-ERROR (no JSON object found): reply with one JSON object."
      )
    }))

  it.effect("garbage, garbage, valid continues, and the failure counter resets on success", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([
        "garbage",
        "more garbage",
        call("view_node", { node_id: "vid_L1_000" }),
        "garbage again",
        "and again",
        submit("C")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.stepsUsed, 2)
      assert.strictEqual(prediction.stats.parseFailures, 4)
      assert.deepStrictEqual(prediction.steps.map((step) => step.index), [1, 2])
    }))

  it.effect("the corrective message names what was wrong with the reply", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup([
        "{\"reflect\": {}, \"plan\": {}, \"action\": {\"args\": {\"answer\": \"C\"}}}",
        submit("C")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      const corrective = (yield* agentRequests(llm))[1]!.messages.at(-1)!.content
      assert.include(corrective, "missing action.tool")
    }))

  it.effect("reasoning in think tags becomes the step's thought when the endpoint sent none apart", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([
        `<think>The count needs the event, not one frame.</think>\n${call("view_node", { node_id: "vid_L1_000" })}`,
        submit("C")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.steps[0]!.tool, "view_node")
      assert.strictEqual(prediction.steps[0]!.thought, "The count needs the event, not one frame.")
      assert.deepStrictEqual(prediction.steps[0]!.replyShapes, ["think-stripped"])
      assert.deepStrictEqual(prediction.steps[1]!.replyShapes, ["clean"])
    }))

  it.effect("unknown tools are not steps, get a corrective message, and are bounded", () =>
    Effect.gen(function*() {
      const unknown = call("watch_video", { minute: 3 })
      const { program, llm } = yield* setup([unknown, unknown, unknown, unknown, unknown], {
        maxSteps: 3,
        finalAnswer: false
      })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.strictEqual(prediction.stepsUsed, 0)
      assert.strictEqual(prediction.stats.unknownTools, 4)
      const requests = yield* agentRequests(llm)
      assert.strictEqual(requests.length, 4)
      assert.strictEqual(
        requests[1]!.messages.at(-1)!.content,
        "UNKNOWN-TOOL watch_video; use one of: view_node, search_similar, observe_frame, submit_answer"
      )
    }))

  it.effect("an unknown tool between valid calls does not use up a step", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([call("guess", {}), submit("B")], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.stepsUsed, 1)
      assert.strictEqual(prediction.prediction, "B")
    }))

  it.effect("a transient error twice then success waits exactly 20 s, then 40 s", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup([transient("RateLimited"), transient("Server"), submit("C")])
      const fiber = yield* Effect.fork(program)
      const calls = () => Effect.map(agentRequests(llm), (requests) => requests.length)
      yield* TestClock.adjust("19999 millis")
      assert.strictEqual(yield* calls(), 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* calls(), 2)
      yield* TestClock.adjust("39999 millis")
      assert.strictEqual(yield* calls(), 2)
      yield* TestClock.adjust("1 millis")
      const prediction = yield* Fiber.join(fiber)
      assert.strictEqual(yield* calls(), 3)
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.stepsUsed, 1)
      // Failed attempts are model calls too.
      assert.strictEqual(prediction.usage.agent.calls, 3)
    }))

  it.effect("three transient errors end with error", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup([transient("Timeout"), transient("Transport"), transient("RateLimited")])
      const fiber = yield* Effect.fork(program)
      yield* TestClock.adjust("60 seconds")
      const prediction = yield* Fiber.join(fiber)
      assert.strictEqual(prediction.stopReason, "error")
      assert.include(prediction.error!, "RateLimited")
      assert.strictEqual((yield* agentRequests(llm)).length, 3)
    }))

  it.effect("interruption is never caught: not during the retry wait, not turned into a prediction", () =>
    Effect.gen(function*() {
      const finished: Array<string> = []
      const observer = makeObserver({
        onFinish: (prediction) => Effect.sync(() => finished.push(prediction.stopReason))
      })
      const { program, llm } = yield* setup([transient("RateLimited"), submit("C")])
      const fiber = yield* Effect.fork(program.pipe(Effect.provideService(AgentObserver, observer)))
      yield* TestClock.adjust("10 seconds")
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.deepStrictEqual(finished, [])
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual((yield* agentRequests(llm)).length, 1)
    }))

  it.effect("a non-retryable error ends with error at once", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup([
        call("view_node", { node_id: "vid_L1_000" }),
        new ProviderError({ provider: "scripted", reason: "Auth", status: 401, message: "bad key" })
      ])
      const fiber = yield* Effect.fork(program)
      yield* TestClock.adjust("1 millis")
      const done = yield* Fiber.poll(fiber)
      assert.isTrue(Option.isSome(done), "finished without waiting for any delay")
      const prediction = yield* Fiber.join(fiber)
      assert.strictEqual(prediction.stopReason, "error")
      assert.strictEqual(prediction.error, "scripted: Auth: bad key")
      assert.strictEqual(prediction.stepsUsed, 1)
      assert.strictEqual((yield* agentRequests(llm)).length, 2)
    }))

  it.effect("without the final answer, running out of steps ends with budget_exceeded and no answer", () =>
    Effect.gen(function*() {
      const look = call("view_node", { node_id: "vid_L1_000" })
      const { llm, program } = yield* setup([look, look, look], { maxSteps: 3, finalAnswer: false })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.strictEqual(prediction.stepsUsed, 3)
      assert.isNull(prediction.answer)
      assert.isNull(prediction.prediction)
      assert.isUndefined(prediction.forced)
      assert.strictEqual((yield* agentRequests(llm)).length, 3)
    }))

  it.effect("when the steps run out, one more call asks for the answer: its letter is the prediction, forced", () =>
    Effect.gen(function*() {
      const look = call("view_node", { node_id: "vid_L1_000" })
      const { llm, program } = yield* setup([look, look, submit("The best answer is D.")], { maxSteps: 2 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.strictEqual(prediction.forced, true)
      assert.strictEqual(prediction.prediction, "D")
      assert.strictEqual(prediction.answer, "The best answer is D.")
      assert.strictEqual(prediction.evidence, "[\"the tomato frame\"]")
      assert.isNull(prediction.error)
      // The submission is recorded as the step it was, after the budget's.
      assert.deepStrictEqual(prediction.steps.map((step) => step.tool), ["view_node", "view_node", "submit_answer"])
      assert.strictEqual(prediction.stepsUsed, 3)
      const requests = yield* agentRequests(llm)
      assert.strictEqual(requests.length, 3)
      // The note rides in the same user turn as the last tool output: turns keep alternating.
      const last = requests[2]!.messages
      assert.strictEqual(last.at(-1)!.role, "user")
      assert.strictEqual(last.at(-2)!.role, "assistant")
      assert.strictEqual(
        last.at(-1)!.content,
        `${prediction.steps[1]!.output}\n\nFINAL-ANSWER: reply with submit_answer now.`
      )
      assert.notInclude(requests[1]!.messages.at(-1)!.content, "FINAL-ANSWER")
      assert.isUndefined(requests[2]!.tools)
      // The extra call is a model call like any other.
      assert.strictEqual(prediction.usage.agent.calls, 3)
    }))

  it.effect("a final reply that is not a submission runs nothing and leaves the question unanswered", () =>
    Effect.gen(function*() {
      const look = call("view_node", { node_id: "vid_L1_000" })
      const { llm, program } = yield* setup([look, look], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.isNull(prediction.prediction)
      assert.isUndefined(prediction.forced)
      assert.strictEqual(prediction.stepsUsed, 1)
      assert.include(prediction.error!, "not a submission: it called view_node")
      // One view_node ran (extract + verify rounds of the tool model); the final reply's did not.
      const toolRounds = (yield* llm.requests).filter((request) => request.role === "tool").length
      const { llm: once, program: oneStep } = yield* setup([look, submit("A")], { maxSteps: 2 })
      yield* oneStep
      assert.strictEqual(toolRounds, (yield* once.requests).filter((request) => request.role === "tool").length)
    }))

  it.effect("an unreadable final reply leaves the question unanswered, saying why", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([call("view_node", { node_id: "vid_L1_000" }), "C, I think"], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.isNull(prediction.prediction)
      assert.include(prediction.error!, "the final-answer reply was not a submission: no JSON object found")
    }))

  it.effect("a model stuck on unknown tools gets the final call too, and its submission counts, forced", () =>
    Effect.gen(function*() {
      const unknown = call("final_answer", { answer: "B" })
      const { llm, program } = yield* setup([unknown, unknown, unknown, submit("B")], { maxSteps: 2 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "budget_exceeded")
      assert.strictEqual(prediction.forced, true)
      assert.strictEqual(prediction.prediction, "B")
      assert.strictEqual(prediction.error, "more than 2 calls of unknown tools")
      const last = (yield* agentRequests(llm))[3]!.messages.at(-1)!
      assert.include(last.content, "UNKNOWN-TOOL final_answer")
      assert.include(last.content, "FINAL-ANSWER: reply with submit_answer now.")
    }))

  it.effect("a final call the endpoint keeps failing ends in error, like any agent call", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([
        call("view_node", { node_id: "vid_L1_000" }),
        new ProviderError({ provider: "scripted", reason: "BadRequest", status: 400, message: "too long" })
      ], { maxSteps: 1 })
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "error")
      assert.strictEqual(prediction.error, "scripted: BadRequest: too long")
      assert.isNull(prediction.prediction)
    }))

  it.effect("an answer naming no option letter is kept with prediction null", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([submit("none of them")])
      const prediction = yield* program
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.answer, "none of them")
      assert.isNull(prediction.prediction)
      assert.strictEqual(prediction.evidence, "[\"the tomato frame\"]")
      assert.strictEqual(prediction.reasoning, "counted them")
    }))

  it.effect("the reasoning text is recorded as thought and never sent back", () =>
    Effect.gen(function*() {
      const { program, llm } = yield* setup([
        {
          content: call("view_node", { node_id: "vid_L1_000" }),
          reasoning: "SECRET-THOUGHT",
          usage: { promptTokens: 10, completionTokens: 5 },
          model: "r1"
        },
        submit("C")
      ])
      const prediction = yield* program
      assert.strictEqual(prediction.steps[0]!.thought, "SECRET-THOUGHT")
      assert.isNull(prediction.steps[1]!.thought)
      const requests = yield* llm.requests
      assert.isFalse(requests.some((request) => request.messages.some((m) => m.content.includes("SECRET-THOUGHT"))))
    }))

  it.effect("bad args are a step with tool error text, not the end", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([call("view_node", { node: "x" }), submit("C")])
      const prediction = yield* program
      assert.strictEqual(prediction.stepsUsed, 2)
      assert.match(prediction.steps[0]!.output, /^\[Tool error\] view_node: .*node_id/s)
      assert.strictEqual(prediction.stats.badArgs, 1)
    }))

  it.effect("usage equals the sum over every model call the fakes saw, per role", () =>
    Effect.gen(function*() {
      const llm = yield* ScriptedLlm.make(scriptFor([
        call("search_similar", { query: "tomato sauce", k: 3 }),
        call("observe_frame", { node_ids: ["vid_L1_000_L2_001_L3_000"] }),
        call("view_node", { node_id: "vid_L1_000" }),
        submit("C")
      ]))
      const vlm = yield* ScriptedVlm.make((request) => `seen ${request.images.length} frames`)
      const prediction = yield* runQuestion(question, sampleTree(), { prompts: testPrompts() }).pipe(
        Effect.provide(Layer.mergeAll(llm.layer, vlm.layer))
      )
      const records = yield* (yield* MemoryCallLog).entries
      assert.isAbove(records.length, 8)
      for (const role of ["agent", "tool", "vlm", "embed", "ocr"] as const) {
        const mine = records.filter((record) => record.role === role)
        assert.deepStrictEqual(prediction.usage[role], {
          calls: mine.length,
          promptTokens: mine.reduce((sum, record) => sum + record.promptTokens, 0),
          completionTokens: mine.reduce((sum, record) => sum + record.completionTokens, 0)
        }, role)
      }
      assert.strictEqual(prediction.usage.agent.calls, 4)
      assert.strictEqual(prediction.usage.vlm.calls, 2)
      assert.strictEqual(prediction.usage.tool.calls, (yield* llm.requests).length - 4)
      assert.isTrue(records.every((record) => record.questionId === "q1"))
      // Tool calls are attributed to the step that made them.
      assert.deepStrictEqual(
        [...new Set(records.filter((record) => record.role === "vlm").map((record) => record.parentStep))],
        [2]
      )
    }).pipe(Effect.provide(MemoryCallLog.layer)))

  it.effect("observers see every step, and their hints reach the agent", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const observer = makeObserver({
        beforeStep: (event) => Effect.sync(() => seen.push(`before ${event.index}`)),
        afterTool: (event) =>
          Effect.sync(
            () => (seen.push(`tool ${event.tool}`), event.tool === "view_node" ? "HINT: look at frames" : undefined)
          ),
        afterStep: (_, step) => Effect.sync(() => seen.push(`after ${step.index}`)),
        onFinish: (prediction) => Effect.sync(() => seen.push(`finish ${prediction.stopReason}`))
      })
      const { program, llm } = yield* setup([call("view_node", { node_id: "vid_L1_000" }), submit("C")])
      const prediction = yield* program.pipe(Effect.provideService(AgentObserver, observer))
      assert.deepStrictEqual(seen, [
        "before 1",
        "tool view_node",
        "after 1",
        "before 2",
        "tool submit_answer",
        "after 2",
        "finish finished"
      ])
      const second = (yield* agentRequests(llm))[1]!
      assert.strictEqual(second.messages.at(-1)!.content, `${prediction.steps[0]!.output}\n\nHINT: look at frames`)
    }))

  it.effect("manual skill mode adds read_skill", () =>
    Effect.gen(function*() {
      const { program } = yield* setup([
        call("read_skill", { name: "counting" }),
        call("read_skill", { name: "nope" }),
        submit("C")
      ], {
        skillMode: "manual"
      })
      const prediction = yield* program
      assert.strictEqual(prediction.steps[0]!.output, "Count carefully.")
      assert.include(
        prediction.steps[1]!.output,
        "[Tool error] read_skill: no skill named \"nope\"; available: counting"
      )
    }))
})
