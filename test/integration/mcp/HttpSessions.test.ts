import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Clock, Deferred, Duration, Effect, Layer, TestClock } from "effect"
import { request } from "node:http"
import { connect } from "node:net"
import { maxSessions, replyStall } from "../../../src/cli/mcp/HttpServe.js"
import type { ServerSpec } from "../../../src/cli/mcp/McpServer.js"
import type { McpTool } from "../../../src/programs/mcp/McpTool.js"
import { askTools, hangingLlm, noVlm, question } from "../../support/mcp/AskAgent.js"
import { httpServer } from "../../support/mcp/HttpServer.js"

const spec: ServerSpec<never> = { name: "vtree-test", version: "0", tools: [] }

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}
const ping = { jsonrpc: "2.0", id: 2, method: "ping" }

/** A raw POST over loopback: its status and the session id it was given. */
const post = (port: number, body: unknown, sessionId?: string, raw?: string) =>
  Effect.async<{ status: number; sessionId: string | undefined; body: string }>((resume) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/mcp",
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId })
      }
    }, (res) => {
      let text = ""
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
      res.on("end", () =>
        resume(Effect.succeed({
          status: res.statusCode ?? 0,
          sessionId: res.headers["mcp-session-id"] as string | undefined,
          body: text
        })))
    })
    req.end(raw ?? JSON.stringify(body))
  })

const open = (port: number) => Effect.map(post(port, initialize), (reply) => reply.sessionId!)

describe("vtree mcp --http sessions and wire (loopback, TestClock)", () => {
  it.scoped("a session idle past VTREE_MCP_SESSION_IDLE ends; one in use stays", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(spec, { sessionIdle: "5 minutes" })
      const idle = yield* open(server.port)
      const busy = yield* open(server.port)
      yield* TestClock.adjust("4 minutes")
      assert.strictEqual((yield* post(server.port, ping, busy)).status, 200)
      yield* TestClock.adjust("4 minutes")
      assert.strictEqual((yield* post(server.port, ping, idle)).status, 404)
      assert.strictEqual((yield* post(server.port, ping, busy)).status, 200)
    }))

  it.scoped("past the session cap, a new client evicts the session idle longest instead of being refused", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(spec, { sessionIdle: "1 hour" })
      const first = yield* open(server.port)
      yield* TestClock.adjust("1 second")
      const ids = [first]
      for (let i = 1; i < maxSessions; i++) ids.push(yield* open(server.port))
      yield* TestClock.adjust("1 second")
      // The first is the oldest but still used: the second is then the one idle longest.
      assert.strictEqual((yield* post(server.port, ping, first)).status, 200)
      const newcomer = yield* post(server.port, initialize)
      assert.strictEqual(newcomer.status, 200)
      assert.strictEqual((yield* post(server.port, ping, newcomer.sessionId)).status, 200)
      assert.strictEqual((yield* post(server.port, ping, ids[1])).status, 404)
      assert.strictEqual((yield* post(server.port, ping, first)).status, 200)
    }))

  it.scoped("a body that is JSON but not JSON-RPC is -32600, an empty batch too (with a reply), bad JSON -32700", () =>
    Effect.gen(function*() {
      const server = yield* httpServer(spec)
      const session = yield* open(server.port)
      const codeOf = (reply: { body: string }) => (JSON.parse(reply.body) as { error: { code: number } }).error.code
      for (const sessionId of [session, undefined]) {
        const notRpc = yield* post(server.port, { hello: "world" }, sessionId)
        assert.strictEqual(notRpc.status, 400)
        assert.strictEqual(codeOf(notRpc), -32600)
        const empty = yield* post(server.port, [], sessionId)
        assert.strictEqual(empty.status, 400)
        assert.strictEqual(codeOf(empty), -32600)
        const broken = yield* post(server.port, undefined, sessionId, "{ not json")
        assert.strictEqual(codeOf(broken), -32700)
      }
      assert.strictEqual((yield* post(server.port, ping, session)).status, 200)
    }))

  it.scoped("a session that expires takes its video_ask jobs with it", () =>
    Effect.gen(function*() {
      const { interrupted, layer, started } = yield* hangingLlm
      const tools = yield* askTools().pipe(Effect.provide(NodeContext.layer))
      const server = yield* httpServer({ name: "vtree", version: "0", tools }, { sessionIdle: "5 minutes" }).pipe(
        Effect.provide(Layer.mergeAll(NodeContext.layer, layer, noVlm))
      )
      const session = yield* open(server.port)
      const call = {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "video_ask", arguments: { ...question, options: { ...question.options, wait: false } } }
      }
      const reply = yield* post(server.port, call, session)
      assert.include(reply.body, "running")
      yield* Deferred.await(started)
      yield* TestClock.adjust("6 minutes")
      yield* Deferred.await(interrupted)
      assert.strictEqual((yield* post(server.port, ping, session)).status, 404)
    }))

  it.scoped("a connection that never reads its reply stream is cut off once it has not drained for the stall bound", () =>
    Effect.gen(function*() {
      // 4,000 progress notifications of 10 KB: 40 MB on one reply stream.
      const chatty: McpTool = {
        name: "chatty",
        description: "a long stream of progress",
        annotations: {
          title: "t",
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false
        },
        inputSchema: { type: "object" },
        outputSchema: { type: "object" },
        call: (_, context) =>
          Effect.as(
            Effect.forEach(
              Array.from({ length: 4000 }, (_, i) => i),
              (i) => context.progress(i, 4000, "x".repeat(10_000)),
              { discard: true }
            ),
            { content: [{ type: "text" as const, text: "done" }], isError: false }
          )
      }
      const server = yield* httpServer({ name: "vtree-test", version: "0", tools: [chatty] })
      const session = yield* open(server.port)
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "chatty", arguments: {}, _meta: { progressToken: "p" } }
      })
      const head = [
        "POST /mcp HTTP/1.1",
        `host: 127.0.0.1:${server.port}`,
        "content-type: application/json",
        "accept: application/json, text/event-stream",
        "mcp-protocol-version: 2025-11-25",
        `mcp-session-id: ${session}`,
        `content-length: ${Buffer.byteLength(body)}`,
        "",
        body
      ].join("\r\n")
      let received = ""
      const socket = connect(server.port, "127.0.0.1", () => {
        socket.pause()
        socket.write(head)
      })
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
      socket.on("error", () => undefined)
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()))
      yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
      // The reply fills the socket's buffers, then waits for a drain that does not come: past the stall, it is cut.
      // The clock moves only while the stall's watchdog waits on it, however long a loaded machine takes to get
      // there (a fixed number of rounds could all pass before it), and until no watchdog is left: a last drain
      // may have replaced the one the clock passed.
      const pause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      const watchdogWaits = Effect.gen(function*() {
        const stallEnds = (yield* Clock.currentTimeMillis) + Duration.toMillis(replyStall)
        return Chunk.toReadonlyArray(yield* TestClock.sleeps()).includes(stallEnds)
      })
      while (!(yield* watchdogWaits)) yield* pause
      while (yield* watchdogWaits) {
        yield* TestClock.adjust(Duration.sum(replyStall, "1 second"))
        yield* pause
      }
      // Reading now finds the end of the connection after what was buffered, without the final result.
      socket.resume()
      yield* Effect.promise(() => closed)
      assert.isBelow(received.length, 40_000_000)
      assert.notInclude(received, "\"done\"")
    }))
})
