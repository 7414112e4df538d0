import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer } from "effect"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { agentScript, askTools, hangingLlm, noVlm, question, submit, viewNode } from "../../support/mcp/AskAgent.js"
import { type CallResult, sdkClient } from "../../support/mcp/SdkClient.js"

const serve = (llm: Layer.Layer<LLMProvider>, enabled = true) =>
  Effect.gen(function*() {
    const tools = yield* askTools(enabled)
    const client = yield* sdkClient({ name: "vtree", version: "0", tools })
    return client
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, llm, noVlm)))

describe("video_ask over MCP (official SDK client, in-process)", () => {
  it.scoped("runs the agent, sends a progress notification per step, returns the answer and a trajectory", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript(1)
      const client = yield* serve(llm.layer)
      const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "video_ask", arguments: question }, undefined, {
          onprogress: (event) =>
            void progress.push(event)
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
      const client = yield* serve(gated)
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

  it.scoped("cancelling the call interrupts the agent's model call", () =>
    Effect.gen(function*() {
      const { interrupted, layer: hanging, started } = yield* hangingLlm
      const client = yield* serve(hanging)
      const controller = new AbortController()
      const call = client.callTool({ name: "video_ask", arguments: question }, undefined, { signal: controller.signal })
        .then(() => "answered", () => "aborted")
      yield* Deferred.await(started)
      controller.abort("user")
      yield* Deferred.await(interrupted)
      assert.strictEqual(yield* Effect.promise(() => call), "aborted")
      // The server still serves after the cancellation.
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.strictEqual(tools.length, 2)
    }))

  it.scoped("without an agent model, video_ask refuses naming what to set", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript(1)
      const client = yield* serve(llm.layer, false)
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "video_ask", arguments: question })
      )) as CallResult
      assert.isTrue(result.isError)
      assert.include(result.content[0]!.text, "VTREE_LLM_MODEL")
    }))
})
