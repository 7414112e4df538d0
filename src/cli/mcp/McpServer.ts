import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import {
  type CacheHint,
  type CallToolResult,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  Server,
  type ServerContext,
  specTypeSchemas,
  type StandardSchemaV1,
  type Tool,
  type Transport,
  type TransportSendOptions
} from "@modelcontextprotocol/server"
import { Cause, Effect, Exit, Option, Runtime, type Tracer } from "effect"
import type { CallContext, McpTool, ResourceCatalog } from "../../programs/mcp/McpTool.js"
import { capToolReply } from "../../programs/mcp/ResultCaps.js"
import { GenAiAttr, operationAttributes } from "../../services/GenAiConventions.js"

/**
 * vtree's tools and resources served through the official MCP SDK's low-level `Server` (v2), which
 * speaks both protocol eras: a 2025-era client opens with `initialize`, a 2026-07-28 client probes with
 * `server/discover` and sends its protocol envelope in every request's `_meta`. The tools' JSON Schemas
 * are vtree's own (McpTool.ts), handed to the SDK as they are: the low-level handlers take raw JSON
 * Schema where the high-level `McpServer` wants Standard Schema objects. Handlers are Effects run by
 * the CLI's runtime: cancellation (`notifications/cancelled`, or on 2026-07-28 HTTP the request's
 * connection closing) aborts the request's signal, which interrupts its fiber and with it every HTTP
 * call it makes, and the SDK then sends no reply for it. Only what has a handler is advertised: tools,
 * and resources when trees are served.
 */
export interface ServerSpec<R> {
  readonly name: string
  readonly version: string
  readonly instructions?: string
  readonly tools: ReadonlyArray<McpTool<R>>
  readonly resources?: ResourceCatalog<R>
}

/**
 * The W3C trace context of a request's `_meta` (`traceparent`, `tracestate`), where the MCP semantic
 * conventions propagate it in both eras: the tool call then joins the caller's trace.
 */
export const callerSpan = (meta: Readonly<Record<string, unknown>> | undefined): Option.Option<Tracer.ExternalSpan> => {
  const traceparent = meta?.["traceparent"]
  const tracestate = meta?.["tracestate"]
  if (typeof traceparent !== "string") return Option.none()
  return HttpTraceContext.w3c(
    Headers.fromInput({ traceparent, ...(typeof tracestate === "string" ? { tracestate } : {}) })
  )
}

/** A defect is logged in full on stderr; the client gets a plain line, never the library's internals. */
const runHandler = <A, R>(
  runtime: Runtime.Runtime<R>,
  what: string,
  effect: Effect.Effect<A, ProtocolError, R>,
  signal: AbortSignal
): Promise<A> =>
  Runtime.runPromiseExit(runtime)(effect, { signal }).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") throw failure.value
    if (!Cause.isInterruptedOnly(exit.cause)) {
      Runtime.runFork(runtime)(Effect.logError(`mcp: ${what} failed`, exit.cause))
    }
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      Cause.isInterruptedOnly(exit.cause)
        ? `${what} was interrupted (the server is stopping)`
        : `${what} failed inside vtree — see the server's log`
    )
  })

/**
 * One tool call, its reply capped, as one span (MCP and GenAI conventions) that joins the caller's
 * trace when its request carries one.
 */
const tracedToolCall = <R>(
  tool: McpTool<R>,
  args: unknown,
  meta: Readonly<Record<string, unknown>> | undefined,
  context: CallContext
) =>
  Effect.map(tool.call(args, context), capToolReply(tool)).pipe(
    Effect.tap((reply) => reply.isError ? Effect.annotateCurrentSpan(GenAiAttr.errorType, "tool_error") : Effect.void),
    // Arguments and results are never on the span: the Search Hub's carry queries and URLs, which vtree
    // keeps out of every log.
    Effect.withSpan(`tools/call ${tool.name}`, {
      kind: "server",
      attributes: {
        [GenAiAttr.mcpMethodName]: "tools/call",
        ...operationAttributes.execute_tool,
        [GenAiAttr.toolName]: tool.name
      },
      ...Option.match(callerSpan(meta), {
        // Not a child of the server's own span, which lasts as long as the server: a trace per call.
        onNone: () => ({ root: true }),
        onSome: (parent) => ({ parent })
      })
    })
  )

