/**
 * vtree's stdio MCP server in this process, over two in-memory pipes: raw lines in, reply lines out.
 * For tests of the wire itself (malformed messages, batches, cancellation, end of input), where the SDK
 * client would refuse to send what a hostile client can.
 */
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { serveLines } from "../../../src/cli/mcp/Serve.js"
import { LineTransport } from "../../../src/cli/mcp/StdioTransport.js"
import type { McpTool } from "../../../src/programs/mcp/McpTool.js"

export interface Reply {
  readonly jsonrpc: "2.0"
  readonly id?: unknown
  readonly result?: any
  readonly error?: { readonly code: number; readonly message: string }
}

export interface LineHarness {
  readonly send: (message: unknown) => void
  readonly sendRaw: (bytes: string | Buffer) => void
  readonly end: () => void
  /** Every line the server wrote, parsed (a batch reply is an array). */
  readonly lines: ReadonlyArray<Reply | ReadonlyArray<Reply>>
  /** Resolves with the first line `match` accepts, waiting for it as long as it takes. */
  readonly waitFor: (match: (line: Reply | ReadonlyArray<Reply>) => boolean) => Promise<Reply | ReadonlyArray<Reply>>
  readonly closed: Promise<void>
}

export const lineHarness = (tools: ReadonlyArray<McpTool>) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: Array<Reply | ReadonlyArray<Reply>> = []
    const waiters: Array<() => void> = []
    let pending = ""
    output.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8")
      const parts = pending.split("\n")
      pending = parts.pop() ?? ""
      for (const part of parts) lines.push(JSON.parse(part))
      for (const wake of waiters.splice(0)) wake()
    })
    const connection = serveLines(
      { name: "vtree-test", version: "0.0.0", tools },
      runtime,
      new LineTransport(input, output)
    )
    const closed = connection.ended
    yield* Effect.addFinalizer(() => Effect.promise(() => connection.close()))
    const waitFor = (match: (line: Reply | ReadonlyArray<Reply>) => boolean) =>
      new Promise<Reply | ReadonlyArray<Reply>>((resolve) => {
        const check = () => {
          const found = lines.find(match)
          if (found !== undefined) resolve(found)
          else waiters.push(check)
        }
        check()
      })
    const harness: LineHarness = {
      send: (message) => input.write(`${JSON.stringify(message)}\n`),
      sendRaw: (bytes) => input.write(bytes),
      end: () => input.end(),
      lines,
      waitFor,
      closed
    }
    return harness
  })

export const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})
