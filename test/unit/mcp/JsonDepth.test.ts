import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { McpTool } from "../../../src/programs/mcp/McpTool.js"
import { initialize, lineHarness, type Reply } from "../../support/mcp/LineHarness.js"

const echoTool: McpTool = {
  name: "echo",
  description: "echoes",
  annotations: { title: "t", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  call: (args) => Effect.succeed({ content: [{ type: "text" as const, text: JSON.stringify(args) }], isError: false })
}

describe("JSON depth is checked before the stack is", () => {
  it.scoped("10 KB of nested arrays in tool arguments is invalid params (-32602), not an internal error", () =>
    Effect.gen(function*() {
      const wire$ = yield* lineHarness([echoTool])
      wire$.send(initialize("2025-11-25"))
      wire$.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      const nested = `${"[".repeat(5000)}${"]".repeat(5000)}`
      wire$.sendRaw(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":${nested}}}}\n`
      )
      const reply = (yield* Effect.promise(() => wire$.waitFor((line) => (line as Reply).id === 7))) as Reply
      assert.strictEqual(reply.error?.code, -32602, JSON.stringify(reply).slice(0, 300))
      assert.include(reply.error!.message, "64 levels")
      wire$.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "echo", arguments: { a: [[1]] } } })
      const fine = (yield* Effect.promise(() => wire$.waitFor((line) => (line as Reply).id === 8))) as Reply
      assert.isDefined(fine.result)
    }))
})
