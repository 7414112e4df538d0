import {
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler
} from "@modelcontextprotocol/node"
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  type RequestId
} from "@modelcontextprotocol/server"
import { Clock, Duration, Effect, Fiber, Option, Redacted, Runtime, Schedule } from "effect"
import { randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { McpError } from "./McpError.js"
import { CheckedTransport, endSession, serverFactory, type ServerSpec } from "./McpServer.js"
import { invalidReason, parseMessage } from "./StdioTransport.js"

/**
 * Streamable HTTP in both protocol eras through the SDK (v2). A 2025-era client (no per-request
 * envelope) gets a session: one SDK `Server` per `Mcp-Session-Id` on the Node transport, POST for
 * messages, GET for the server's SSE stream, DELETE to end it. A 2026-07-28 client sends every request
 * on its own (envelope in `_meta`, `Mcp-Method` / `Mcp-Name` headers) and the SDK's per-request handler
 * answers it with a fresh `Server` from the same factory: a JSON body, or SSE once progress is sent.
 * The SDK's classifier decides which is which. In front of both, what the spec leaves to the host: the
 * Origin and Host checks against DNS rebinding (403), a bearer token when one is set (401), one path, a
 * bounded body, and for the 2025 era a bounded number of sessions that end when idle.
 */
export interface HttpOptions {
  readonly host: string
  readonly port: number
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** A session with no request for this long is closed (VTREE_MCP_SESSION_IDLE); 5 minutes by default. */
  readonly sessionIdle?: Duration.DurationInput
  /** Called once listening, with the port actually bound (port 0 picks one). */
  readonly onListening?: (port: number) => void
}

export const mcpPath = "/mcp"
/**
 * Sessions held at once; a new client past this evicts the session idle longest, and gets 503 only while
 * every session has a request in flight.
 */
export const maxSessions = 256
export const defaultSessionIdle = Duration.minutes(5)

interface Session {
  readonly transport: NodeStreamableHTTPServerTransport
  lastSeen: number
  /** POST and DELETE requests being served (an open GET stream does not keep a session alive). */
  inflight: number
}

/** The sessions of one server: which have been idle past `idleMs`, and which to evict for a new one. */
export const makeSessionTable = (idleMs: number) => {
  const sessions = new Map<string, Session>()
  return {
    sessions,
    expired: (now: number): Array<Session> =>
      [...sessions.values()].filter((session) => session.inflight === 0 && now - session.lastSeen >= idleMs),
    /** The session without a request in flight that was seen longest ago, if any. */
    evictable: (): Session | undefined => {
      let oldest: Session | undefined
      for (const session of sessions.values()) {
        if (session.inflight === 0 && (oldest === undefined || session.lastSeen < oldest.lastSeen)) oldest = session
      }
      return oldest
    }
  }
}

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

/**
 * Reply bytes a connection may leave unread, and all connections together: past either, the connection
 * holding the most is cut, so clients that do not read cannot grow the server without bound.
 */
export const backlogLimits = { perConnection: 8 * 1024 * 1024, total: 64 * 1024 * 1024 } as const
/** How long a reply may wait for its client to read before the connection is cut. */
export const replyStall = Duration.seconds(30)

interface Outgoing {
  readonly writableLength: number
  readonly destroyed: boolean
  destroy(): void
}

/** What every open reply holds unread, kept as they write and drain; `account` cuts a reply past a limit. */
export const makeBacklogGuard = (limits: { readonly perConnection: number; readonly total: number }) => {
  const held = new Map<Outgoing, number>()
  let total = 0
  const forget = (reply: Outgoing) => {
    total -= held.get(reply) ?? 0
    held.delete(reply)
  }
  const cut = (reply: Outgoing) => {
    forget(reply)
    reply.destroy()
  }
  const account = (reply: Outgoing) => {
    forget(reply)
    const now = reply.destroyed ? 0 : reply.writableLength
    if (now === 0) return
    held.set(reply, now)
    total += now
    if (now > limits.perConnection) cut(reply)
    while (total > limits.total) {
      let largest: Outgoing | undefined
      for (const [other, bytes] of held) if (largest === undefined || bytes > held.get(largest)!) largest = other
      cut(largest!)
    }
  }
  return { account, forget, total: () => total }
}

/**
 * Every write and end of `res` accounted by `guard` (the SDK writes SSE events and replies itself), and a
 * reply whose client stops reading cut once it has not drained for `stall`: the SDK's stream waits for
 * 'drain' and queues what follows in memory, which only ending the connection frees.
 */
const guarded = <R>(
  res: ServerResponse,
  guard: ReturnType<typeof makeBacklogGuard>,
  runtime: Runtime.Runtime<R>,
  stall: Duration.Duration
) => {
  const write = res.write.bind(res) as (...args: Array<unknown>) => boolean
  const end = res.end.bind(res) as (...args: Array<unknown>) => ServerResponse
  let watchdog: Fiber.RuntimeFiber<void> | undefined
  const calm = () => {
    if (watchdog !== undefined) Runtime.runFork(runtime)(Fiber.interrupt(watchdog))
    watchdog = undefined
  }
  res.write = ((...args: Array<unknown>) => {
    const accepted = write(...args)
    guard.account(res)
    if (!accepted && watchdog === undefined && !res.destroyed) {
      watchdog = Runtime.runFork(runtime)(
        Effect.sleep(stall).pipe(Effect.andThen(Effect.sync(() => void res.destroy())))
      )
    }
    return accepted
  }) as typeof res.write
  res.end = ((...args: Array<unknown>) => {
    const ended = end(...args)
    guard.account(res)
    return ended
  }) as typeof res.end
  res.on("drain", () => {
    calm()
    guard.account(res)
  })
  res.once("close", () => {
    calm()
    guard.forget(res)
  })
}

const hostOf = (header: string): string => header.replace(/:\d+$/, "").replace(/^\[|\]$/g, "").toLowerCase()

/** The port a URL names, its scheme's default when it names none. */
const portOf = (url: URL): number => url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80

/**
 * Whether a request may reach the server. A browser page on another site may send requests to a local
 * port (DNS rebinding): an Origin header must name this server, its port included (another local app's
 * page is another origin), and on loopback the Host must be local too.
 */
export const admission = (
  headers: { readonly origin?: string | undefined; readonly host?: string | undefined },
  bound: { readonly host: string; readonly port: number }
): { readonly ok: true } | { readonly ok: false; readonly message: string } => {
  const loopback = isLoopback(bound.host)
  const allowedHost = (host: string) =>
    loopback ? isLoopback(host) : host === bound.host.toLowerCase() || isLoopback(host)
  if (loopback && (headers.host === undefined || !allowedHost(hostOf(headers.host)))) {
    return { ok: false, message: "Forbidden: the Host header does not name this server" }
  }
  if (headers.origin !== undefined) {
    let origin: URL
    try {
      origin = new URL(headers.origin)
    } catch {
      return { ok: false, message: "Forbidden: the Origin header is not a URL" }
    }
    const originHost = origin.hostname.replace(/^\[|\]$/g, "").toLowerCase()
    if (!allowedHost(originHost) || portOf(origin) !== bound.port) {
      return { ok: false, message: "Forbidden: requests from this Origin are not allowed" }
    }
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

/** The body, or null past `limit` bytes (the connection is then dropped). */
const readBody = (req: IncomingMessage, limit: number): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.destroy()
        resolve(null)
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

type BodyProblem = { readonly id: RequestId | null; readonly code: number; readonly message: string }

/** What JSON-RPC 2.0 answers a POST body that is not JSON (-32700) or not a message or batch of them (-32600). */
export const bodyProblem = (text: string): { readonly value: unknown } | BodyProblem => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { id: null, code: -32700, message: "Parse error: the body is not valid JSON" }
  }
  if (Array.isArray(value) && value.length === 0) {
    return { id: null, code: -32600, message: "Invalid Request: an empty batch" }
  }
  for (const item of Array.isArray(value) ? value : [value]) {
    if (parseMessage(item) === undefined) {
      const id = !Array.isArray(value) && typeof item === "object" && item !== null && "id" in item &&
          (typeof item.id === "string" || Number.isSafeInteger(item.id))
        ? item.id as RequestId
        : null
      return { id, code: -32600, message: `Invalid Request: ${invalidReason(item)}` }
    }
  }
  return { value }
}

/** A request header as one field of the SDK's classifier input, absent when the request has none. */
const header = <K extends string>(req: IncomingMessage, name: string, key: K): { [k in K]?: string } => {
  const value = req.headers[name]
  const first = Array.isArray(value) ? value[0] : value
  return (first === undefined ? {} : { [key]: first }) as { [k in K]?: string }
}

const refuseMessage = (res: ServerResponse, problem: BodyProblem) => {
  res.writeHead(400, { "content-type": "application/json" })
  res.end(JSON.stringify({ jsonrpc: "2.0", id: problem.id, error: { code: problem.code, message: problem.message } }))
}

/** The largest POST body read (the SDK's own default is 4 MB). */
const maxBodyBytes = 4 * 1024 * 1024

export const serveHttp = Effect.fn("HttpServe.serveHttp")(function*<R>(spec: ServerSpec<R>, options: HttpOptions) {
  const runtime = yield* Effect.runtime<R>()
  const idle = Duration.decode(options.sessionIdle ?? defaultSessionIdle)
  const table = makeSessionTable(Duration.toMillis(idle))
  const sessions = table.sessions
  // The runtime's clock, so that tests move idle time with the TestClock.
  const now = () => Runtime.runSync(runtime)(Clock.currentTimeMillis)
  const end = (session: Session) => session.transport.close().catch(() => undefined)
  const factory = serverFactory(spec, runtime)
  // 2026-07-28 requests carry no session: the jobs they start belong to this server's one modern session.
  const modernSession = randomUUID()
  const modern = createMcpHandler(() => factory(modernSession), { legacy: "reject", maxRequestBodySize: maxBodyBytes })
  const serveModern = toNodeHandler(modern, { maxRequestBodySize: maxBodyBytes })

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if (sessions.size >= maxSessions) {
      const oldest = table.evictable()
      if (oldest === undefined) {
        return refuse(res, 503, `Too many sessions (${maxSessions}), each with a request in flight; retry later`)
      }
      await end(oldest)
    }
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, { transport, lastSeen: now(), inflight: 0 }),
      onsessionclosed: (id) => void sessions.delete(id)
    })
    const session = randomUUID()
    // A session closed any way (DELETE, idle, evicted, shutdown) leaves the table and ends its jobs here.
    const checked = new CheckedTransport(transport, () => {
      endSession(spec, runtime, session)
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    })
    await factory(session).connect(checked)
    await transport.handleRequest(req, res, body)
  }

  /** A POST body read and checked as JSON-RPC; undefined once refused (too large, not JSON, not a message). */
  const readMessages = async (req: IncomingMessage, res: ServerResponse) => {
    const bytes = await readBody(req, maxBodyBytes).catch(() => null)
    if (bytes === null) {
      refuse(res, 413, `Payload Too Large: at most ${maxBodyBytes} bytes`)
      return undefined
    }
    const checked = bodyProblem(bytes.toString("utf8"))
    if ("value" in checked) return checked
    refuseMessage(res, checked)
    return undefined
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const bound = { host: options.host, port: (server.address() as AddressInfo).port }
    const verdict = admission({ origin: req.headers.origin, host: req.headers.host }, bound)
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
      const session = sessions.get(sessionId)
      if (session === undefined) return refuse(res, 404, "Session not found: initialize a new session")
      session.lastSeen = now()
      if (req.method === "GET") return session.transport.handleRequest(req, res)
      let body: unknown
      if (req.method === "POST") {
        const read = await readMessages(req, res)
        if (read === undefined) return
        body = read.value
      }
      // In flight until its reply is over: a tool call's SSE reply outlives handleRequest.
      session.inflight += 1
      res.once("close", () => {
        session.inflight -= 1
        session.lastSeen = now()
      })
      return session.transport.handleRequest(req, res, body)
    }
    if (req.method !== "POST") return refuse(res, 400, "Bad Request: no Mcp-Session-Id; initialize with a POST first")
    const read = await readMessages(req, res)
    if (read === undefined) return
    const body = read.value
    const route = classifyInboundRequest({
      httpMethod: "POST",
      ...header(req, "mcp-protocol-version", "protocolVersionHeader"),
      ...header(req, "mcp-method", "mcpMethodHeader"),
      ...header(req, "mcp-name", "mcpNameHeader"),
      body
    })
    // The modern path answers its own rejections (an unsupported revision, a header that contradicts the body).
    if (route.kind !== "legacy") return serveModern(req as NodeIncomingMessageLike, res, body)
    if (!isInitializeRequest(body)) {
      return refuse(res, 400, "Bad Request: no Mcp-Session-Id; the first request of a session is initialize")
    }
    return openSession(req, res, body)
  }

  const backlog = makeBacklogGuard(backlogLimits)
  // Replies go out as written (no Nagle wait on a small SSE event or JSON body); Node's default, stated.
  const server = createServer({ noDelay: true }, (req, res) => {
    guarded(res, backlog, runtime, replyStall)
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
        await Promise.all([...sessions.values()].map(end))
        await modern.close()
        endSession(spec, runtime, modernSession)
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      })
  )
  // Idle sessions are looked for a few times per idle period, so one ends at most a quarter late.
  yield* Effect.forkScoped(
    Effect.repeat(
      Effect.promise(() => Promise.all(table.expired(now()).map(end))),
      Schedule.spaced(Duration.max(Duration.divide(idle, 4).pipe(Option.getOrElse(() => idle)), Duration.millis(10)))
    )
  )
  const port = (server.address() as AddressInfo).port
  options.onListening?.(port)
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host
  yield* Effect.logInfo(`vtree mcp: serving MCP over HTTP at http://${shown}:${port}${mcpPath}`)
  return yield* Effect.never
})
