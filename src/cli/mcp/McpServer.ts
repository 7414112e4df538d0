import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  ClientRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  type JSONRPCMessage,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type MessageExtraInfo,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Exit, Option, Runtime, type Tracer } from "effect"
import { randomUUID } from "node:crypto"
import type { CallContext, McpTool, ResourceCatalog } from "../../programs/mcp/McpTool.js"
import { capToolReply } from "../../programs/mcp/ResultCaps.js"
import { GenAiAttr, operationAttributes } from "../../services/GenAiConventions.js"

/**
 * vtree's tools and resources served through the official MCP SDK's `Server`. Handlers are Effects run
 * by the CLI's runtime: cancellation (`notifications/cancelled`) aborts the request's signal, which
 * interrupts its fiber and with it every HTTP call it makes, and the SDK then sends no reply for it.
 * Only what has a handler is advertised: tools, and resources when trees are served.
 */
export interface ServerSpec<R> {
  readonly name: string
  readonly version: string
  readonly instructions?: string
  readonly tools: ReadonlyArray<McpTool<R>>
  readonly resources?: ResourceCatalog<R>
}

/**
 * The caller's span when its request carries W3C trace context in `_meta` (`traceparent`, `tracestate`),
 * where the MCP semantic conventions propagate it: the tool call then joins the caller's trace.
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
  effect: Effect.Effect<A, McpError, R>,
  signal: AbortSignal
): Promise<A> =>
  Runtime.runPromiseExit(runtime)(effect, { signal }).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") throw failure.value
    if (!Cause.isInterruptedOnly(exit.cause)) {
      Runtime.runFork(runtime)(Effect.logError(`mcp: ${what} failed`, exit.cause))
    }
    throw new McpError(
      ErrorCode.InternalError,
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

/** tools/list and tools/call: every tool of the spec, a call reported back as the SDK's result. */
const serveTools = <R>(server: Server, spec: ServerSpec<R>, runtime: Runtime.Runtime<R>, session: string): void => {
  const tools = new Map(spec.tools.map((tool) => [tool.name, tool]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: spec.tools.map((tool) => ({
      name: tool.name,
      title: tool.annotations.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object" },
      outputSchema: tool.outputSchema as { type: "object" },
      annotations: { ...tool.annotations },
      ...(tool.meta === undefined ? {} : { _meta: { ...tool.meta } })
    }))
  }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = tools.get(request.params.name)
    if (tool === undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}; available: ${[...tools.keys()].join(", ")}`
      )
    }
    const token = request.params._meta?.progressToken
    const context: CallContext = {
      session,
      progress: (progress, total, message) =>
        token === undefined
          ? Effect.void
          : Effect.promise(() =>
            extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message }
            }).catch(() => undefined)
          )
    }
    const call = tracedToolCall(tool, request.params.arguments ?? {}, request.params._meta, context)
    return runHandler(runtime, tool.name, call, extra.signal).then((reply) => ({
      content: reply.content.map((item) => ({ ...item })),
      ...(reply.structuredContent === undefined ? {} : { structuredContent: { ...reply.structuredContent } }),
      isError: reply.isError
    }))
  })
}

/** resources/list, resources/templates/list and resources/read over the catalog. */
const serveResources = <R>(server: Server, resources: ResourceCatalog<R>, runtime: Runtime.Runtime<R>): void => {
  server.setRequestHandler(
    ListResourcesRequestSchema,
    (request, extra) =>
      runHandler(
        runtime,
        "resources/list",
        Effect.mapError(
          resources.list(request.params?.cursor),
          (error) => new McpError(ErrorCode.InvalidParams, error.message)
        ),
        extra.signal
      ).then((page) => ({
        resources: page.resources.map((item) => ({ ...item })),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
      }))
  )
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: resources.templates.map((item) => ({ ...item }))
  }))
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    runHandler(
      runtime,
      "resources/read",
      Effect.mapError(
        resources.read(request.params.uri),
        (error) => new McpError(ErrorCode.InvalidParams, error.message, { uri: request.params.uri })
      ),
      extra.signal
    ).then((contents) => ({ contents: contents.map((item) => ({ ...item })) })))
}

export const makeServer = <R>(spec: ServerSpec<R>, runtime: Runtime.Runtime<R>): Server => {
  const server = new Server(
    { name: spec.name, version: spec.version },
    {
      capabilities: { tools: {}, ...(spec.resources === undefined ? {} : { resources: {} }) },
      ...(spec.instructions === undefined ? {} : { instructions: spec.instructions })
    }
  )
  const session = randomUUID()
  serveTools(server, spec, runtime, session)
  if (spec.resources !== undefined) serveResources(server, spec.resources, runtime)
  // The session's jobs end with it. Callers that wait for the close chain onto this handler.
  server.onclose = () => {
    for (const tool of spec.tools) {
      if (tool.endSession !== undefined) Runtime.runFork(runtime)(tool.endSession(session))
    }
  }
  return server
}

// ---- Request params checked before the SDK sees them ----------------------------------------------

type ParamsSchema = { readonly safeParse: (value: unknown) => { success: boolean; error?: { issues: Array<Issue> } } }
type Issue = { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }

/** Every request a client may send, by method: the SDK's own Schemas. */
const requestSchemas: ReadonlyMap<string, ParamsSchema> = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema as unknown as ParamsSchema])
)

const issueText = (issue: Issue): string => {
  const path = issue.path.map(String).join(".")
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
  const parsed = schema.safeParse(message)
  if (parsed.success) return undefined
  const issues = parsed.error?.issues ?? []
  return issues.slice(0, 3).map(issueText).join("; ") || "params do not match the method"
}

/**
 * A transport whose requests are checked against the SDK's Schema for their method before the server
 * sees them. Without it a request with bad params is answered -32603 with the validator's issue list
 * as JSON; JSON-RPC says -32602, and a client reads one plain line.
 */
export class CheckedTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined

  constructor(readonly inner: Transport) {
    inner.onclose = () => this.onclose?.()
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
          error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` }
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
