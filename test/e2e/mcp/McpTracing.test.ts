// The built CLI's `vtree mcp --trees` over stdio under the official MCP client, exporting its spans over
// OTLP/HTTP to a loopback receiver: a tools/call span per call (kind SERVER, the tool's name, never its
// arguments), video_ask's agent run beneath it, the question only where content capture allows it, and
// never a key. The spans left are flushed when the client closes the server's stdin and it exits.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as StdioClientTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js"
import { root, simEnv } from "../../support/harness/Cli.js"
import { agentModel, policyScripts, sampleQuestions } from "../../support/harness/Policy.js"
import { type Era, eras } from "../../support/mcp/SdkClient.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"
import { type ReceivedSpan, SpanKind, startReceiver } from "../../support/otlp/Receiver.js"

const question = sampleQuestions()[0]!
const apiKey = "sk-mcp-never-in-a-span"

/** Every span below `parent`, at any depth. */
const inside = (spans: ReadonlyArray<ReceivedSpan>, parent: ReceivedSpan): Array<ReceivedSpan> =>
  spans.filter((s) => s.parentSpanId === parent.spanId).flatMap((child) => [child, ...inside(spans, child)])

/**
 * `vtree mcp --trees samples/trees` answering two tool calls from a client of `era` (the v1 SDK's for
 * 2025, the v2 SDK's pinned to 2026-07-28), then closed; the spans it exported.
 */
const serveAndAsk = async (extraEnv: Record<string, string>, era: Era = "2025-11-25") => {
  const sim = await OpenAiSim.start({ chat: policyScripts({ questions: [question] }) })
  const otlp = await startReceiver()
  try {
    const parameters = {
      command: process.execPath,
      args: ["dist/bin.js", "mcp", "--trees", "samples/trees"],
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        ...simEnv(sim.url, { VTREE_LLM_API_KEY: apiKey, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, ...extraEnv })
      },
      stderr: "pipe" as const
    }
    const transport = era === "2025-11-25"
      ? new StdioClientTransportV1(parameters)
      : new StdioClientTransport(parameters)
    const stderr: Array<string> = []
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
    const client = transport instanceof StdioClientTransportV1
      ? new ClientV1({ name: "vtree-test", version: "0.0.0" })
      : new Client({ name: "vtree-test", version: "0.0.0" }, { versionNegotiation: { mode: { pin: era } } })
    await (client instanceof ClientV1
      ? client.connect(transport as StdioClientTransportV1)
      : client.connect(transport as StdioClientTransport))
    const overview = await client.callTool({ name: "video_overview", arguments: { video_id: question.videoId } })
    assert.isNotTrue(overview.isError)
    const asked = await client.callTool({
      name: "video_ask",
      arguments: { video_id: question.videoId, question: question.question, options: { choices: ["A. 2", "C. 4"] } }
    })
    assert.isNotTrue(asked.isError, JSON.stringify(asked))
    // Closing stdin ends the server; the transport's close waits for the process to exit.
    await client.close()
    assert.notInclude(stderr.join(""), "trace export")
    return { spans: otlp.spans, stderr: stderr.join("") }
  } finally {
    await otlp.close()
    await sim.close()
  }
}

const toolCall = (spans: ReadonlyArray<ReceivedSpan>, tool: string) => {
  const calls = spans.filter((s) => s.name === `tools/call ${tool}`)
  assert.strictEqual(calls.length, 1, spans.map((s) => s.name).join())
  return calls[0]!
}

describe("vtree mcp exporting traces (built CLI, stdio, OTLP/HTTP)", () => {
  it.each(eras)(
    "sends a SERVER span per tool call with video_ask's agent run beneath it, no question and no key (%s client)",
    async (era) => {
      const { spans } = await serveAndAsk({}, era)
      for (const tool of ["video_overview", "video_ask"]) {
        const call = toolCall(spans, tool)
        assert.strictEqual(call.kind, SpanKind.SERVER)
        assert.strictEqual(call.parentSpanId, "", `${tool} starts its own trace`)
        assert.deepStrictEqual(call.attributes, {
          "mcp.method.name": "tools/call",
          "gen_ai.operation.name": "execute_tool",
          "langfuse.observation.type": "tool",
          "openinference.span.kind": "TOOL",
          "gen_ai.tool.name": tool
        })
      }
      const ask = toolCall(spans, "video_ask")
      const agents = inside(spans, ask).filter((s) => s.name === "invoke_agent vtree")
      assert.strictEqual(agents.length, 1)
      const agent = agents[0]!
      assert.strictEqual(agent.attributes["gen_ai.operation.name"], "invoke_agent")
      // A tool call is no invocation: the agent run is the first of its trace.
      assert.strictEqual(agent.attributes["gen_ai.invocation.is_nested"], false)
      assert.strictEqual(agent.attributes["vtree.video_id"], question.videoId)
      assert.strictEqual(agent.attributes["vtree.stop_reason"], "finished")
      const run = inside(spans, agent)
      const steps = run.filter((s) => /^step \d+$/.test(s.name))
      assert.strictEqual(agent.attributes["vtree.steps_used"], steps.length)
      assert.isAbove(steps.length, 0)
      assert.isTrue(run.some((s) => s.name === "execute_tool view_node"))
      const chats = run.filter((s) => s.name === `chat ${agentModel}`)
      assert.strictEqual(chats.length, steps.length)
      assert.isTrue(
        chats.every((s) => s.kind === SpanKind.CLIENT && Number(s.attributes["gen_ai.usage.input_tokens"]) > 0)
      )
      // Content capture is off: the question is message content, so no span carries it; a key never.
      const everything = JSON.stringify(spans)
      assert.notInclude(everything, question.question)
      assert.notInclude(everything, apiKey)
    },
    90_000
  )

  it(
    "with content capture on, the question reaches the model calls' messages, never the tool call's span",
    async () => {
      const { spans } = await serveAndAsk({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" })
      const ask = toolCall(spans, "video_ask")
      assert.notInclude(JSON.stringify(ask), question.question)
      assert.isFalse("gen_ai.tool.call.arguments" in ask.attributes)
      const agentCall = inside(spans, ask).find((s) => s.name === `chat ${agentModel}`)!
      assert.include(agentCall.attributes["gen_ai.input.messages"] as string, question.question)
      assert.notInclude(JSON.stringify(spans), apiKey)
    },
    90_000
  )
})
