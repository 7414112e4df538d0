import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { callerSpan } from "../../../src/cli/mcp/McpServer.js"

describe("callerSpan (W3C trace context in a request's _meta)", () => {
  it("reads the caller's trace and span from traceparent", () => {
    const parent = callerSpan({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" })
    assert.deepStrictEqual(
      Option.map(parent, (span) => [span.traceId, span.spanId, span.sampled]),
      Option.some(["4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true])
    )
  })

  it("is none without _meta, without traceparent, or with one that is malformed", () => {
    for (
      const meta of [undefined, {}, { traceparent: 7 }, { traceparent: "not-a-traceparent" }, {
        progressToken: "p"
      }]
    ) {
      assert.isTrue(Option.isNone(callerSpan(meta)), JSON.stringify(meta))
    }
  })
})
