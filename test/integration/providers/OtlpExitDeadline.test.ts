// The tracing layer's end against a collector that accepts and never answers, on the TestClock: once the
// flush's 500 ms have passed, the layer closes (the request cancelled, its spans counted) without waiting
// for the request's own timeout, and says so in one warning line.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Redacted, TestClock } from "effect"
import * as OtlpTracing from "../../../src/layers/otel/OtlpTracing.js"
import { startBlackHole } from "../../support/otlp/Receiver.js"

/** Resolves once `ready` holds, checking on real time (the layer loads the SDK and connects for real). */
const until = (ready: () => boolean) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => {
      const check = () => (ready() ? resolve() : setTimeout(check, 10))
      check()
    })
  )

describe("OtlpTracing at exit", () => {
  it.scoped("stops waiting for a silent collector at the deadline and reports the dropped spans once", () =>
    Effect.gen(function*() {
      const hole = yield* Effect.acquireRelease(Effect.promise(startBlackHole), (h) => Effect.promise(h.close))
      const warnings: Array<string> = []
      const logger = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Warning") warnings.push(String(message))
        })
      )
      const tracing = OtlpTracing.layer({
        url: `${hole.url}/v1/traces?token=q-secret`,
        protocol: "http/protobuf",
        headers: Redacted.make({}),
        serviceName: "vtree",
        resourceAttributes: {},
        captureContent: false
      })
      const command = yield* Effect.fork(
        Effect.void.pipe(
          Effect.withSpan("one"),
          Effect.withSpan("two"),
          Effect.provide(Layer.provideMerge(tracing, logger))
        )
      )
      // The layer is closing: its flush has reached the collector, which says nothing.
      yield* until(() => hole.connections() > 0)
      yield* TestClock.adjust("500 millis")
      yield* Fiber.join(command)
      assert.deepStrictEqual(warnings, [
        `trace export to ${hole.url}/v1/traces did not finish within 500ms at exit (2 spans); the run goes on, ` +
        "spans that cannot be sent are dropped"
      ])
    }))
})
