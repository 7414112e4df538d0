import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { serveLines } from "../../../src/cli/mcp/Serve.js"
import { LineTransport } from "../../../src/cli/mcp/StdioTransport.js"
import type { McpTool } from "../../../src/programs/mcp/McpTool.js"
import { initialize } from "../../support/mcp/LineHarness.js"

const replyChars = 100_000

/** A tool whose reply is 100 KB of text. */
const bigTool: McpTool = {
  name: "big",
  description: "a large reply",
  annotations: { title: "t", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  call: () => Effect.succeed({ content: [{ type: "text" as const, text: "x".repeat(replyChars) }], isError: false })
}

describe("stdio replies respect backpressure", () => {
  it.scoped("a client that never reads its replies is cut off at the unread-bytes cap, not held without bound", () =>
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<never>()
      const input = new PassThrough()
      // Nobody reads this end: every reply stays in its buffer.
      const output = new PassThrough({ highWaterMark: 1024 })
      const cap = 256 * 1024
      const connection = serveLines(
        { name: "vtree-test", version: "0", tools: [bigTool] },
        runtime,
        new LineTransport(input, output, { maxUnreadBytes: cap })
      )
      const closed = connection.ended
      yield* Effect.addFinalizer(() => Effect.promise(() => connection.close()))
      const calls = Array.from(
        { length: 40 },
        (_, i) =>
          JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "big", arguments: {} } })
      )
      input.write(`${JSON.stringify(initialize("2025-11-25"))}\n${calls.join("\n")}\n`)
      yield* Effect.promise(() => closed)
      // At most the cap and the reply that went over it: 40 replies would be 4 MB.
      assert.isAtMost(output.writableLength, cap + 2 * replyChars)
    }))
})
