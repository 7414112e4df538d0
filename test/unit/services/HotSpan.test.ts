import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { withHotSpan } from "../../../src/services/Telemetry.js"

const spanName = Effect.map(Effect.option(Effect.currentSpan), Option.map((span) => span.name))

describe("withHotSpan", () => {
  it.effect("makes its span, with its attributes, while the tracer is on", () =>
    Effect.gen(function*() {
      const inner = yield* Effect.flatMap(Effect.currentSpan, (span) => Effect.succeed(span)).pipe(
        withHotSpan("step 1", { attributes: { "vtree.step": 1 } })
      )
      assert.strictEqual(inner.name, "step 1")
      assert.strictEqual(inner.attributes.get("vtree.step"), 1)
    }))

  it.effect("with the tracer off the code inside sees no span, as under Effect.withSpan", () =>
    Effect.gen(function*() {
      const seen = yield* spanName.pipe(
        withHotSpan("step 1"),
        Effect.withSpan("outer"),
        Effect.withTracerEnabled(false)
      )
      assert.deepStrictEqual(seen, Option.none())
      const traced = yield* spanName.pipe(withHotSpan("step 1"), Effect.withSpan("outer"))
      assert.deepStrictEqual(traced, Option.some("step 1"))
    }))
})
