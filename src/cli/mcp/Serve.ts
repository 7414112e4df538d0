import type { Transport } from "@modelcontextprotocol/server"
import { serveStdio as serveEras } from "@modelcontextprotocol/server/stdio"
import { Effect, type Runtime } from "effect"
import { randomUUID } from "node:crypto"
import { CheckedTransport, endSession, serverFactory, type ServerSpec } from "./McpServer.js"
import { LineTransport } from "./StdioTransport.js"

/** After stdin ends, how long requests read before it may still take to be answered. */
export const drainTimeoutMs = 120_000

/**
 * One stdio-shaped connection serving `spec` over `lines`. The SDK's entry picks the era from the first
 * message (`initialize`: 2025; `server/discover` or a request carrying the 2026-07-28 envelope: the new
 * era) and pins one server to the connection, which is one session: its jobs end when `lines` closes,
 * and `ended` settles then.
 */
export const serveLines = <R>(spec: ServerSpec<R>, runtime: Runtime.Runtime<R>, lines: Transport) => {
  const session = randomUUID()
  const factory = serverFactory(spec, runtime)
  let closed!: () => void
  const ended = new Promise<void>((resolve) => (closed = resolve))
  const transport = new CheckedTransport(lines, () => {
    endSession(spec, runtime, session)
    closed()
  })
  const handle = serveEras(() => factory(session), { transport })
  return { ended, close: () => handle.close() }
}

/**
 * Serves `spec` over stdio until the client closes stdin (once every request read before has its
 * answer) or the process is interrupted. stdout carries protocol bytes only; logs go to stderr.
 */
export const serveStdio = Effect.fn("Serve.serveStdio")(function*<R>(spec: ServerSpec<R>) {
  const runtime = yield* Effect.runtime<R>()
  yield* Effect.acquireUseRelease(
    Effect.sync(() => serveLines(spec, runtime, new LineTransport(process.stdin, process.stdout, { drainTimeoutMs }))),
    (connection) => Effect.promise(() => connection.ended),
    (connection) => Effect.promise(() => connection.close())
  )
})
