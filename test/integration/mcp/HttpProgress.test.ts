import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { makeAskTools } from "../../../src/programs/mcp/AskTools.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { httpServer } from "../../support/mcp/HttpServer.js"
import type { CallResult } from "../../support/mcp/SdkClient.js"

// Progress and cancellation over Streamable HTTP: notifications travel on the request's SSE stream and
// `notifications/cancelled` arrives as a separate POST, so these are not the stdio paths again.

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const noVlm = Layer.succeed(
  VLMProvider,
  VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })
)
const question = { video_id: video, question: "What is cooked?", options: { choices: ["A. soup", "B. rice"] } }

const viewNode = (n: number) =>
  JSON.stringify({ action: { tool: "view_node", args: { node_id: `${video}_L1_00${n}`, question: "q" } } })
const submit = JSON.stringify({ action: { tool: "submit_answer", args: { answer: "B", evidence: "at 0:01:10" } } })

/** The agent views two nodes, then answers B. */
const agentScript = () => {
  let agentCalls = 0
  return ScriptedLlm.make((request) => {
    if (request.role !== "agent") return "a summary"
    agentCalls += 1
    return agentCalls <= 2 ? viewNode(agentCalls - 1) : submit
  })
}

const askServer = Effect.gen(function*() {
  const library = yield* makeVideoLibrary(samples)
  const tools = yield* makeAskTools({ library, prompts: testPrompts(), enabled: true })
  return yield* httpServer({ name: "vtree", version: "0", tools })
})

describe("video_ask over Streamable HTTP (official SDK client)", () => {
  it.scoped("with a progress token, one progress notification per agent step, then the answer", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript()
      yield* Effect.gen(function*() {
        const server = yield* askServer
        const { client } = yield* server.connect()
        const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
        const result = (yield* Effect.promise(() =>
          client.callTool({ name: "video_ask", arguments: question }, undefined, {
            onprogress: (event) =>
              void progress.push(event)
          })
        )) as CallResult
        assert.isFalse(result.isError)
        assert.strictEqual(result.structuredContent!.option, "B")
        assert.deepStrictEqual(progress.map((event) => [event.progress, event.total]), [[1, 15], [2, 15], [3, 15]])
        assert.deepStrictEqual(progress.map((event) => event.message), [
          "step 1: view_node",
          "step 2: view_node",
          "step 3: submit_answer"
        ])
      }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, llm.layer, noVlm)))
    }))

  it.scoped("cancelling a call whose model hangs interrupts it, and no result for it follows", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
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
      yield* Effect.gen(function*() {
        const server = yield* askServer
        const { client, transport } = yield* server.connect()
        // Every message the client's transport sends and receives, seen below the SDK's bookkeeping.
        const sent: Array<JSONRPCMessage> = []
        const received: Array<JSONRPCMessage> = []
        const send = transport.send.bind(transport)
        transport.send = (message, options) => {
          sent.push(...(Array.isArray(message) ? message : [message]))
          return send(message, options)
        }
        const deliver = transport.onmessage!
        transport.onmessage = (message: JSONRPCMessage) => {
          received.push(message)
          deliver(message)
        }
        const errors: Array<Error> = []
        client.onerror = (error) => void errors.push(error)

        const controller = new AbortController()
        const call = client.callTool({ name: "video_ask", arguments: question }, undefined, {
          signal: controller.signal
        }).then(() => "answered", () => "aborted")
        yield* Deferred.await(started)
        controller.abort("user")
        yield* Deferred.await(interrupted)
        assert.strictEqual(yield* Effect.promise(() => call), "aborted")

        const callId = sent.flatMap((m) => ("method" in m && m.method === "tools/call" && "id" in m ? [m.id] : []))[0]
        assert.isDefined(callId)
        assert.isTrue(sent.some((m) =>
          "method" in m && m.method === "notifications/cancelled" &&
          (m.params as { requestId: unknown }).requestId === callId
        ))
        // Another request on the same session is served; by then a reply to the cancelled call would be in.
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.strictEqual(tools.length, 2)
        assert.isFalse(received.some((m) => "id" in m && m.id === callId), "no reply to the cancelled call")
        assert.deepStrictEqual(errors, [])
      }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, hanging, noVlm)))
    }))
})
