import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Option, Redacted } from "effect"
import { randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { McpError } from "./McpError.js"
import { CheckedTransport, makeServer, type ServerSpec } from "./McpServer.js"

/**
 * Streamable HTTP (MCP 2025-03-26 and later) through the SDK's transport: one SDK `Server` per session
 * (the `Mcp-Session-Id` header), POST for messages, GET for the server's SSE stream, DELETE to end a
 * session. In front of it, what the spec leaves to the host: the Origin and Host checks against DNS
 * rebinding (403), a bearer token when one is set (401), one path, a bounded number of sessions.
 */
export interface HttpOptions {
  readonly host: string
  readonly port: number
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** Called once listening, with the port actually bound (port 0 picks one). */
  readonly onListening?: (port: number) => void
}

export const mcpPath = "/mcp"
/** Sessions held at once; a client past this gets 503 until one ends. */
export const maxSessions = 256

export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** `HOST:PORT`, `:PORT` or `PORT` (loopback then); none when it does not read as one. */
export const parseListen = (value: string): { readonly host: string; readonly port: number } | undefined => {
  const match = /^(?:(\[[0-9a-fA-F:]+\]|[^:[\]]*):)?(\d{1,5})$/.exec(value.trim())
  if (match === null) return undefined
  const port = Number(match[2])
  if (port > 65535) return undefined
  const host = match[1] === undefined || match[1] === "" ? "127.0.0.1" : match[1].replace(/^\[|\]$/g, "")
  return { host, port }
}

const hostOf = (header: string): string => header.replace(/:\d+$/, "").replace(/^\[|\]$/g, "").toLowerCase()

/**
 * Whether a request may reach the server. A browser page on another site may send requests to a local
 * port (DNS rebinding): an Origin header must name this server, and on loopback the Host must too.
 */
export const admission = (
  headers: { readonly origin?: string | undefined; readonly host?: string | undefined },
  bound: { readonly host: string }
): { readonly ok: true } | { readonly ok: false; readonly message: string } => {
  const loopback = isLoopback(bound.host)
  const allowedHost = (host: string) =>
    loopback ? isLoopback(host) : host === bound.host.toLowerCase() || isLoopback(host)
  if (loopback && (headers.host === undefined || !allowedHost(hostOf(headers.host)))) {
    return { ok: false, message: "Forbidden: the Host header does not name this server" }
  }
  if (headers.origin !== undefined) {
    let originHost: string
    try {
      originHost = new URL(headers.origin).hostname.replace(/^\[|\]$/g, "").toLowerCase()
    } catch {
      return { ok: false, message: "Forbidden: the Origin header is not a URL" }
    }
    if (!allowedHost(originHost)) return { ok: false, message: "Forbidden: requests from this Origin are not allowed" }
  }
  return { ok: true }
}

const tokenMatches = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "")
  if (match === null) return false
  const given = Buffer.from(match[1]!.trim())
  const expected = Buffer.from(Redacted.value(token))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const refuse = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }))
}

const readJson = (req: IncomingMessage, limit: number): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.destroy()
        reject(new Error("too large"))
      } else chunks.push(chunk)
    })
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      } catch {
        resolve(undefined)
      }
    })
    req.on("error", reject)
  })

/** The largest POST body read (the SDK's own default is 4 MB). */
const maxBodyBytes = 4 * 1024 * 1024

export const serveHttp = Effect.fn("HttpServe.serveHttp")(function*<R>(spec: ServerSpec<R>, options: HttpOptions) {
  const runtime = yield* Effect.runtime<R>()
  const sessions = new Map<string, StreamableHTTPServerTransport>()

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if (sessions.size >= maxSessions) return refuse(res, 503, `Too many sessions (${maxSessions}); end one first`)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id)
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    const server = makeServer(spec, runtime)
    await server.connect(new CheckedTransport(transport))
    await transport.handleRequest(req, res, body)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const verdict = admission({ origin: req.headers.origin, host: req.headers.host }, options)
    if (!verdict.ok) return refuse(res, 403, verdict.message)
    if (Option.isSome(options.token) && !tokenMatches(req.headers.authorization, options.token.value)) {
      return refuse(res, 401, "Unauthorized: send Authorization: Bearer <VTREE_MCP_TOKEN>", {
        "www-authenticate": "Bearer"
      })
    }
    const path = (req.url ?? "/").split("?")[0]
    if (path !== mcpPath) return refuse(res, 404, `Not found: the MCP endpoint is ${mcpPath}`)
    const sessionHeader = req.headers["mcp-session-id"]
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader
    if (sessionId !== undefined) {
      const transport = sessions.get(sessionId)
      if (transport === undefined) return refuse(res, 404, "Session not found: initialize a new session")
      return transport.handleRequest(req, res)
    }
    if (req.method !== "POST") return refuse(res, 400, "Bad Request: no Mcp-Session-Id; initialize with a POST first")
    const body = await readJson(req, maxBodyBytes).catch(() => null)
    if (body === null) return refuse(res, 413, `Payload Too Large: at most ${maxBodyBytes} bytes`)
    if (!isInitializeRequest(body)) {
      return refuse(res, 400, "Bad Request: no Mcp-Session-Id; the first request of a session is initialize")
    }
    return openSession(req, res, body)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, "Internal error")
      else res.end()
    })
  })
  yield* Effect.acquireRelease(
    Effect.async<void, McpError>((resume) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        resume(
          Effect.fail(
            new McpError({
              reason: "Listen",
              message: `--http ${options.host}:${options.port}: cannot listen (${
                error.code ?? error.message
              }) — pick another port or address`
            })
          )
        ))
      server.listen(options.port, options.host, () => resume(Effect.void))
    }),
    () =>
      Effect.promise(async () => {
        await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)))
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      })
  )
  const port = (server.address() as AddressInfo).port
  options.onListening?.(port)
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host
  yield* Effect.logInfo(`vtree mcp: serving MCP over HTTP at http://${shown}:${port}${mcpPath}`)
  return yield* Effect.never
})
