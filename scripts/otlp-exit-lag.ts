// Exit lag and span loss of the two OTLP exporters vtree could use: its own (layers/otel/OtlpTracing.ts: the
// OpenTelemetry SDK batch processor and OtlpHttpExport.ts) and @effect/opentelemetry's OtlpTracer, against a dead
// port, a black hole and a collector answering after 300 ms. Each run: 20 spans, 1.1 s of work (a periodic export
// starts at 1 s, so one is in flight at the end), 20 spans, end; the lag is from the end of the work to the end of
// the layer. For the reasons in OtlpHttpExport.ts and README "Tracing". Usage: tsx scripts/otlp-exit-lag.ts
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer, Logger, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as OtlpTracing from "../src/layers/otel/OtlpTracing.js"
import { closedPort, startBlackHole } from "../test/support/otlp/Receiver.js"

const slowReceiver = async (delay: number) => {
  let spans = 0
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      setTimeout(() => {
        // An export the client cancelled has not been delivered.
        if (request.socket.destroyed) return
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans += (s.spans ?? []).length
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      }, delay)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    }
  }
}

const current = (url: string) =>
  OtlpTracing.layer({
    url,
    protocol: "http/json",
    headers: Redacted.make({}),
    serviceName: "vtree",
    resourceAttributes: {},
    captureContent: false
  })

const effect = (url: string) =>
  OtlpTracer.layer({
    url,
    resource: { serviceName: "vtree" },
    exportInterval: "1 second",
    shutdownTimeout: "500 millis"
  })
    .pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(NodeHttpClient.layer))

const spans = (n: number, prefix: string) =>
  Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => Effect.void.pipe(Effect.withSpan(`${prefix}${i}`)))

const measure = async (name: string, layer: Layer.Layer<never>) => {
  const warnings: Array<string> = []
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message))
    })
  )
  let workEnded = 0
  await Effect.runPromise(
    Effect.gen(function*() {
      yield* spans(20, "a")
      yield* Effect.sleep("1100 millis")
      yield* spans(20, "b")
      workEnded = performance.now()
    }).pipe(Effect.withSpan("root"), Effect.provide(Layer.provideMerge(layer, logger)))
  )
  const lag = performance.now() - workEnded
  return { name, lagMs: Math.round(lag), warnings: warnings.length }
}

const rounds = Number(process.argv[2] ?? 3)
for (let round = 0; round < rounds; round++) {
  for (const [implName, make] of [["effect", effect], ["vtree", current]] as const) {
    const port = await closedPort()
    console.log(JSON.stringify(await measure(`${implName} dead`, make(`http://127.0.0.1:${port}/v1/traces`))))
    const hole = await startBlackHole()
    console.log(JSON.stringify(await measure(`${implName} silent`, make(`${hole.url}/v1/traces`))))
    await hole.close()
    const slow = await slowReceiver(300)
    const result = await measure(`${implName} slow300`, make(`${slow.url}/v1/traces`))
    // Answers still on their way are counted before the receiver closes.
    await new Promise((resolve) => setTimeout(resolve, 800))
    console.log(JSON.stringify({ ...result, received: slow.spans(), of: 41 }))
    await slow.close()
  }
}
