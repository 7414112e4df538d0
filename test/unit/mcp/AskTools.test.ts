import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { makeAskTools } from "../../../src/programs/mcp/AskTools.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { type CallResult, sdkClient } from "../../support/mcp/SdkClient.js"

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const noVlm = Layer.succeed(
  VLMProvider,
  VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })
)

const viewNode = JSON.stringify({ action: { tool: "view_node", args: { node_id: `${video}_L1_000`, question: "q" } } })
const submit = JSON.stringify({ action: { tool: "submit_answer", args: { answer: "B", evidence: "seen at 0:01:10" } } })

/** The agent views one node, then answers B; the tool model summarizes whatever it is asked. */
const agentScript = () => {
  let agentCalls = 0
  return ScriptedLlm.make((request) => {
    if (request.role !== "agent") return "a summary"
    agentCalls += 1
    return agentCalls === 1 ? viewNode : submit
  })
}

const serve = (llm: Layer.Layer<LLMProvider>, enabled = true) =>
  Effect.gen(function*() {
    const library = yield* makeVideoLibrary(samples)
    const tools = yield* makeAskTools({ library, prompts: testPrompts(), enabled })
    const client = yield* sdkClient({ name: "vtree", version: "0", tools })
    return client
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, llm, noVlm)))

const question = { video_id: video, question: "What is cooked?", options: { choices: ["A. soup", "B. rice"] } }

describe("video_ask over MCP (official SDK client, in-process)", () => {
  it.scoped("runs the agent, sends a progress notification per step, returns the answer and a trajectory", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript()
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
              const content = request.role !== "agent" ? "a summary" : agentCalls === 1 ? viewNode : submit
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
      const interrupted = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const hanging = Layer.succeed(
        LLMProvider,
        LLMProvider.of({
          chat: () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.zipRight(Effect.never),
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
            )
        })
      )
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
      const llm = yield* agentScript()
      const client = yield* serve(llm.layer, false)
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "video_ask", arguments: question })
      )) as CallResult
      assert.isTrue(result.isError)
      assert.include(result.content[0]!.text, "VTREE_LLM_MODEL")
    }))
})
