// The OTLP span exporter over a scripted HttpClient, on the TestClock: retries, the reasons it gives, and
// what `close` does to a request that never answers (the flush at exit's deadline relies on it).
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { assert, describe, it } from "@effect/vitest"
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Cause, Deferred, Effect, Redacted, TestClock } from "effect"
import * as OtlpHttpExport from "../../../src/layers/otel/OtlpHttpExport.js"
import { displayUrl } from "../../../src/layers/otel/OtlpTracing.js"

const config = {
  url: "http://127.0.0.1:4318/v1/traces?token=q-secret",
  protocol: "http/protobuf" as const,
  headers: Redacted.make({ authorization: "Bearer h-secret" })
}

/** A client answering every request with `reply`, counting them. */
const scripted = (
  reply: (request: Parameters<Parameters<typeof HttpClient.make>[0]>[0]) => Effect.Effect<
    HttpClientResponse.HttpClientResponse,
    HttpClientError.HttpClientError
  >
) => {
  let requests = 0
  const client = HttpClient.make((request) => {
    requests++
    return reply(request)
  })
  return { client, requests: () => requests }
}

/** Ends `count` spans through the exporter, one batch each, collecting the result codes it answers. */
const endSpans = (exporter: OtlpHttpExport.OtlpHttpExport, count: number) => {
  const results: Array<number> = []
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor({
        export: (spans, done) => exporter.exporter.export(spans, (result) => (results.push(result.code), done(result))),
        shutdown: () => Promise.resolve()
      })
    ]
  })
  const tracer = provider.getTracer("test")
  for (let i = 0; i < count; i++) tracer.startSpan(`span ${i}`).end()
  return results
}

const refused = (request: Parameters<Parameters<typeof HttpClient.make>[0]>[0]) =>
  Effect.fail(
    new HttpClientError.RequestError({
      request,
      reason: "Transport",
      cause: Object.assign(new Error(`connect ECONNREFUSED ${config.url}`), { code: "ECONNREFUSED" })
    })
  )

/** One real turn of the event loop (setImmediate), which the TestClock does not drive. */
const loopTurn = Effect.async<void>((resume) => {
  const id = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(id))
})

