import { Effect } from "effect"
import { CheckedTransport, makeServer, type ServerSpec } from "./McpServer.js"
import { LineTransport } from "./StdioTransport.js"

/** After stdin ends, how long requests read before it may still take to be answered. */
export const drainTimeoutMs = 120_000

/**
 * Serves `spec` over stdio until the client closes stdin (once every request read before has its
 * answer) or the process is interrupted. stdout carries protocol bytes only; logs go to stderr.
 */
export const serveStdio = Effect.fn("Serve.serveStdio")(function*<R>(spec: ServerSpec<R>) {
  const runtime = yield* Effect.runtime<R>()
  const server = makeServer(spec, runtime)
  const transport = new LineTransport(process.stdin, process.stdout, { drainTimeoutMs })
  const endSession = server.onclose
  const closed = new Promise<void>((resolve) => (server.onclose = () => (endSession?.(), resolve())))
  yield* Effect.acquireUseRelease(
    Effect.promise(() => server.connect(new CheckedTransport(transport))),
    () => Effect.promise(() => closed),
    () => Effect.promise(() => server.close())
  )
})
