/** vtree's MCP HTTP server in this process, on a loopback port of its own, for the test's scope. */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Deferred, type Duration, Effect, Option, Redacted } from "effect"
import { serveHttp } from "../../../src/cli/mcp/HttpServe.js"
import type { ServerSpec } from "../../../src/cli/mcp/McpServer.js"

export const httpServer = <R>(
  spec: ServerSpec<R>,
  options: { readonly token?: string; readonly sessionIdle?: Duration.DurationInput } = {}
) =>
  Effect.gen(function*() {
    const bound = yield* Deferred.make<number>()
    yield* Effect.forkScoped(
      serveHttp(spec, {
        host: "127.0.0.1",
        port: 0,
        token: Option.map(Option.fromNullable(options.token), Redacted.make),
        ...(options.sessionIdle === undefined ? {} : { sessionIdle: options.sessionIdle }),
        onListening: (port) => Deferred.unsafeDone(bound, Effect.succeed(port))
      }).pipe(Effect.scoped)
    )
    const port = yield* Deferred.await(bound)
    const url = `http://127.0.0.1:${port}/mcp`
    const connect = (headers: Record<string, string> = {}) =>
      Effect.acquireRelease(
        Effect.promise(async () => {
          const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
          const client = new Client({ name: "vtree-test", version: "0.0.0" })
          await client.connect(transport)
          return { client, transport }
        }),
        ({ client }) => Effect.promise(() => client.close())
      )
    return { url, port, connect }
  }).pipe(Effect.provide(NodeContext.layer))
