import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { request } from "node:http"
import { fileURLToPath } from "node:url"
import * as SharpThumbnailer from "../../../src/layers/sharp/SharpThumbnailer.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { httpServer } from "../../support/mcp/HttpServer.js"
import type { CallResult } from "../../support/mcp/SdkClient.js"

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

const spec = Effect.gen(function*() {
  const library = yield* makeVideoLibrary(samples)
  return {
    name: "vtree",
    version: "0",
    tools: makeVideoTools({ library, prompts: testPrompts(), summarize: false }),
    resources: makeVideoResources(library)
  }
})

const models = Layer.mergeAll(
  NodeContext.layer,
  SharpThumbnailer.layer,
  Layer.effect(
    VLMProvider,
    Effect.succeed(VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") }))
  ),
  Layer.unwrapEffect(Effect.map(ScriptedLlm.make(() => "unused"), (llm) => llm.layer))
)

/** A raw POST (node:http, so Host and Origin can be anything), with its status and body. */
const post = (port: number, headers: Record<string, string>, body: unknown = initialize) =>
  Effect.async<{ status: number; body: string; headers: Record<string, unknown> }>((resume) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/mcp",
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }
    }, (res) => {
      let text = ""
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body: text, headers: res.headers })))
    })
    req.end(JSON.stringify(body))
  })

describe("vtree mcp over Streamable HTTP (loopback)", () => {
  it.scoped("two sessions, each with its own id, call tools through the official SDK client", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(yield* spec)
      const first = yield* server.connect()
      const second = yield* server.connect()
      assert.isString(first.transport.sessionId)
      assert.notStrictEqual(first.transport.sessionId, second.transport.sessionId)
      for (const { client } of [first, second]) {
        const overview = (yield* Effect.promise(() =>
          client.callTool({ name: "video_overview", arguments: { video_id: video } })
        )) as CallResult
        assert.strictEqual(overview.structuredContent!.video_id, video)
      }
      const frames = (yield* Effect.promise(() =>
        second.client.callTool({ name: "video_frames", arguments: { node_ids: [`${video}_L1_000_L2_000_L3_000`] } })
      )) as CallResult
      assert.strictEqual(
        frames.content.filter((item) =>
          item.type === "image"
        ).length,
        1
      )
    }).pipe(Effect.provide(models)))

  it.scoped("refuses a foreign Origin or Host with 403, an unknown session with 404, a GET opens the SSE stream", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(yield* spec)
      const foreign = yield* post(server.port, { origin: "https://evil.example" })
      assert.strictEqual(foreign.status, 403)
      const rebound = yield* post(server.port, { host: `evil.example:${server.port}` })
      assert.strictEqual(rebound.status, 403)
      const local = yield* post(server.port, { origin: `http://localhost:${server.port}` })
      assert.strictEqual(local.status, 200)
      const sessionId = local.headers["mcp-session-id"] as string
      assert.isString(sessionId)
      const unknown = yield* post(server.port, { "mcp-session-id": "nope" }, { jsonrpc: "2.0", id: 2, method: "ping" })
      assert.strictEqual(unknown.status, 404)
      const stream = yield* Effect.promise(() =>
        fetch(server.url, {
          headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }
        })
      )
      assert.strictEqual(stream.status, 200)
      assert.strictEqual(stream.headers.get("content-type"), "text/event-stream")
      yield* Effect.promise(() => stream.body!.cancel())
    }).pipe(Effect.provide(models)))

  it.scoped("with a token, a request without it gets 401 and the SDK client with it is served", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(yield* spec, { token: "s3cret-token" })
      const anonymous = yield* post(server.port, {})
      assert.strictEqual(anonymous.status, 401)
      const wrong = yield* post(server.port, { authorization: "Bearer wrong" })
      assert.strictEqual(wrong.status, 401)
      assert.notInclude(wrong.body, "s3cret")
      const { client } = yield* server.connect({ authorization: "Bearer s3cret-token" })
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.strictEqual(tools.length, 6)
    }).pipe(Effect.provide(models)))
})
