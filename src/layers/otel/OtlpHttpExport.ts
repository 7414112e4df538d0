/**
 * The SpanExporter the batch processor hands its batches to: each batch encoded by OpenTelemetry's own
 * OTLP serializer (protobuf or JSON) and POSTed with Effect's HttpClient, as a fiber of a FiberSet that
 * lives in the tracing layer's scope.
 *
 * Why not the SDK's OTLPTraceExporter: its HTTP transport cannot be cancelled (no abort signal, and the
 * retry backoff is a bare timer), so an export still in flight when a command ends keeps Node running
 * until that export's timeout and retries have run out: about a second against a collector refusing
 * connections, the whole timeout against one that accepts and never answers, whatever deadline the flush
 * at exit is given. Here `close` interrupts the fibers, which aborts their sockets and clears their timers.
 *
 * Why not @effect/opentelemetry's own OTLP exporter (`OtlpTracer`, 0.64.1), measured by scripts/otlp-exit-lag.ts:
 * its flush at exit is bounded too (504–600 ms with a dead or silent collector, this one 505–533 ms), but when the
 * scope closes it interrupts the batch already in flight before flushing the rest, so a live collector answering in
 * 300 ms received 21 of 41 spans (this one: 41 of 41); a failed export is logged at Debug only, after which every
 * span is dropped for 60 s, so a dead collector gives no warning at all; a request has no timeout of its own; and it
 * labels failed spans `status.interrupted` (and interrupted ones not), which later versions correct.
 * The HttpClient and serializer it takes could add the warning and the timeout, not the wait for the batch in
 * flight unless the 500 ms were split between that batch and the last one.
 *
 * Loaded on demand with the rest of OpenTelemetry (OtlpTracing.ts).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer"
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Cause, Duration, Effect, Exit, FiberSet, Redacted, Schedule } from "effect"
import type { TracingConfig } from "../../config/TracingConfig.js"

/** One request's limit: a collector that accepts and never answers costs this much. */
export const attemptTimeout = Duration.seconds(1)
/** One batch's limit, retries included. */
export const exportTimeout = Duration.millis(1500)
/** A failed request is tried twice more, soon: a collector that restarts is back within a second or it is down. */
const retrySchedule = Schedule.exponential("250 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(2))
)

type ExportError = HttpClientError.HttpClientError | Cause.TimeoutException

/** One turn of Node's event loop: a setImmediate callback runs after the socket events already waiting. */
const loopTurn = Effect.async<void>((resume) => {
  const id = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(id))
})

/**
 * `Effect.timeout` that reads the I/O already waiting before it calls time: on a loaded machine the event loop
 * can be held past the limit, and Node runs due timers before the socket events of the same turn, so a
 * collector that refused the connection at once would read as `no answer within 1s`.
 */
export const timeoutAfterPendingIo =
  (duration: Duration.DurationInput) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | Cause.TimeoutException, R> =>
    Effect.raceFirst(
      self,
      Effect.sleep(duration).pipe(Effect.zipRight(loopTurn), Effect.zipRight(Effect.fail(new Cause.TimeoutException())))
    )

/** OTLP/HTTP: a refused or broken connection, a timeout, and 429, 502, 503 and 504 are worth another try. */
export const isRetryable = (error: ExportError): boolean =>
  error._tag === "TimeoutException" ||
  (error._tag === "RequestError" && error.reason === "Transport") ||
  (error._tag === "ResponseError" && [429, 502, 503, 504].includes(error.response.status))

/**
 * Why an export failed, in vtree's words: never the library's message, which may quote the URL (and any
 * credentials in it) or the collector's reply.
 */
export const failureReason = (error: ExportError): string => {
  switch (error._tag) {
    case "TimeoutException":
      return `no answer within ${Duration.format(attemptTimeout)}`
    case "ResponseError":
      return error.reason === "StatusCode" ? `HTTP ${error.response.status}` : "unreadable reply"
    case "RequestError": {
      const code = (error.cause as { readonly code?: unknown } | undefined)?.code
      return typeof code === "string" && /^E[A-Z]+$/.test(code) ? `connection failed: ${code}` : "connection failed"
    }
  }
}

