import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer, TestClock } from "effect"
import { askLimits } from "../../../src/programs/mcp/AskTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { agentScript, askTools, hangingLlm, noVlm, question, submit, viewNode } from "../../support/mcp/AskAgent.js"
import { type CallResult, type Era, type EraClient, eras, sdkClient } from "../../support/mcp/SdkClient.js"

const serve = (era: Era, llm: Layer.Layer<LLMProvider>, enabled = true, wait = Duration.seconds(45)) =>
  Effect.gen(function*() {
    const tools = yield* askTools(enabled, wait)
    const client = yield* sdkClient({ name: "vtree", version: "0", tools }, era)
    return client
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, llm, noVlm)))

describe.each(eras)("video_ask over MCP (official SDK client, %s era, in-process)", (era) => {
  it.scoped("runs the agent, sends a progress notification per step, returns the answer and a trajectory", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript(1)
      const client = yield* serve(era, llm.layer)
      const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "video_ask", arguments: question }, {
          onprogress: (event) => void progress.push(event)
        })
      )) as CallResult
      assert.isFalse(result.isError)
      const body = result.structuredContent!
      assert.strictEqual(body.status, "finished")
      assert.strictEqual(body.option, "B")
      assert.strictEqual(body.evidence, "seen at 0:01:10")
      assert.deepStrictEqual(body.trajectory.map((step: { tool: string }) => step.tool), ["view_node", "submit_answer"])
      assert.deepStrictEqual(progress.map((event) => [event.progress, event.total]), [[1, 15], [2, 15]])
      assert.strictEqual(progress[0]!.message, "step 1: view_node")
    }))

  it.scoped("wait: false returns a job id at once; video_ask_result reports it running, then the answer", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let agentCalls = 0
      const gated = Layer.succeed(
        LLMProvider,
        LLMProvider.of({
          chat: (request) =>
            Effect.gen(function*() {
              if (request.role === "agent") {
                agentCalls += 1
                yield* Deferred.await(gate)
              }
              const content = request.role !== "agent" ? "a summary" : agentCalls === 1 ? viewNode(0) : submit
              return { content, usage: { promptTokens: 1, completionTokens: 1 }, model: "gated" }
            })
        })
      )
      const client = yield* serve(era, gated)
      const started = (yield* Effect.promise(() =>
        client.callTool({
          name: "video_ask",
          arguments: { ...question, options: { ...question.options, wait: false } }
        })
      )) as CallResult
      const jobId = started.structuredContent!.job_id as string
      assert.strictEqual(started.structuredContent!.status, "running")
      const poll = () =>
        Effect.promise(() =>
          client.callTool({ name: "video_ask_result", arguments: { job_id: jobId } }) as Promise<CallResult>
        )
      assert.strictEqual((yield* poll()).structuredContent!.status, "running")
      yield* Deferred.succeed(gate, undefined)
      let polled = yield* poll()
      while (polled.structuredContent!.status === "running") {
        yield* Effect.yieldNow()
        polled = yield* poll()
      }
      assert.strictEqual(polled.structuredContent!.option, "B")
      const unknown = yield* Effect.promise(() =>
        client.callTool({ name: "video_ask_result", arguments: { job_id: "nope" } }) as Promise<CallResult>
      )
      assert.isTrue(unknown.isError)
    }))

  it.scoped("a call waits up to VTREE_MCP_ASK_WAIT, then returns the job id with the steps done so far; the job goes on", () =>
    Effect.gen(function*() {
      // The agent views a scene, then its second call hangs until the gate opens.
      const gate = yield* Deferred.make<void>()
      const secondCall = yield* Deferred.make<void>()
      let agentCalls = 0
      const gated = Layer.succeed(
        LLMProvider,
        LLMProvider.of({
          chat: (request) =>
            Effect.gen(function*() {
              if (request.role === "agent") agentCalls += 1
              if (request.role === "agent" && agentCalls === 2) {
                yield* Deferred.succeed(secondCall, undefined)
                yield* Deferred.await(gate)
              }
              const content = request.role !== "agent" ? "a summary" : agentCalls === 1 ? viewNode(0) : submit
              return { content, usage: { promptTokens: 1, completionTokens: 1 }, model: "gated" }
            })
        })
      )
      const client = yield* serve(era, gated, true, Duration.seconds(30))
      const progress: Array<number> = []
      let replied: CallResult | undefined
      const call = client.callTool({ name: "video_ask", arguments: question }, {
        onprogress: (event) => void progress.push(event.progress)
      }).then((result) => (replied = result))
      yield* Deferred.await(secondCall)
      const settle = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      yield* TestClock.adjust("29 seconds")
      yield* settle
      assert.isUndefined(replied, "still waiting before its 30 s")
      yield* TestClock.adjust("1 second")
      const running = (yield* Effect.promise(() => call)).structuredContent!
      assert.strictEqual(running.status, "running")
      assert.strictEqual(running.steps_done, 1)
      assert.isString(running.job_id)
      assert.deepStrictEqual(progress, [1])
      const poll = () =>
        Effect.promise(() =>
          client.callTool({ name: "video_ask_result", arguments: { job_id: running.job_id } }) as Promise<CallResult>
        )
      assert.strictEqual((yield* poll()).structuredContent!.steps_done, 1)
      yield* Deferred.succeed(gate, undefined)
      let polled = yield* poll()
      while (polled.structuredContent!.status === "running") polled = yield* poll()
      assert.strictEqual(polled.structuredContent!.option, "B")
      assert.strictEqual(polled.structuredContent!.job_id, running.job_id)
      // The step after the call returned went to the job, not to a progress token that has ended.
      assert.deepStrictEqual(progress, [1])
    }))

  it.scoped("cancelling the call interrupts the agent's model call", () =>
    Effect.gen(function*() {
      const { interrupted, layer: hanging, started } = yield* hangingLlm
      const client = yield* serve(era, hanging)
      const controller = new AbortController()
      const call = client.callTool({ name: "video_ask", arguments: question }, { signal: controller.signal })
        .then(() => "answered", () => "aborted")
      yield* Deferred.await(started)
      controller.abort("user")
      yield* Deferred.await(interrupted)
      assert.strictEqual(yield* Effect.promise(() => call), "aborted")
      // The server still serves after the cancellation.
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.strictEqual(tools.length, 3)
    }))

  it.scoped("without an agent model, video_ask refuses naming what to set", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript(1)
      const client = yield* serve(era, llm.layer, false)
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "video_ask", arguments: question })
      )) as CallResult
      assert.isTrue(result.isError)
      assert.include(result.content[0]!.text, "VTREE_LLM_MODEL")
    }))

  it.scoped("a session's jobs end with it, and video_ask_cancel ends one", () =>
    Effect.gen(function*() {
      const { interrupted, layer: hanging, started } = yield* hangingLlm
      const tools = yield* askTools().pipe(Effect.provide(NodeContext.layer))
      const spec = { name: "vtree", version: "0", tools }
      const later = { ...question, options: { ...question.options, wait: false } }
      const call = (client: EraClient, name: string, args: unknown) =>
        Effect.promise(() =>
          client.callTool({ name, arguments: args as Record<string, unknown> }) as Promise<CallResult>
        )
      const first = yield* sdkClient(spec, era).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, hanging, noVlm)))
      const job = (yield* call(first, "video_ask", later)).structuredContent!.job_id as string
      yield* Deferred.await(started)
      const cancelled = yield* call(first, "video_ask_cancel", { job_id: job })
      assert.deepStrictEqual(cancelled.structuredContent, { job_id: job, cancelled: true })
      yield* Deferred.await(interrupted)
      assert.include((yield* call(first, "video_ask_result", { job_id: job })).content[0]!.text, "UNKNOWN_JOB")

      const second = yield* hangingLlm
      const ending = yield* sdkClient(spec, era).pipe(
        Effect.provide(Layer.mergeAll(NodeContext.layer, second.layer, noVlm))
      )
      assert.isFalse((yield* call(ending, "video_ask", later)).isError)
      yield* Deferred.await(second.started)
      yield* Effect.promise(() => ending.sdk.close())
      yield* Deferred.await(second.interrupted)
    }))

  it.scoped("one session cannot take every run: it holds at most its share, and another session's job still runs", () =>
    Effect.gen(function*() {
      const otherStarted = yield* Deferred.make<void>()
      const hanging = Layer.succeed(
        LLMProvider,
        LLMProvider.of({
          chat: (request) =>
            Effect.zipRight(
              JSON.stringify(request).includes("other session")
                ? Deferred.succeed(otherStarted, undefined)
                : Effect.void,
              Effect.never
            )
        })
      )
      const tools = yield* askTools().pipe(Effect.provide(NodeContext.layer))
      const spec = { name: "vtree", version: "0", tools }
      const models = Layer.mergeAll(NodeContext.layer, hanging, noVlm)
      const greedy = yield* sdkClient(spec, era).pipe(Effect.provide(models))
      const later = { ...question, options: { ...question.options, wait: false } }
      for (let i = 0; i < askLimits.sessionJobs; i++) {
        const started = (yield* Effect.promise(() =>
          greedy.callTool({ name: "video_ask", arguments: later })
        )) as CallResult
        assert.isFalse(started.isError)
      }
      const refused = (yield* Effect.promise(() =>
        greedy.callTool({ name: "video_ask", arguments: later })
      )) as CallResult
      assert.isTrue(refused.isError)
      assert.include(refused.content[0]!.text, "TOO_MANY_JOBS")
      const other = yield* sdkClient(spec, era).pipe(Effect.provide(models))
      const theirs = (yield* Effect.promise(() =>
        other.callTool({ name: "video_ask", arguments: { ...later, question: "What does the other session ask?" } })
      )) as CallResult
      assert.isFalse(theirs.isError)
      yield* Deferred.await(otherStarted)
    }))
})
