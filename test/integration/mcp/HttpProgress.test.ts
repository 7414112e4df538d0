import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/client"
import { Deferred, Effect, Layer } from "effect"
import { agentScript, askTools, hangingLlm, noVlm, question } from "../../support/mcp/AskAgent.js"
import { httpServer } from "../../support/mcp/HttpServer.js"
import { type CallResult, eras } from "../../support/mcp/SdkClient.js"

// Progress and cancellation over Streamable HTTP: notifications travel on the request's SSE stream, and a
// cancellation arrives as a separate POST of `notifications/cancelled` (2025 era) or as the call's own
// request closing (2026-07-28), so these are not the stdio paths again.

const askServer = Effect.gen(function*() {
  const tools = yield* askTools()
  return yield* httpServer({ name: "vtree", version: "0", tools })
})

describe.each(eras)("video_ask over Streamable HTTP (official SDK client, %s era)", (era) => {
  it.scoped("with a progress token, one progress notification per agent step, then the answer", () =>
    Effect.gen(function*() {
      const llm = yield* agentScript(2)
      yield* Effect.gen(function*() {
        const server = yield* askServer
        const { client } = yield* server.connect({}, era)
        const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
        const result = (yield* Effect.promise(() =>
          client.callTool({ name: "video_ask", arguments: question }, {
            onprogress: (event) => void progress.push(event)
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
      const { interrupted, layer: hanging, started } = yield* hangingLlm
      yield* Effect.gen(function*() {
        const server = yield* askServer
        const { client, transport } = yield* server.connect({}, era)
        // Every message the client's transport sends and receives, seen below the SDK's bookkeeping.
        const sent: Array<JSONRPCMessage> = []
        const received: Array<JSONRPCMessage> = []
        const send = transport.send.bind(transport)
        transport.send = (message: JSONRPCMessage, options?: object) => {
          for (const one of Array.isArray(message) ? message : [message]) sent.push(one)
          return send(message, options)
        }
        const deliver = transport.onmessage!
        transport.onmessage = (message: JSONRPCMessage) => {
          received.push(message)
          deliver(message)
        }
        const errors: Array<Error> = []
        client.sdk.onerror = (error) => void errors.push(error)

        const controller = new AbortController()
        const call = client.callTool({ name: "video_ask", arguments: question }, {
          signal: controller.signal
        }).then(() => "answered", () => "aborted")
        yield* Deferred.await(started)
        controller.abort("user")
        yield* Deferred.await(interrupted)
        assert.strictEqual(yield* Effect.promise(() => call), "aborted")

        const callId = sent.flatMap((m) => ("method" in m && m.method === "tools/call" && "id" in m ? [m.id] : []))[0]
        assert.isDefined(callId)
        const notified = sent.some((m) =>
          "method" in m && m.method === "notifications/cancelled" &&
          (m.params as { requestId: unknown }).requestId === callId
        )
        // The 2026-07-28 client cancels by closing the call's request; the 2025 one posts the notification.
        assert.strictEqual(notified, era === "2025-11-25")
        // Another request on the same session is served; by then a reply to the cancelled call would be in.
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.strictEqual(tools.length, 3)
        assert.isFalse(received.some((m) => "id" in m && m.id === callId), "no reply to the cancelled call")
        assert.deepStrictEqual(errors, [])
      }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, hanging, noVlm)))
    }))
})
