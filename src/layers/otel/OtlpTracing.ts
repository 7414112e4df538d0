/**
 * Span export over OTLP/HTTP: Effect's spans through @effect/opentelemetry into the OpenTelemetry JS SDK's
 * batch processor, and from there as OTLP (protobuf or JSON) over Effect's HttpClient (OtlpHttpExport.ts).
 * Everything OpenTelemetry is imported here, on demand: a command run without an endpoint never loads it
 * (`Output.tracing`, cli/shared/OutputLayers.ts).
 *
 * A dead or slow collector must never slow or fail a run, nor hold the process at its end: the queue is
 * bounded (spans beyond it are dropped), each export gives up after `exportTimeout`, the flush at exit has
 * `shutdownDeadline` after which what is still in flight is cancelled, and lost spans are reported once
 * on stderr rather than once per batch.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { Context, Duration, Effect, Layer, Runtime, Tracer as EffectTracer } from "effect"
import type { TracingConfig } from "../../config/TracingConfig.js"
import { captureGenAiContent } from "../../services/Telemetry.js"

/** The most the flush at exit may add to a command's run time; then exports in flight are cancelled. */
export const shutdownDeadline = Duration.millis(500)
/** Spans held while the collector is slow; more are dropped, so memory stays bounded. */
export const maxQueueSize = 4096
const maxExportBatchSize = 512
const scheduledDelay = Duration.seconds(1)

/**
 * Where spans go, as a warning may name it: the URL without user, password or query (a token may sit in
 * either).
 */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return "(unparseable URL)"
  }
}

/**
 * The OpenTelemetry SDK packages are CommonJS: imported from the ES bundle, their exports sit on `default`
 * (Node's own loader offers both).
 */
const commonJs = <A extends object>(module: A): A => (module as { readonly default?: A }).default ?? module

const loadSdk = Effect.promise(() =>
  Promise.all([
    import("@effect/opentelemetry/Tracer"),
    import("@effect/opentelemetry/Resource"),
    import("@opentelemetry/sdk-trace-base").then(commonJs),
    import("@opentelemetry/resources").then(commonJs),
    import("@effect/platform-node/NodeHttpClient"),
    import("./OtlpHttpExport.js")
  ])
)

/**
 * The tracer Effect's spans go to, exporting to `config.url`, and content capture as configured. When the
 * command's scope closes, the spans left are flushed within `shutdownDeadline`; the rest are dropped.
 */
export const layer = (config: TracingConfig): Layer.Layer<never> =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const [Tracer, Resource, Sdk, Resources, NodeHttpClient, OtlpHttpExport] = yield* loadSdk
    // OTEL_RESOURCE_ATTRIBUTES, then service.name and the SDK's own name over them.
    const resource = Resources.resourceFromAttributes(
      Resource.configToAttributes({ serviceName: config.serviceName, attributes: config.resourceAttributes })
    )
    const runtime = yield* Effect.runtime<never>()
    // One line for the whole command, whatever failed first: a dead collector fails every batch.
    let warned = false
    const warning = (what: string) =>
      Effect.suspend(() => {
        if (warned) return Effect.void
        warned = true
        return Effect.logWarning(
          `trace export to ${displayUrl(config.url)} ${what}; the run goes on, spans that cannot be sent are dropped`
        )
      })
    // Node's own HTTP client, its sockets closed when the command's scope closes (after the flush below).
    const http = yield* Layer.build(NodeHttpClient.layer)
    const exports = yield* OtlpHttpExport.make(
      Context.get(http, HttpClient.HttpClient),
      config,
      (reason) => Runtime.runFork(runtime)(warning(`failed (${reason})`))
    )
    const provider = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Sdk.BasicTracerProvider({
          resource,
          spanProcessors: [
            new Sdk.BatchSpanProcessor(exports.exporter, {
              maxQueueSize,
              maxExportBatchSize,
              scheduledDelayMillis: Duration.toMillis(scheduledDelay),
              exportTimeoutMillis: Duration.toMillis(OtlpHttpExport.exportTimeout)
            })
          ]
        })
      ),
      (provider) =>
        Effect.gen(function*() {
          // The spans still queued handed to the exporter, and every export in flight ended, within the deadline;
          // a failed batch was already reported and must not fail the command.
          yield* Effect.promise(() => provider.forceFlush().catch(() => undefined)).pipe(
            Effect.zipRight(exports.idle),
            // A release runs uninterruptibly: without this the timeout would wait for what it times out.
            Effect.interruptible,
            // A refusal waiting to be read when the deadline is due still names the batch's failure.
            OtlpHttpExport.timeoutAfterPendingIo(shutdownDeadline),
            Effect.ignore
          )
          // What is left is cancelled, so no socket or retry timer outlives the command.
          const { dropped, lastReason } = yield* exports.close
          yield* Effect.promise(() => provider.shutdown().catch(() => undefined))
          if (dropped > 0) {
            yield* warning(
              `did not finish within ${Duration.format(shutdownDeadline)} at exit (${
                lastReason === undefined ? "" : `${lastReason}; `
              }${dropped} span${dropped === 1 ? "" : "s"})`
            )
          }
        })
    )
    // @effect/opentelemetry's tracer also makes each span the OpenTelemetry API's active context at every step of
    // every fiber, for OTel-instrumented libraries to read. vtree runs none, and registers no context manager (the
    // provider above is not made global), so that context was built at every step and dropped at once: about 5 %
    // of a traced run's CPU. Spans are the same without it; their parents come from Effect's own context.
    const spansOnly = Layer.unwrapEffect(Effect.map(Tracer.make, (otel) =>
      Layer.setTracer(EffectTracer.make({
        span: (...args) => otel.span(...args),
        context: (execution) => execution()
      }))))
    return Layer.mergeAll(
      spansOnly.pipe(
        Layer.provide(Tracer.layerTracer),
        Layer.provide(Layer.succeed(Tracer.OtelTracerProvider, provider)),
        Layer.provide(Layer.succeed(Resource.Resource, resource))
      ),
      Layer.setTracerEnabled(true),
      Layer.scopedDiscard(Effect.locallyScoped(captureGenAiContent, config.captureContent))
    )
  }))
