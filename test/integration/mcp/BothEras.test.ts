import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import * as SharpThumbnailer from "../../../src/layers/sharp/SharpThumbnailer.js"
import { jsonReply, type McpTool } from "../../../src/programs/mcp/McpTool.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { agentScript, askTools, noVlm, question } from "../../support/mcp/AskAgent.js"
import { httpServer } from "../../support/mcp/HttpServer.js"
import { lineHarness } from "../../support/mcp/LineHarness.js"
import { type CallResult, type Era, eras, sdkClient } from "../../support/mcp/SdkClient.js"

// Both protocol eras from one server: a 2025-era client (the v1 SDK's, `initialize`) and a 2026-07-28 one
// (the v2 SDK's pinned, `server/discover` and the per-request envelope) list and call every tool, over
// stdio and over Streamable HTTP; then the 2026-07-28 wire itself, as a client without the SDK sees it.

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const scene = `${video}_L1_000`
const modern = "2026-07-28"

const spec = Effect.gen(function*() {
  const library = yield* makeVideoLibrary(samples)
  return {
    name: "vtree",
    version: "0",
    tools: [...makeVideoTools({ library, prompts: testPrompts(), summarize: false }), ...yield* askTools()],
    resources: makeVideoResources(library)
  }
})

/** A call of every tool, with arguments it can answer (an unknown job is an answer too: a tool error). */
const everyCall: ReadonlyArray<readonly [string, Record<string, unknown>, boolean]> = [
  ["video_list", {}, false],
  ["video_overview", { video_id: video }, false],
  ["video_view_node", { node_id: scene }, false],
  ["video_search", { video_id: video, query: "kitchen", k: 2 }, false],
  ["video_frames", { node_ids: [`${scene}_L2_000_L3_000`] }, false],
  ["video_subtitles", { video_id: video, start: 0, end: 600 }, false],
  ["video_ask", question, false],
  ["video_ask_result", { job_id: "no-such-job" }, true],
  ["video_ask_cancel", { job_id: "no-such-job" }, true]
]

const models = <E>(llm: Layer.Layer<LLMProvider, E>) =>
  Layer.mergeAll(NodeContext.layer, SharpThumbnailer.layer, noVlm, llm)

/** Where no call reaches the agent model. */
const noLlm = Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no model in this test") }))

const transports = ["stdio", "Streamable HTTP"] as const

describe.each(transports.flatMap((transport) => eras.map((era) => [transport, era] as const)))(
  "every tool over %s, %s client",
  (transport, era: Era) => {
    it.scoped("lists every tool with vtree's own schemas and calls each", () =>
      Effect.gen(function*() {
        const llm = yield* agentScript(1)
        yield* Effect.gen(function*() {
          const served = yield* spec
          const client = transport === "stdio"
            ? yield* sdkClient(served, era)
            : (yield* (yield* httpServer(served)).connect({}, era)).client
          const { tools } = yield* Effect.promise(() => client.listTools())
          assert.deepStrictEqual(tools.map((tool) => tool.name), everyCall.map(([name]) => name))
          for (const tool of tools) {
            const own = served.tools.find((candidate) => candidate.name === tool.name)!
            assert.deepStrictEqual(tool.inputSchema, own.inputSchema)
            assert.deepStrictEqual(tool.outputSchema, own.outputSchema)
            assert.strictEqual(tool.title, own.annotations.title)
          }
          for (const [name, args, isError] of everyCall) {
            // The client checks each structuredContent against the tool's outputSchema.
            const reply = (yield* Effect.promise(() => client.callTool({ name, arguments: args }))) as CallResult
            assert.strictEqual(reply.isError ?? false, isError, name)
            assert.isAbove(reply.content.length, 0, name)
          }
        }).pipe(Effect.provide(models(llm.layer)))
      }))
  }
)

const envelope = { "io.modelcontextprotocol/protocolVersion": modern, "io.modelcontextprotocol/clientCapabilities": {} }

/** A 2026-07-28 request as the wire carries it: the envelope in `_meta`, the method (and name) in headers. */
const modernPost = (
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {}
) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": modern,
        "mcp-method": method,
        // Mcp-Name mirrors the tool's name, or the resource's URI.
        ...(typeof (params.name ?? params.uri) === "string" ? { "mcp-name": String(params.name ?? params.uri) } : {}),
        ...headers
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: envelope } })
    })
    return {
      status: response.status,
      session: response.headers.get("mcp-session-id"),
      body: await response.json() as Record<string, any>
    }
  })

