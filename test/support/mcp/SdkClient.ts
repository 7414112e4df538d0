/**
 * The official MCP SDK client connected in-process to vtree's server (src/cli/mcp/McpServer.ts) over the
 * SDK's linked in-memory transports: the protocol as clients speak it, with no process or socket.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect } from "effect"
import { CheckedTransport, makeServer, type ServerSpec } from "../../../src/cli/mcp/McpServer.js"

export const sdkClient = <R>(spec: ServerSpec<R>) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<R>()
    const server = makeServer(spec, runtime)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Effect.promise(() => server.connect(new CheckedTransport(serverSide)))
    const client = new Client({ name: "vtree-test", version: "0.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(clientSide)),
      () => Effect.promise(() => client.close())
    )
    return client
  })

/** A tool result's parts, typed loosely for assertions. */
export type CallResult = {
  readonly isError?: boolean
  readonly structuredContent?: Record<string, any>
  readonly content: ReadonlyArray<{ type: string; text?: string; data?: string; mimeType?: string }>
}
