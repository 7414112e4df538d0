import { Effect, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
}

export type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => void

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly port: number
  readonly requests: Array<RecordedRequest>
  /** Resolves once a request for `path` has arrived (for stalls driven by the TestClock). */
  readonly arrived: (path: string) => Promise<void>
}

/**
 * A loopback HTTP server for the Search Hub tests: routes by path, records every request, closes
 * (dropping stalled sockets) with the test's scope.
 */
export const fixtureServer = (routes: Record<string, Handler>): Effect.Effect<FixtureServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<FixtureServer & { close: () => Promise<void> }>((resolve) => {
        const requests: Array<RecordedRequest> = []
        const waiters = new Map<string, Array<() => void>>()
        const server = createServer((request, response) => {
          const url = new URL(request.url ?? "/", "http://fixture.invalid")
          requests.push({ method: request.method ?? "GET", path: url.pathname + url.search, headers: request.headers })
          for (const wake of waiters.get(url.pathname) ?? []) wake()
          waiters.delete(url.pathname)
          const handler = routes[url.pathname]
          if (handler === undefined) {
            response.writeHead(404, { "content-type": "text/plain" }).end("not found")
            return
          }
          handler(request, response, url)
        })
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as AddressInfo).port
          resolve({
            origin: `http://127.0.0.1:${port}`,
            port,
            requests,
            arrived: (path) =>
              requests.some((r) => r.path.split("?")[0] === path)
                ? Promise.resolve()
                : new Promise<void>((wake) => waiters.set(path, [...(waiters.get(path) ?? []), wake])),
            close: () =>
              new Promise<void>((done) => {
                server.closeAllConnections()
                server.close(() => done())
              })
          })
        })
      })
    ),
    (server) => Effect.promise(() => server.close())
  )

export const sendJson =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))
  }

export const sendBody =
  (status: number, body: Buffer | string, headers: Record<string, string>): Handler => (_req, res) => {
    res.writeHead(status, headers).end(body)
  }

export const redirectTo = (location: string, status = 302): Handler => (_req, res) => {
  res.writeHead(status, { location }).end()
}
