/**
 * Span export over OTLP/HTTP: Effect's spans through @effect/opentelemetry into the OpenTelemetry JS SDK's
 * batch processor and OTLP exporter (protobuf or JSON). Everything OpenTelemetry is imported here, on
 * demand: a command run without an endpoint never loads it (`Output.tracing`, cli/composition/Output.ts).
 *
 * A dead or slow collector must never slow or fail a run: the queue is bounded (spans beyond it are
 * dropped), each export gives up after `exportTimeout`, the flush at exit has `shutdownBudget`, and a
 * failed export says so once on stderr rather than once per batch.
 */
import type { SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Duration, Effect, Layer, Redacted, Runtime } from "effect"
import type { TracingConfig } from "../../config/TracingConfig.js"
import { captureGenAiContent } from "../../services/Telemetry.js"

/** How long one batch export may take before it is abandoned. */
export const exportTimeout = Duration.millis(1500)
/** The most the flush at exit may add to a command's run time. */
export const shutdownBudget = Duration.seconds(2)
/** Spans held while the collector is slow; more are dropped, so memory stays bounded. */
export const maxQueueSize = 4096
const maxExportBatchSize = 512
const scheduledDelay = Duration.seconds(1)

/** Where spans go, as a warning may name it: the URL without its query (no token a proxy may carry there). */
const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return "(unparseable URL)"
  }
}

/** The exporter, saying once (through `warn`) that an export failed; later failures drop their spans quietly. */
export const warningOnce = (exporter: SpanExporter, warn: (reason: string) => void): SpanExporter => {
  let warned = false
  return {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0; the enum lives in @opentelemetry/core, not imported for one constant.
        if (result.code !== 0 && !warned) {
          warned = true
          warn(result.error?.message ?? "export failed")
        }
        done(result)
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve()
  }
}

/**
 * The OpenTelemetry SDK packages are CommonJS: imported from the ES bundle, their exports sit on `default`
 * (Node's own loader offers both).
 */
const commonJs = <A extends object>(module: A): A => (module as { readonly default?: A }).default ?? module

const loadSdk = (protocol: TracingConfig["protocol"]) =>
  Effect.promise(() =>
    Promise.all([
      import("@effect/opentelemetry/Tracer"),
      import("@effect/opentelemetry/Resource"),
      import("@opentelemetry/sdk-trace-base").then(commonJs),
      import("@opentelemetry/resources").then(commonJs),
      (protocol === "http/json"
        ? import("@opentelemetry/exporter-trace-otlp-http")
        : import("@opentelemetry/exporter-trace-otlp-proto")).then(commonJs)
    ])
  )

/**
 * The tracer Effect's spans go to, exporting to `config.url`, and content capture as configured. The
 * provider is flushed and shut down when the command's scope closes, within `shutdownBudget`.
 */
export const layer = (config: TracingConfig): Layer.Layer<never> =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const [Tracer, Resource, Sdk, Resources, Exporter] = yield* loadSdk(config.protocol)
    // OTEL_RESOURCE_ATTRIBUTES, then service.name and the SDK's own name over them.
    const resource = Resources.resourceFromAttributes(
      Resource.configToAttributes({ serviceName: config.serviceName, attributes: config.resourceAttributes })
    )
    const runtime = yield* Effect.runtime<never>()
    const warn = (reason: string) =>
      Runtime.runFork(runtime)(
        Effect.logWarning(
          `trace export to ${
            displayUrl(config.url)
          } failed (${reason}); the run goes on, spans that cannot be sent are dropped`
        )
      )
    const exporter = warningOnce(
      new Exporter.OTLPTraceExporter({
        url: config.url,
        headers: { ...Redacted.value(config.headers) },
        timeoutMillis: Duration.toMillis(exportTimeout)
      }),
      warn
    )
    const provider = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Sdk.BasicTracerProvider({
          resource,
          spanProcessors: [
            new Sdk.BatchSpanProcessor(exporter, {
              maxQueueSize,
              maxExportBatchSize,
              scheduledDelayMillis: Duration.toMillis(scheduledDelay),
              exportTimeoutMillis: Duration.toMillis(exportTimeout)
            })
          ]
        })
      ),
      (provider) =>
        // A flush that fails (the collector is down) was already warned about; it must not fail the command.
        Effect.tryPromise(() => provider.forceFlush().then(() => provider.shutdown())).pipe(
          Effect.interruptible,
          Effect.timeoutOption(shutdownBudget),
          Effect.ignore
        )
    )
    return Layer.mergeAll(
      Tracer.layer.pipe(
        Layer.provide(Layer.succeed(Tracer.OtelTracerProvider, provider)),
        Layer.provide(Layer.succeed(Resource.Resource, resource))
      ),
      Layer.setTracerEnabled(true),
      Layer.scopedDiscard(Effect.locallyScoped(captureGenAiContent, config.captureContent))
    )
  }))
