/** vtree's MCP HTTP server in this process, on a loopback port of its own, for the test's scope. */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Deferred, type Duration, Effect, Option, Redacted } from "effect"
import { serveHttp } from "../../../src/cli/mcp/HttpServe.js"
import type { ServerSpec } from "../../../src/cli/mcp/McpServer.js"
import { connectEra, type Era, httpTransport } from "./SdkClient.js"

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
    /** A client of `era` (2025 by default) and its transport, closed with the scope. */
    const connect = (headers: Record<string, string> = {}, era: Era = "2025-11-25") =>
      Effect.gen(function*() {
        const transport = httpTransport(era, url, headers)
        const client = yield* connectEra(era, () => transport)
        return { client, transport }
      })
    return { url, port, connect }
  }).pipe(Effect.provide(NodeContext.layer))
