/**
 * The official MCP clients of both protocol eras, connected to vtree's server: the v1 SDK's `Client`
 * (the 2025-11-25 era, `initialize`) and the v2 SDK's `Client` pinned to 2026-07-28 (`server/discover`,
 * the per-request envelope). In-process they meet the server through the SDK's stdio entry over linked
 * in-memory transports: the protocol as clients speak it, with no process or socket. Tests call them
 * through one surface, so a test runs unchanged against either era.
 */
import {
  Client,
  InMemoryTransport,
  ProtocolError,
  StreamableHTTPClientTransport,
  type Transport
} from "@modelcontextprotocol/client"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport as TransportV1 } from "@modelcontextprotocol/sdk/shared/transport.js"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { ServerSpec } from "../../../src/cli/mcp/McpServer.js"
import { serveLines } from "../../../src/cli/mcp/Serve.js"

export type Era = "2025-11-25" | "2026-07-28"
/** Both eras, for `describe.each`. */
export const eras: ReadonlyArray<Era> = ["2025-11-25", "2026-07-28"]

/** A tool result's parts, typed loosely for assertions. */
export type CallResult = {
  readonly isError?: boolean
  readonly structuredContent?: Record<string, any>
  readonly content: ReadonlyArray<{ type: string; text?: string; data?: string; mimeType?: string; uri?: string }>
}

export type ListedTool = {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: Record<string, any>
  readonly outputSchema?: Record<string, any>
  readonly annotations?: Record<string, any>
  readonly _meta?: Record<string, any>
}

export interface CallOptions {
  readonly onprogress?: (
    progress: { progress: number; total?: number | undefined; message?: string | undefined }
  ) => void
  readonly signal?: AbortSignal
}

export type ResourcePage = {
  readonly resources: ReadonlyArray<{ readonly uri: string; readonly name: string; readonly mimeType?: string }>
  readonly nextCursor?: string
}

export type Contents = {
  readonly uri: string
  readonly mimeType?: string
  readonly text?: string
  readonly blob?: string
  readonly _meta?: Record<string, unknown>
}

/** What tests do with a client, the same for both eras. */
export interface EraClient {
  readonly era: Era
  readonly callTool: (
    params: {
      readonly name: string
      readonly arguments?: Record<string, unknown>
      readonly _meta?: Record<string, unknown>
    },
    options?: CallOptions
  ) => Promise<CallResult>
  readonly listTools: () => Promise<{ readonly tools: ReadonlyArray<ListedTool> }>
  readonly listResources: (params?: { readonly cursor?: string }) => Promise<ResourcePage>
  readonly readResource: (params: { readonly uri: string }) => Promise<{ readonly contents: ReadonlyArray<Contents> }>
  /** The SDK's own client, for what a test looks at below the common surface. */
  readonly sdk: Client | ClientV1
}

const requestOptions = (options: CallOptions | undefined) => ({
  ...(options?.onprogress === undefined ? {} : { onprogress: options.onprogress }),
  ...(options?.signal === undefined ? {} : { signal: options.signal })
})

const clientOf = (era: Era, sdk: Client | ClientV1): EraClient => ({
  era,
  sdk,
  callTool: (params, options) =>
    (sdk instanceof ClientV1
      ? sdk.callTool({ ...params }, undefined, requestOptions(options))
      : sdk.callTool({ ...params }, requestOptions(options))) as Promise<CallResult>,
  listTools: () => sdk.listTools() as Promise<{ tools: ReadonlyArray<ListedTool> }>,
  // One page, as the server sends it: the v2 client without a cursor would walk and join every page.
  listResources: (params) =>
    (sdk instanceof ClientV1 || params?.cursor !== undefined
      ? sdk.listResources(params === undefined ? undefined : { ...params })
      : sdk.request({ method: "resources/list", params: {} })) as Promise<ResourcePage>,
  readResource: (params) => sdk.readResource({ ...params }) as Promise<{ readonly contents: ReadonlyArray<Contents> }>
})

/** A JSON-RPC error as either era's client raises it (v1 `McpError`, v2 `ProtocolError`). */
export const protocolError = (error: unknown): { readonly code: number; readonly message: string } | undefined =>
  error instanceof McpError || ProtocolError.isInstance(error) ? error : undefined

/**
 * A client of `era` connected over `transport` (a v1 transport for the 2025 era, a v2 one for 2026),
 * closed with the scope.
 */
export const connectEra = (era: Era, transport: () => Transport | TransportV1) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const wire = transport()
      if (era === "2025-11-25") {
        const sdk = new ClientV1({ name: "vtree-test", version: "0.0.0" })
        await sdk.connect(wire as TransportV1)
        return clientOf(era, sdk)
      }
      const sdk = new Client({ name: "vtree-test", version: "0.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } }
      })
      await sdk.connect(wire as Transport)
      return clientOf(era, sdk)
    }),
    (client) => Effect.promise(() => client.sdk.close())
  )

/** vtree's stdio server for `spec` in this process, and a client of `era` on it. */
export const sdkClient = <R>(spec: ServerSpec<R>, era: Era = "2025-11-25") =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<R>()
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const connection = serveLines(spec, runtime, serverSide)
    yield* Effect.addFinalizer(() => Effect.promise(() => connection.close()))
    return yield* connectEra(era, () => clientSide)
  })

/** A Streamable HTTP client transport of the SDK that speaks `era`. */
export const httpTransport = (era: Era, url: string, headers: Record<string, string>) =>
  era === "2025-11-25"
    ? new StreamableHTTPClientTransportV1(new URL(url), { requestInit: { headers } })
    : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