/**
 * A tool as tools/list shows it. Its `meta` (MCP Apps' `ui.resourceUri`, `anthropic/maxResultSizeChars`)
 * is its `_meta` when it has one; the rest is passed as declared, so a field added to McpTool's meta or
 * content needs no mapping here.
 */
const listed = (tool: McpTool<any>): Tool => ({
  name: tool.name,
  title: tool.annotations.title,
  description: tool.description,
  inputSchema: tool.inputSchema as Tool["inputSchema"],
  outputSchema: tool.outputSchema as NonNullable<Tool["outputSchema"]>,
  annotations: { ...tool.annotations },
  ...(tool.meta === undefined ? {} : { _meta: { ...tool.meta } })
})

/**
 * How long a 2026-07-28 client may reuse a list or a read (`ttlMs`, `cacheScope`; 2025-era replies carry
 * none). The tool list and templates are fixed for a server's life; the trees folder may gain a video, so
 * resources are reused for a minute. Private: a server behind a token is not for shared caches.
 */
export const cacheHints: Readonly<
  Record<"tools/list" | "resources/templates/list" | "server/discover" | "resources/list" | "resources/read", CacheHint>
> = {
  "server/discover": { ttlMs: 600_000, cacheScope: "private" },
  "tools/list": { ttlMs: 600_000, cacheScope: "private" },
  "resources/templates/list": { ttlMs: 600_000, cacheScope: "private" },
  "resources/list": { ttlMs: 60_000, cacheScope: "private" },
  "resources/read": { ttlMs: 60_000, cacheScope: "private" }
}

