// A loopback OTLP/HTTP trace receiver for tests: it accepts POST /v1/traces in protobuf or JSON and decodes
// each request with OpenTelemetry's own generated decoder (the protobufjs root @opentelemetry/otlp-transformer 0.215
// ships; vtree itself encodes with 0.223, which no longer ships it), so what a test reads is what any collector would
// have read off the wire. Beside it, the collectors that go wrong: one that accepts and never answers, and a
// port where nothing listens.
import { createServer, type IncomingHttpHeaders } from "node:http"
import { createRequire } from "node:module"
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net"

interface ProtoType {
  decode(buffer: Uint8Array): unknown
  fromObject(object: unknown): unknown
  toObject(message: unknown, options: Record<string, unknown>): unknown
}
const root = createRequire(import.meta.url)("otlp-transformer-decoders/build/src/generated/root") as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } }
}
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest

interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly doubleValue?: number
  readonly boolValue?: boolean
}

/** One received span, its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly name: string
  readonly kind: number
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly attributes: Readonly<Record<string, string | number | boolean>>
  readonly status: { readonly code?: number }
  readonly resource: Readonly<Record<string, string | number | boolean>>
}

/** The OTLP span kinds (opentelemetry/proto/trace/v1/trace.proto). */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const

interface Decoded {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource?: { readonly attributes?: ReadonlyArray<{ key: string; value: AnyValue }> }
    readonly scopeSpans?: ReadonlyArray<{
      readonly spans?: ReadonlyArray<{
        name: string
        kind?: number
        traceId: string
        spanId: string
        parentSpanId?: string
        attributes?: ReadonlyArray<{ key: string; value: AnyValue }>
        status?: { code?: number }
      }>
    }>
  }>
}

const plain = (value: AnyValue): string | number | boolean =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ??
    value.boolValue ?? ""

const flatten = (attributes: ReadonlyArray<{ key: string; value: AnyValue }> | undefined) =>
  Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, plain(value)]))

// Bytes as base64 and enums as numbers, for both encodings: ids only need to match one another.
const asObject = (message: unknown): Decoded =>
  ExportTraceServiceRequest.toObject(message, {
    longs: String,
    bytes: String,
    enums: Number,
    defaults: false
  }) as Decoded

export interface OtlpReceiver {
  readonly url: string
  readonly spans: ReadonlyArray<ReceivedSpan>
  /** Content types of the requests received, in order. */
  readonly contentTypes: ReadonlyArray<string>
  readonly headers: ReadonlyArray<IncomingHttpHeaders>
  readonly close: () => Promise<void>
}

export const startReceiver = async (): Promise<OtlpReceiver> => {
  const spans: Array<ReceivedSpan> = []
  const contentTypes: Array<string> = []
  const headers: Array<IncomingHttpHeaders> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end()
        return
      }
      const body = Buffer.concat(chunks)
      const type = request.headers["content-type"] ?? ""
      contentTypes.push(type)
      headers.push(request.headers)
      const decoded = type.startsWith("application/json")
        ? asObject(ExportTraceServiceRequest.fromObject(JSON.parse(body.toString("utf8"))))
        : asObject(ExportTraceServiceRequest.decode(body))
      for (const resourceSpans of decoded.resourceSpans ?? []) {
        const resource = flatten(resourceSpans.resource?.attributes)
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              name: span.name,
              kind: span.kind ?? 0,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              attributes: flatten(span.attributes),
              status: span.status ?? {},
              resource
            })
          }
        }
      }
      response.writeHead(200, { "content-type": type.startsWith("application/json") ? "application/json" : type })
      response.end(type.startsWith("application/json") ? "{}" : Buffer.alloc(0))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    headers,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

/** A collector that accepts connections, reads what is sent and never answers: a black hole on loopback. */
export interface BlackHole {
  readonly url: string
  /** Connections accepted so far. */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

export const startBlackHole = async (): Promise<BlackHole> => {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server = createTcpServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on("data", () => undefined)
    socket.on("error", () => undefined)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

/** A loopback port nothing listens on (bound, then closed): connections to it are refused. */
export const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createTcpServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
