// vtree's MCP server over Streamable HTTP in this process, its spans exported through the OTLP layer the
// CLI uses (layers/otel/OtlpTracing.ts) to a loopback receiver: one SERVER span per tools/call, its own
// trace, naming the tool and never carrying its arguments or result, even with content capture on.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { fileURLToPath } from "node:url"
import * as OtlpTracing from "../../../src/layers/otel/OtlpTracing.js"
import * as SharpThumbnailer from "../../../src/layers/sharp/SharpThumbnailer.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { httpServer } from "../../support/mcp/HttpServer.js"
import { type CallResult, eras } from "../../support/mcp/SdkClient.js"
import { SpanKind, startReceiver } from "../../support/otlp/Receiver.js"

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const query = "eggs in the private skillet"
const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
const callerSpanId = "00f067aa0ba902b7"
/** An id as the receiver shows it (OTLP bytes, base64). */
const base64 = (hex: string) => Buffer.from(hex, "hex").toString("base64")

// No model is called: summaries are off, and video_search ranks with BM25.
const models = Layer.mergeAll(
  NodeContext.layer,
  SharpThumbnailer.layer,
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })),
  Layer.unwrapEffect(Effect.map(ScriptedLlm.make(() => "unused"), (llm) => llm.layer))
)

describe.each(eras)("vtree mcp over Streamable HTTP exporting traces (%s client)", (era) => {
  it.scopedLive("sends a SERVER span per tool call with the tool's name, never its arguments or result", () =>
    Effect.gen(function*() {
      const otlp = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const tracing = OtlpTracing.layer({
        url: `${otlp.url}/v1/traces`,
        protocol: "http/protobuf",
        headers: Redacted.make({}),
        serviceName: "vtree-mcp-test",
        resourceAttributes: {},
        captureContent: true
      })
      // The server, its session and the tracing layer all end here: the layer's end flushes the spans.
      yield* Effect.gen(function*() {
        const library = yield* makeVideoLibrary(samples)
        const server = yield* httpServer({
          name: "vtree",
          version: "0",
          tools: makeVideoTools({ library, prompts: testPrompts(), summarize: false })
        })
        const { client } = yield* server.connect({}, era)
        const found = (yield* Effect.promise(() =>
          client.callTool({ name: "video_search", arguments: { video_id: video, query } })
        )) as CallResult
        assert.isNotTrue(found.isError)
        const unknown = (yield* Effect.promise(() =>
          client.callTool({ name: "video_overview", arguments: { video_id: "no-such-video" } })
        )) as CallResult
        assert.isTrue(unknown.isError)
        // A caller that sends its trace context in _meta gets the call in its own trace.
        const listed = (yield* Effect.promise(() =>
          client.callTool({
            name: "video_list",
            arguments: {},
            _meta: { traceparent: `00-${callerTrace}-${callerSpanId}-01` }
          })
        )) as CallResult
        assert.isNotTrue(listed.isError)
      }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(tracing, models)))

      const calls = otlp.spans.filter((s) => s.name.startsWith("tools/call "))
      assert.deepStrictEqual(calls.map((s) => s.name).sort(), [
        "tools/call video_list",
        "tools/call video_overview",
        "tools/call video_search"
      ])
      // Each call its own trace, or its caller's: never a child of the server's span, which lasts as long as it.
      const joined = calls.find((s) => s.name === "tools/call video_list")!
      const own = calls.filter((s) => s !== joined)
      assert.deepStrictEqual([joined.traceId, joined.parentSpanId], [base64(callerTrace), base64(callerSpanId)])
      assert.isTrue(own.every((s) => s.parentSpanId === ""))
      assert.notStrictEqual(own[0]!.traceId, own[1]!.traceId)
      for (const call of calls) {
        assert.strictEqual(call.kind, SpanKind.SERVER)
        assert.strictEqual(call.resource["service.name"], "vtree-mcp-test")
        assert.strictEqual(call.attributes["gen_ai.tool.name"], call.name.slice("tools/call ".length))
      }
      // A tool's failure (an unknown video) is an error of the call, said by type only.
      const failed = calls.find((s) => s.name === "tools/call video_overview")!
      assert.strictEqual(failed.attributes["error.type"], "tool_error")
      assert.notInclude(JSON.stringify(otlp.spans), query)
      assert.notInclude(JSON.stringify(otlp.spans), "no-such-video")
    }))
})