describe("the 2026-07-28 wire over Streamable HTTP", () => {
  it.scoped("server/discover, resultType, ttlMs and cacheScope on lists and reads, no session id", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(yield* spec)
      const discover = yield* modernPost(server.url, "server/discover", {})
      assert.strictEqual(discover.status, 200)
      assert.isNull(discover.session)
      assert.include(discover.body.result.supportedVersions, modern)
      assert.deepStrictEqual(Object.keys(discover.body.result.capabilities).sort(), ["resources", "tools"])
      assert.strictEqual(discover.body.result.resultType, "complete")
      const tools = yield* modernPost(server.url, "tools/list", {})
      assert.deepStrictEqual([tools.body.result.ttlMs, tools.body.result.cacheScope], [600_000, "private"])
      const read = yield* modernPost(server.url, "resources/read", { uri: `vtree://tree/${video}` })
      assert.deepStrictEqual([read.body.result.ttlMs, read.body.result.cacheScope], [60_000, "private"])
      const call = yield* modernPost(server.url, "tools/call", { name: "video_ask_result", arguments: { job_id: "x" } })
      assert.strictEqual(call.body.result.resultType, "complete")
      assert.isTrue(call.body.result.isError)
      const missing = yield* modernPost(server.url, "resources/read", { uri: "vtree://frame/nope" })
      assert.strictEqual(missing.body.error.code, -32602)
      assert.deepStrictEqual(missing.body.error.data, { uri: "vtree://frame/nope" })
    }).pipe(Effect.provide(models(noLlm))))

  it.scoped("refuses a revision it does not serve (-32022) and an Mcp-Name that is not the body's (-32020)", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(yield* spec)
      const future = yield* Effect.promise(async () => {
        const response = await fetch(server.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2099-01-01",
            "mcp-method": "tools/list"
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/list",
            params: { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }
          })
        })
        return (await response.json()) as Record<string, any>
      })
      assert.strictEqual(future.error.code, -32022)
      assert.include(future.error.data.supported, modern)
      const mismatch = yield* modernPost(
        server.url,
        "tools/call",
        { name: "video_list", arguments: {} },
        { "mcp-name": "video_frames" }
      )
      assert.strictEqual(mismatch.body.error.code, -32020)
    }).pipe(Effect.provide(models(noLlm))))

  it.scoped("the token and Origin rules hold for 2026-07-28 requests too", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(yield* spec, { token: "s3cret-token" })
      const anonymous = yield* modernPost(server.url, "tools/list", {})
      assert.strictEqual(anonymous.status, 401)
      const foreign = yield* modernPost(server.url, "tools/list", {}, {
        authorization: "Bearer s3cret-token",
        origin: "https://evil.example"
      })
      assert.strictEqual(foreign.status, 403)
      const allowed = yield* modernPost(server.url, "tools/list", {}, { authorization: "Bearer s3cret-token" })
      assert.strictEqual(allowed.status, 200)
      assert.strictEqual(allowed.body.result.tools.length, everyCall.length)
      const { client } = yield* server.connect({ authorization: "Bearer s3cret-token" }, modern)
      assert.strictEqual((yield* Effect.promise(() => client.listTools())).tools.length, everyCall.length)
    }).pipe(Effect.provide(models(noLlm))))
})

const jsonTool: McpTool = {
  name: "echo",
  description: "says {}",
  annotations: {
    title: "Echo",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  call: () => Effect.succeed(jsonReply({}))
}

describe("the 2025 era's wire is what it was", () => {
  it.scoped("initialize over stdio, and lists carry no 2026-07-28 fields", () =>
    Effect.gen(function*() {
      const harness = yield* lineHarness([jsonTool])
      harness.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
      })
      const init = yield* Effect.promise(() => harness.waitFor((line) => "id" in line && line.id === 1))
      assert.strictEqual((init as { result: { protocolVersion: string } }).result.protocolVersion, "2025-11-25")
      harness.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      harness.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })
      const list = (yield* Effect.promise(() => harness.waitFor((line) => "id" in line && line.id === 2))) as {
        result: Record<string, unknown>
      }
      assert.deepStrictEqual(Object.keys(list.result), ["tools"])
    }).pipe(Effect.provide(models(noLlm))))
})
