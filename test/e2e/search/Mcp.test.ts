import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { EmptyResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { fixtureServer, sendBody, sendJson } from "../../support/search/FixtureServer.js"
import { fixture } from "../../support/search/hub.js"
import { articlePage } from "../../support/search/pages.js"

// Runs the built CLI (test/support/e2e/globalSetup.ts builds dist/ before any test) under a real MCP client.
const root = fileURLToPath(new URL("../../..", import.meta.url))

const connect = (env: Record<string, string>, extraArgs: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["dist/bin.js", "mcp", ...extraArgs],
        cwd: root,
        env: { PATH: process.env.PATH ?? "", ...env },
        stderr: "pipe"
      })
      const stderr: Array<string> = []
      transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
      const client = new Client({ name: "vtree-test", version: "0.0.0" })
      await client.connect(transport)
      return { client, stderr }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

// Search tools are listed only when their capability is on: the reader alone gives external_read.
const readerOn = { VTREE_SEARCH_ENABLED: "true", VTREE_SEARCH_READER_ENABLED: "true" }

const structured = (result: unknown) => (result as { structuredContent: Record<string, any> }).structuredContent
const text = (result: unknown) => JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text)

describe("vtree mcp (stdio round trip)", () => {
  it.scoped("lists both tools, searches, refuses disabled capabilities and blocked URLs", () =>
    Effect.gen(function*() {
      const searxng = yield* fixtureServer({
        "/search": sendJson(200, fixture("searxng-news.json")),
        "/page": sendBody(200, articlePage(1), { "content-type": "text/html" })
      })
      const { client, stderr } = yield* connect({
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_SEARXNG_ENABLED: "true",
        VTREE_SEARCH_SEARXNG_URL: searxng.origin,
        VTREE_SEARCH_READER_ENABLED: "true"
      })
      assert.strictEqual(client.getServerVersion()?.name, "vtree-search")

      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((t) => t.name).sort(), ["external_read", "external_search"])
      const searchTool = tools.find((t) => t.name === "external_search")!
      assert.deepStrictEqual(searchTool.inputSchema.required, ["capability", "query"])

      const found = yield* Effect.promise(() =>
        client.callTool({
          name: "external_search",
          arguments: { capability: "search.web", query: "tidal turbine", limit: 2 }
        })
      )
      assert.isNotTrue(found.isError)
      assert.strictEqual(structured(found).status, "success")
      assert.strictEqual(structured(found).results.length, 2)
      assert.deepStrictEqual(text(found), structured(found))

      const disabled = yield* Effect.promise(() =>
        client.callTool({ name: "external_search", arguments: { capability: "search.code", query: "effect" } })
      )
      assert.isTrue(disabled.isError)
      assert.strictEqual(structured(disabled).error.code, "CAPABILITY_DISABLED")

      // The configured SearXNG URL is exempt; the same server reached through the reader is not.
      const blocked = yield* Effect.promise(() =>
        client.callTool({ name: "external_read", arguments: { url: `${searxng.origin}/page` } })
      )
      assert.isTrue(blocked.isError)
      assert.strictEqual(structured(blocked).error.code, "URL_BLOCKED")
      assert.deepStrictEqual(text(blocked), structured(blocked))
      assert.deepStrictEqual(searxng.requests.map((r) => r.path.split("?")[0]), ["/search"])

      const invalid = yield* Effect.promise(() =>
        client.callTool({ name: "external_read", arguments: { max_chars: 5 } })
      )
      assert.strictEqual(structured(invalid).error.code, "INVALID_REQUEST")

      // Logs went to stderr (stdout carried only protocol, or the client would have failed): one per call.
      // A log line may trail its reply on the other pipe, so count after the server has exited and its
      // stderr closed (the transport's close waits for the child's 'close').
      yield* Effect.promise(() => client.close())
      const logLines = stderr.join("").split("\n").filter((line) => line.startsWith("{\"event\":\"search.request\""))
      assert.strictEqual(logLines.length, 4)
      // One JSON object per line, the design's metrics.
      assert.deepStrictEqual(logLines.map((line) => JSON.parse(line).code ?? JSON.parse(line).status), [
        "success",
        "CAPABILITY_DISABLED",
        "URL_BLOCKED",
        "INVALID_REQUEST"
      ])
      assert.notInclude(logLines.join("\n"), "tidal")
      assert.notInclude(logLines.join("\n"), "/page")
    }))

  it.scoped("--trees serves the video tools beside the search tools that are on; video_ask refuses without a model", () =>
    Effect.gen(function*() {
      const { client } = yield* connect(readerOn, ["--trees", "samples/trees"])
      assert.strictEqual(client.getServerVersion()?.name, "vtree")
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((t) => t.name), [
        "video_list",
        "video_overview",
        "video_view_node",
        "video_search",
        "video_frames",
        "video_subtitles",
        "video_ask",
        "video_ask_result",
        "video_ask_cancel",
        "external_read"
      ])
      const listed = yield* Effect.promise(() => client.callTool({ name: "video_list", arguments: {} }))
      assert.strictEqual(structured(listed).videos[0].video_id, "vtSmpl0001a")
      const ask = yield* Effect.promise(() =>
        client.callTool({ name: "video_ask", arguments: { video_id: "vtSmpl0001a", question: "what?" } })
      )
      assert.isTrue(ask.isError)
    }))

  it.scoped("without --trees no model setting is read: a broken VTREE_LLM_* does not stop the search server", () =>
    Effect.gen(function*() {
      const broken = { VTREE_LLM_BASE_URL: "ftp://not-an-endpoint", VTREE_LLM_MODEL: "m", VTREE_VLM_BASE_URL: "nope" }
      const { client } = yield* connect({ ...readerOn, ...broken })
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((t) => t.name), ["external_read"])
      // With --trees the same settings are read, and refused naming the variable.
      const withTrees = spawnSync(process.execPath, ["dist/bin.js", "mcp", "--trees", "samples/trees"], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", ...broken },
        input: "",
        encoding: "utf8"
      })
      assert.strictEqual(withTrees.status, 1)
      assert.include(withTrees.stderr, "VTREE_LLM_BASE_URL")
      assert.strictEqual(withTrees.stdout, "")
    }))

  it.scoped("reads a page when an allow-range lets the reader reach it", () =>
    Effect.gen(function*() {
      const pages = yield* fixtureServer({
        "/page": sendBody(200, articlePage(2), { "content-type": "text/html; charset=utf-8" })
      })
      const { client } = yield* connect({
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_READER_ENABLED: "true",
        VTREE_SEARCH_ALLOW_RANGES: "127.0.0.0/8"
      })
      const read = yield* Effect.promise(() =>
        client.callTool({ name: "external_read", arguments: { url: `${pages.origin}/page`, max_chars: 1000 } })
      )
      assert.isNotTrue(read.isError)
      const body = structured(read)
      assert.strictEqual(body.title, "Tidal Power in the Bay of Fundy")
      assert.strictEqual(body.trust_level, "untrusted_external_content")
      assert.isTrue(body.truncated)
      assert.strictEqual(body.content.length, 1000)
    }))

  it.scoped("the SDK client gets -32601 for an unknown method, and the server keeps serving", () =>
    Effect.gen(function*() {
      const { client, stderr } = yield* connect(readerOn)
      const unknown = yield* Effect.promise(() =>
        client.request({ method: "bogus/method", params: {} }, EmptyResultSchema).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.instanceOf(unknown, McpError)
      assert.strictEqual((unknown as McpError).code, -32601)
      assert.include((unknown as McpError).message, "Method not found")
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.strictEqual(tools.length, 1)
      yield* Effect.promise(() => client.close())
      assert.notInclude(stderr.join(""), "Defect")
    }))

  it("raw bytes: garbage, odd ids, batches and unknown methods are answered, valid requests still served, EOF exits 0", async () => {
    const child = spawn(process.execPath, ["dist/bin.js", "mcp"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...readerOn },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    const init = {
      jsonrpc: "2.0",
      id: "a1",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
    }
    child.stdin.write("this is not json\n")
    child.stdin.write(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]))
    child.stdin.write(`${JSON.stringify(init)}\n`)
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such/method" })}\n`)
    // These once stopped the server for good: an id that is neither string nor integer, and a batch.
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: true, method: "ping" })}\n`)
    child.stdin.write(`${JSON.stringify([{ jsonrpc: "2.0", id: "b", method: "ping" }, null])}\n`)
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })}\n`)
    child.stdin.end()
    const code = await exited
    const replies = stdout.trim().split("\n").map((line) =>
      JSON.parse(line) as { id: unknown; error?: { code: number }; result?: any }
    )
    assert.strictEqual(code, 0, stderr)
    assert.deepStrictEqual(replies.filter((r) => r.error?.code === -32700).map((r) => r.id), [null, null])
    assert.deepStrictEqual(replies.filter((r) => r.error?.code === -32600).map((r) => r.id), [null, null])
    assert.strictEqual(replies.find((r) => r.id === 2)?.error?.code, -32601)
    assert.strictEqual(replies.find((r) => r.id === "a1")?.result.serverInfo.name, "vtree-search")
    assert.strictEqual(replies.find((r) => r.id === 3)?.result.tools.length, 1)
    assert.strictEqual(replies.length, 7)
    assert.notInclude(stderr, "SyntaxError")
    assert.notInclude(stderr, "    at ")
  })
})