export interface OtlpHttpExport {
  readonly exporter: SpanExporter
  /**
   * Interrupts the exports still in flight and drops every later batch at once; how many spans were
   * lost that way (besides batches that failed, which `onFailure` heard of), and why the last failed
   * attempt failed, if one did (a cancelled batch may have been waiting to retry).
   */
  readonly close: Effect.Effect<{ readonly dropped: number; readonly lastReason: string | undefined }>
  /** Every export in flight has ended. */
  readonly idle: Effect.Effect<void>
}

/**
 * The exporter to `config.url` through `httpClient`. `onFailure` hears each batch that could not be sent, with its reason;
 * it is not called for batches dropped by `close`.
 */
export const make = Effect.fnUntraced(function*(
  httpClient: HttpClient.HttpClient,
  config: Pick<TracingConfig, "url" | "protocol" | "headers">,
  onFailure: (reason: string) => void
) {
  const set = yield* FiberSet.make<void, never>()
  const runFork = yield* FiberSet.runtime(set)<never>()
  const client = httpClient.pipe(HttpClient.filterStatusOk, HttpClient.withTracerPropagation(false))
  const [serializer, contentType] = config.protocol === "http/json"
    ? [JsonTraceSerializer, "application/json"] as const
    : [ProtobufTraceSerializer, "application/x-protobuf"] as const
  const request = HttpClientRequest.post(config.url).pipe(HttpClientRequest.setHeaders(Redacted.value(config.headers)))
  let closed = false
  let dropped = 0
  let lastReason: string | undefined

  const send = (body: Uint8Array) => {
    // When the batch's own limit ends it between attempts, the last attempt's failure says why it failed.
    let attemptReason: string | undefined
    return client.execute(HttpClientRequest.bodyUint8Array(request, body, contentType)).pipe(
      // Read to the end so a kept-alive socket goes back to the pool.
      Effect.flatMap((response) => response.arrayBuffer),
      timeoutAfterPendingIo(attemptTimeout),
      Effect.tapError((error) => Effect.sync(() => (lastReason = attemptReason = failureReason(error)))),
      Effect.retry({ schedule: retrySchedule, while: isRetryable }),
      timeoutAfterPendingIo(exportTimeout),
      Effect.mapError((error) => attemptReason ?? failureReason(error)),
      // The export's own requests must not become spans.
      Effect.withTracerEnabled(false)
    )
  }

  const exporter: SpanExporter = {
    export: (spans: Array<ReadableSpan>, done) => {
      const body = closed ? undefined : serializer.serializeRequest(spans)
      if (body === undefined) {
        if (closed) dropped += spans.length
        // ExportResultCode.FAILED; the enum lives in @opentelemetry/core, not imported for one constant.
        done({ code: 1 })
        return
      }
      runFork(
        send(body).pipe(
          // onExit, not a catch: an interrupted fiber runs its finalizers but no recovery.
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (Exit.isSuccess(exit)) return done({ code: 0 })
              if (Cause.isInterruptedOnly(exit.cause)) dropped += spans.length
              else {
                const failure = Cause.failureOption(exit.cause)
                onFailure(failure._tag === "Some" ? failure.value : "export failed")
              }
              // ExportResultCode.FAILED. Always answered, so the batch processor clears its timer for the batch.
              done({ code: 1 })
            })
          ),
          Effect.ignore
        )
      )
    },
    forceFlush: () => Effect.runPromise(FiberSet.awaitEmpty(set)),
    shutdown: () => Effect.runPromise(Effect.asVoid(close))
  }

  const close = Effect.suspend(() => {
    closed = true
    return FiberSet.clear(set)
  }).pipe(Effect.map(() => ({ dropped, lastReason })))

  return { exporter, close, idle: FiberSet.awaitEmpty(set) } satisfies OtlpHttpExport
})