/** tools/list and tools/call: every tool of the spec, a call reported back as the SDK's result. */
const serveTools = <R>(
  server: Server,
  tools: ReadonlyMap<string, McpTool<R>>,
  listing: ReadonlyArray<Tool>,
  runtime: Runtime.Runtime<R>,
  session: string
): void => {
  server.setRequestHandler("tools/list", () => ({ tools: [...listing] }))
  server.setRequestHandler("tools/call", (request, ctx: ServerContext) => {
    const tool = tools.get(request.params.name)
    if (tool === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}; available: ${[...tools.keys()].join(", ")}`
      )
    }
    const meta = request.params._meta
    const token = meta?.progressToken
    const context: CallContext = {
      session,
      progress: (progress, total, message) =>
        token === undefined
          ? Effect.void
          : Effect.promise(() =>
            ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message }
            }).catch(() => undefined)
          )
    }
    const call = tracedToolCall(tool, request.params.arguments ?? {}, meta, context)
    return runHandler(runtime, tool.name, call, ctx.mcpReq.signal).then((reply): CallToolResult => ({
      content: reply.content as CallToolResult["content"],
      ...(reply.structuredContent === undefined ? {} : { structuredContent: { ...reply.structuredContent } }),
      isError: reply.isError
    }))
  })
}

/** resources/list, resources/templates/list and resources/read over the catalog. */
const serveResources = <R>(server: Server, resources: ResourceCatalog<R>, runtime: Runtime.Runtime<R>): void => {
  server.setRequestHandler("resources/list", (request, ctx) =>
    runHandler(
      runtime,
      "resources/list",
      Effect.mapError(
        resources.list(request.params?.cursor),
        (error) => new ProtocolError(ProtocolErrorCode.InvalidParams, error.message)
      ),
      ctx.mcpReq.signal
    ).then((page) => ({
      resources: page.resources.map((item) => ({ ...item })),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
    })))
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: resources.templates.map((item) => ({ ...item }))
  }))
  server.setRequestHandler("resources/read", (request, ctx) =>
    runHandler(
      runtime,
      "resources/read",
      Effect.mapError(
        resources.read(request.params.uri),
        // -32602 with `{ uri }` as data: what both eras read as "resource not found".
        (error) => new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { uri: request.params.uri })
      ),
      ctx.mcpReq.signal
    ).then((contents): ReadResourceResult => ({ contents: contents.map((item) => ({ ...item })) })))
}

/**
 * Makes SDK servers for `spec`, one per connection or (2026-07-28 over HTTP) per request: the tool list
 * is built once, each server is a few handler registrations. `session` names whose jobs a call starts.
 */
export const serverFactory = <R>(spec: ServerSpec<R>, runtime: Runtime.Runtime<R>) => {
  const tools = new Map(spec.tools.map((tool) => [tool.name, tool]))
  const listing = spec.tools.map(listed)
  return (session: string): Server => {
    const server = new Server(
      { name: spec.name, version: spec.version },
      {
        capabilities: { tools: {}, ...(spec.resources === undefined ? {} : { resources: {} }) },
        cacheHints,
        ...(spec.instructions === undefined ? {} : { instructions: spec.instructions })
      }
    )
    serveTools(server, tools, listing, runtime, session)
    if (spec.resources !== undefined) serveResources(server, spec.resources, runtime)
    return server
  }
}

/** The session ended (its connection closed, or it was deleted or expired): what it started stops. */
export const endSession = <R>(spec: ServerSpec<R>, runtime: Runtime.Runtime<R>, session: string): void => {
  for (const tool of spec.tools) {
    if (tool.endSession !== undefined) Runtime.runFork(runtime)(tool.endSession(session))
  }
}

// ---- Request params checked before the SDK sees them ----------------------------------------------

/** Every request a client may send, by method: the SDK's own Schemas (Standard Schema). */
const requestSchemas: ReadonlyMap<string, StandardSchemaV1> = new Map(
  ([
    ["initialize", "InitializeRequest"],
    ["server/discover", "DiscoverRequest"],
    ["ping", "PingRequest"],
    ["tools/list", "ListToolsRequest"],
    ["tools/call", "CallToolRequest"],
    ["resources/list", "ListResourcesRequest"],
    ["resources/templates/list", "ListResourceTemplatesRequest"],
    ["resources/read", "ReadResourceRequest"],
    ["resources/subscribe", "SubscribeRequest"],
    ["resources/unsubscribe", "UnsubscribeRequest"],
    ["prompts/list", "ListPromptsRequest"],
    ["prompts/get", "GetPromptRequest"],
    ["completion/complete", "CompleteRequest"],
    ["logging/setLevel", "SetLevelRequest"]
  ] as const).map(([method, name]) => [method, specTypeSchemas[name] as StandardSchemaV1])
)

const issueText = (issue: StandardSchemaV1.Issue): string => {
  const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".")
  return path === "" ? issue.message : `${path}: ${issue.message}`
}

/** Params nested deeper than this are refused before any validator or handler recurses into them. */
export const maxParamsDepth = 64

/** Whether `value` nests arrays and objects deeper than `limit`, counted without recursion. */
export const nestedDeeperThan = (value: unknown, limit: number): boolean => {
  const pending: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue
    if (next.depth >= limit) return true
    for (const inner of Object.values(next.value)) pending.push({ value: inner, depth: next.depth + 1 })
  }
  return false
}

/** Why a request's params do not fit its method, in one plain line; none when they fit or the method is unknown. */
export const paramsProblem = (message: JSONRPCMessage): string | undefined => {
  if (!isJSONRPCRequest(message)) return undefined
  if (nestedDeeperThan(message.params, maxParamsDepth)) return `params nest deeper than ${maxParamsDepth} levels`
  const schema = requestSchemas.get(message.method)
  if (schema === undefined) return undefined
  const parsed = schema["~standard"].validate(message)
  // The SDK's spec Schemas are synchronous (zod without async refinements).
  if (parsed instanceof Promise || parsed.issues === undefined) return undefined
  return parsed.issues.slice(0, 3).map(issueText).join("; ") || "params do not match the method"
}

/**
 * A transport whose requests are checked against the SDK's Schema for their method before the server
 * sees them. Without it a request with bad params is answered -32602 with the validator's issue list
 * dumped as JSON; a client reads one plain line. `onClosed` runs once the inner transport has closed.
 */
export class CheckedTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined

  constructor(readonly inner: Transport, onClosed?: () => void) {
    inner.onclose = () => {
      onClosed?.()
      this.onclose?.()
    }
    inner.onerror = (error) => this.onerror?.(error)
    inner.onmessage = (message, extra) => {
      const problem = paramsProblem(message)
      if (problem === undefined || !isJSONRPCRequest(message)) {
        this.onmessage?.(message, extra)
        return
      }
      void inner.send(
        {
          jsonrpc: "2.0",
          id: message.id,
          error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${problem}` }
        },
        { relatedRequestId: message.id }
      ).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
    }
  }

  get sessionId() {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string) {
    this.inner.setProtocolVersion?.(version)
  }

  setSupportedProtocolVersions(versions: Array<string>) {
    this.inner.setSupportedProtocolVersions?.(versions)
  }

  start() {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions) {
    return this.inner.send(message, options)
  }

  close() {
    return this.inner.close()
  }
}