describe("OtlpHttpExport", () => {
  it.scoped("sends a batch as protobuf with the configured headers and answers success", () =>
    Effect.gen(function*() {
      const seen: Array<[string, string | undefined]> = []
      const { client } = scripted((request) => {
        seen.push([request.headers["content-type"] ?? "", request.headers["authorization"]])
        return Effect.succeed(HttpClientResponse.fromWeb(request, new Response("", { status: 200 })))
      })
      const exporter = yield* OtlpHttpExport.make(client, config, () => assert.fail("no failure expected"))
      const results = endSpans(exporter, 1)
      yield* exporter.idle
      assert.deepStrictEqual(results, [0])
      assert.deepStrictEqual(seen, [["application/x-protobuf", "Bearer h-secret"]])
    }))

  it.scoped("retries a refused connection twice, then reports it once in words without the URL", () =>
    Effect.gen(function*() {
      const { client, requests } = scripted(refused)
      const reasons: Array<string> = []
      const exporter = yield* OtlpHttpExport.make(client, config, (reason) => reasons.push(reason))
      const results = endSpans(exporter, 1)
      yield* TestClock.adjust("2 seconds")
      yield* exporter.idle
      assert.strictEqual(requests(), 3)
      assert.deepStrictEqual(results, [1])
      assert.deepStrictEqual(reasons, ["connection failed: ECONNREFUSED"])
    }))

  it.scoped("gives up on a request with no answer after the attempt timeout, and on the batch after its own", () =>
    Effect.gen(function*() {
      const { client, requests } = scripted(() => Effect.never)
      const reasons: Array<string> = []
      const exporter = yield* OtlpHttpExport.make(client, config, (reason) => reasons.push(reason))
      endSpans(exporter, 1)
      // An attempt waits a second, the retry a quarter of one, and the batch's 1.5 s end the second attempt.
      yield* TestClock.adjust("10 seconds")
      yield* exporter.idle
      assert.strictEqual(requests(), 2)
      assert.strictEqual(reasons.length, 1)
      assert.match(reasons[0]!, /^no answer within 1s$/)
    }))

  it.scoped("reads a refusal waiting when the attempt's time is due as the refusal, as a loaded machine delivers it", () =>
    Effect.gen(function*() {
      // Each refusal is ready just before the attempt's second runs out but only read on the next turn of the event
      // loop, after the due timer: what a loop held up by load does to a collector that refuses at once.
      const { client, requests } = scripted((request) =>
        Effect.sleep("999 millis").pipe(Effect.zipRight(loopTurn), Effect.zipRight(refused(request)))
      )
      const reasons: Array<string> = []
      const exporter = yield* OtlpHttpExport.make(client, config, (reason) => reasons.push(reason))
      endSpans(exporter, 1)
      yield* TestClock.adjust("1 second")
      yield* loopTurn
      // The retry's refusal comes after the batch's 1.5 s: the batch ends on its limit, for the refusal before.
      yield* TestClock.adjust("10 seconds")
      yield* exporter.idle
      assert.strictEqual(requests(), 2)
      assert.deepStrictEqual(reasons, ["connection failed: ECONNREFUSED"])
    }))

  it.scoped("close cancels requests in flight, answers their batches as failed and counts their spans", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const { client } = scripted(() =>
        Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, void 0)))
      )
      const exporter = yield* OtlpHttpExport.make(client, config, () => assert.fail("a cancelled batch is no failure"))
      const results = endSpans(exporter, 3)
      assert.deepStrictEqual(results, [])
      assert.deepStrictEqual(yield* exporter.close, { dropped: 3, lastReason: undefined })
      yield* Deferred.await(interrupted)
      assert.deepStrictEqual(results, [1, 1, 1])
      // A batch after close is dropped at once.
      assert.deepStrictEqual(endSpans(exporter, 1), [1])
      assert.deepStrictEqual(yield* exporter.close, { dropped: 4, lastReason: undefined })
    }))

  it.scoped("close says why a batch it cancelled while waiting to retry had failed", () =>
    Effect.gen(function*() {
      const { client, requests } = scripted(refused)
      const exporter = yield* OtlpHttpExport.make(client, config, () => assert.fail("a cancelled batch is no failure"))
      endSpans(exporter, 2)
      // Both first attempts refused; their retries are due in about a quarter of a second.
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(requests(), 2)
      assert.deepStrictEqual(yield* exporter.close, { dropped: 2, lastReason: "connection failed: ECONNREFUSED" })
    }))

  it("retries what OTLP/HTTP calls retryable, and nothing else", () => {
    const response = (status: number) =>
      new HttpClientError.ResponseError({
        request: undefined as never,
        response: { status } as HttpClientResponse.HttpClientResponse,
        reason: "StatusCode"
      })
    assert.deepStrictEqual(
      [429, 502, 503, 504, 400, 401, 404, 500].map((status) => OtlpHttpExport.isRetryable(response(status))),
      [true, true, true, true, false, false, false, false]
    )
    assert.isTrue(OtlpHttpExport.isRetryable(new Cause.TimeoutException()))
    assert.strictEqual(OtlpHttpExport.failureReason(response(401)), "HTTP 401")
  })

  it("names an endpoint without its query or credentials", () => {
    assert.strictEqual(displayUrl(config.url), "http://127.0.0.1:4318/v1/traces")
    assert.strictEqual(
      displayUrl("https://user:pw@collector.example/otel/v1/traces#x"),
      "https://collector.example/otel/v1/traces"
    )
    assert.strictEqual(displayUrl("not a url"), "(unparseable URL)")
  })
})
