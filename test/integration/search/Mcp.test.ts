import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { fixtureServer, sendBody, sendJson } from "../../support/search/FixtureServer.js"
import { fixture } from "../../support/search/hub.js"
import { articlePage } from "../../support/search/pages.js"

// Runs the built CLI (test/support/globalSetup.ts builds dist/ before any test) under a real MCP client.
const root = fileURLToPath(new URL("../../..", import.meta.url))

const connect = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["dist/bin.js", "mcp"],
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
        client.callTool({ name: "external_search", arguments: { capability: "search.web", query: "tidal turbine", limit: 2 } })
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

      const invalid = yield* Effect.promise(() => client.callTool({ name: "external_read", arguments: { max_chars: 5 } }))
      assert.strictEqual(structured(invalid).error.code, "INVALID_REQUEST")

      // Logs went to stderr (stdout carried only protocol, or the client would have failed): one per call.
      const logLines = stderr.join("").split("\n").filter((line) => line.includes("search hub request"))
      assert.strictEqual(logLines.length, 4)
      assert.notInclude(logLines.join("\n"), "tidal")
      assert.notInclude(logLines.join("\n"), "/page")
    }))

  it.scoped("reads a page when an allow-range lets the reader reach it", () =>
    Effect.gen(function*() {
      const pages = yield* fixtureServer({ "/page": sendBody(200, articlePage(2), { "content-type": "text/html; charset=utf-8" }) })
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
})
