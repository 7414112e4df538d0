// The built CLI's `infer` against openai-sim, exporting its spans over OTLP/HTTP to a loopback receiver that
// decodes them with OpenTelemetry's generated decoder: the span tree, the GenAI attributes against the
// store's llm_calls, content capture off by default and on when asked, and a dead collector.
import { afterEach, assert, describe, it } from "@effect/vitest"
import { predictions, readDb, run, simEnv } from "../../support/harness/Cli.js"
import { sampleQuestions } from "../../support/harness/Policy.js"
import { inferArgs, simRuns } from "../../support/harness/SimRuns.js"
import {
  closedPort,
  type OtlpReceiver,
  type ReceivedSpan,
  SpanKind,
  startBlackHole,
  startReceiver
} from "../../support/otlp/Receiver.js"

const questions = sampleQuestions()
const { setup } = simRuns(questions)

const receivers: Array<OtlpReceiver> = []
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close()
})
const receiver = async () => {
  const started = await startReceiver()
  receivers.push(started)
  return started
}

interface CallRow {
  readonly question_id: string
  readonly role: string
  readonly model: string
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_prompt_tokens: number | null
  readonly reasoning_tokens: number | null
}

const callRows = (db: string) => readDb(db, (h) => h.prepare("SELECT * FROM llm_calls").all() as Array<CallRow>)

/** A call as a comparable line: the store's row and the span's attributes must give the same lines. */
const callLine = (call: {
  question: unknown
  role: unknown
  model: unknown
  input: unknown
  output: unknown
  cached: unknown
  reasoning: unknown
}) => JSON.stringify([call.question, call.role, call.model, call.input, call.output, call.cached, call.reasoning])

const ancestors = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan): Array<ReceivedSpan> => {
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  const chain: Array<ReceivedSpan> = []
  let parent = byId.get(span.parentSpanId)
  while (parent !== undefined) {
    chain.push(parent)
    parent = byId.get(parent.parentSpanId)
  }
  return chain
}

const invokeOf = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan) =>
  ancestors(spans, span).find((s) => s.name === "invoke_agent vtree")

const contentKeys = [
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result"
]

describe("vtree infer exporting traces (built CLI, OTLP/HTTP)", () => {
  it(
    "sends one invoke_agent span per question with its steps, tools and chat calls, tokens as the store has them",
    async () => {
      const { db, sim } = await setup()
      const otlp = await receiver()
      const result = await run(
        inferArgs(db, "--concurrency", "2"),
        simEnv(sim.url, {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20dXNlcjpwYXNz,x-tenant=lab",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test"
        })
      )
      assert.strictEqual(result.code, 0, result.stderr)
      assert.isAbove(otlp.contentTypes.length, 0)
      assert.isTrue(otlp.contentTypes.every((type) => type === "application/x-protobuf"), otlp.contentTypes.join())
      assert.isTrue(otlp.headers.every((h) => h["authorization"] === "Basic dXNlcjpwYXNz" && h["x-tenant"] === "lab"))
      const spans = otlp.spans
      assert.strictEqual(spans[0]!.resource["service.name"], "vtree")
      assert.strictEqual(spans[0]!.resource["deployment.environment"], "test")

      // One invoke_agent per question, saying how it ended as the store does.
      const rows = predictions(db)
      const agents = spans.filter((s) => s.name === "invoke_agent vtree")
      assert.deepStrictEqual(
        agents.map((s) => s.attributes["vtree.question_id"]).sort(),
        questions.map((q) => q.questionId).sort()
      )
      for (const agent of agents) {
        const row = rows.find((r) => r.question_id === agent.attributes["vtree.question_id"])!
        assert.strictEqual(agent.attributes["gen_ai.operation.name"], "invoke_agent")
        assert.strictEqual(agent.attributes["vtree.run_id"], row.run_id)
        assert.strictEqual(agent.attributes["vtree.stop_reason"], row.stop_reason)
        assert.strictEqual(agent.attributes["vtree.steps_used"], row.steps_used)
        assert.strictEqual(agent.attributes["vtree.outcome"], row.correct === 1 ? "correct" : "wrong")
        assert.strictEqual(agent.attributes["gen_ai.usage.input_tokens"], row.prompt_tokens)
        assert.isString(agent.attributes["vtree.video_id"])
        // Its steps, each holding the agent's call and the tool it named.
        const steps = spans.filter((s) => /^step \d+$/.test(s.name) && invokeOf(spans, s) === agent)
        assert.strictEqual(steps.length, row.steps_used)
        for (const step of steps) {
          const inside = spans.filter((s) => ancestors(spans, s).includes(step))
          assert.isTrue(inside.some((s) => s.name === "chat agent-model"), step.name)
          const tool = inside.find((s) => s.name.startsWith("execute_tool "))!
          assert.strictEqual(tool.attributes["gen_ai.tool.name"], step.attributes["vtree.step.tool"])
          assert.strictEqual(tool.name, `execute_tool ${tool.attributes["gen_ai.tool.name"]}`)
        }
      }

      // Every model call is a CLIENT span under its question, with the tokens the store recorded.
      const chats = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat")
      assert.isTrue(
        chats.every((s) => s.kind === SpanKind.CLIENT && s.name === `chat ${s.attributes["gen_ai.request.model"]}`)
      )
      assert.isTrue(chats.every((s) => s.attributes["server.address"] === "127.0.0.1"))
      assert.isTrue(chats.every((s) => s.attributes["gen_ai.provider.name"] === "openai"))
      assert.isTrue(
        chats.every((s) => invokeOf(spans, s)?.attributes["vtree.question_id"] === s.attributes["vtree.question_id"])
      )
      const fromSpans = chats.map((s) =>
        callLine({
          question: s.attributes["vtree.question_id"],
          role: s.attributes["vtree.role"],
          model: s.attributes["gen_ai.response.model"],
          input: s.attributes["gen_ai.usage.input_tokens"],
          output: s.attributes["gen_ai.usage.output_tokens"],
          cached: s.attributes["gen_ai.usage.cache_read.input_tokens"] ?? null,
          reasoning: s.attributes["gen_ai.usage.reasoning.output_tokens"] ?? null
        })
      ).sort()
      const fromStore = callRows(db).map((c) =>
        callLine({
          question: c.question_id,
          role: c.role,
          model: c.model,
          input: c.prompt_tokens,
          output: c.completion_tokens,
          cached: c.cached_prompt_tokens,
          reasoning: c.reasoning_tokens
        })
      ).sort()
      assert.isAbove(fromStore.length, questions.length)
      assert.deepStrictEqual(fromSpans, fromStore)
      // The sim reports thinking tokens for the agent: they reach the span.
      assert.isTrue(chats.some((s) => (s.attributes["gen_ai.usage.reasoning.output_tokens"] ?? 0) as number > 0))

      // Content is off unless asked for.
      assert.isFalse(spans.some((s) => contentKeys.some((key) => key in s.attributes)))
    },
    90_000
  )

  it("sends JSON with http/json, and message and tool content only with the capture variable", async () => {
    const { db, sim } = await setup()
    const otlp = await receiver()
    const result = await run(
      inferArgs(db, "--question-ids", questions[0]!.questionId),
      simEnv(sim.url, {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "lab-agent",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
        VTREE_LLM_API_KEY: "sk-never-in-a-span"
      })
    )
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isTrue(otlp.contentTypes.every((type) => type === "application/json"))
    const spans = otlp.spans
    assert.strictEqual(spans[0]!.resource["service.name"], "lab-agent")
    const agentCall = spans.find((s) => s.name === "chat agent-model")!
    const input = JSON.parse(agentCall.attributes["gen_ai.input.messages"] as string) as Array<{ role: string }>
    assert.deepStrictEqual(input.slice(0, 2).map((m) => m.role), ["system", "user"])
    assert.include(agentCall.attributes["gen_ai.input.messages"] as string, questions[0]!.question)
    assert.isString(agentCall.attributes["gen_ai.output.messages"])
    const tool = spans.find((s) => s.name === "execute_tool view_node")!
    assert.isString(tool.attributes["gen_ai.tool.call.arguments"])
    assert.isString(tool.attributes["gen_ai.tool.call.result"])
    assert.isFalse(spans.some((s) => JSON.stringify(s).includes("sk-never-in-a-span")))
  }, 90_000)

  it("finishes a run with the collector down as it does without one, warning once", async () => {
    const { db, sim } = await setup()
    const port = await closedPort()
    const result = await run(
      inferArgs(db, "--concurrency", "2"),
      simEnv(sim.url, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` })
    )
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(predictions(db).length, questions.length)
    assert.isTrue(predictions(db).every((row) => row.stop_reason === "finished"))
    const warnings = result.stderr.split("\n").filter((line) => line.includes("trace export"))
    assert.strictEqual(warnings.length, 1, result.stderr)
    assert.include(warnings[0]!, "level=WARN")
    // A batch sent during the run fails; a run too short for one has its spans dropped at exit. Either way the
    // line names the endpoint and the refusal.
    assert.include(warnings[0]!, `trace export to http://127.0.0.1:${port}/v1/traces `)
    assert.include(warnings[0]!, "connection failed: ECONNREFUSED")
    // The same questions without an endpoint: the same answers, so the dead collector changed nothing.
    const { db: plainDb, sim: plainSim } = await setup()
    const plain = await run(inferArgs(plainDb, "--concurrency", "2"), simEnv(plainSim.url))
    assert.strictEqual(plain.code, 0, plain.stderr)
    assert.deepStrictEqual(
      predictions(plainDb).map((r) => [r.question_id, r.prediction, r.steps_used]),
      predictions(db).map((r) => [r.question_id, r.prediction, r.steps_used])
    )
    assert.notInclude(plain.stderr, "trace export")
  }, 120_000)

  it("ends with a collector that accepts and never answers, one warning naming it without its token", async () => {
    const { db, sim } = await setup()
    const hole = await startBlackHole()
    try {
      // The test's timeout is the bound: the process must end by itself, the collector still silent.
      const result = await run(
        inferArgs(db, "--question-ids", questions[0]!.questionId),
        simEnv(sim.url, {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${hole.url}/v1/traces?token=q-secret-token`,
          OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20h-secret-token"
        })
      )
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(predictions(db)[0]!.stop_reason, "finished")
      assert.isAbove(hole.connections(), 0)
      const warnings = result.stderr.split("\n").filter((line) => line.includes("trace export"))
      assert.strictEqual(warnings.length, 1, result.stderr)
      assert.include(warnings[0]!, "level=WARN")
      assert.include(warnings[0]!, `trace export to ${hole.url}/v1/traces `)
      assert.match(warnings[0]!, /spans that cannot be sent are dropped/)
      assert.notInclude(result.stderr, "secret-token")
      assert.notMatch(result.stderr, /\n\s+at /)
    } finally {
      await hole.close()
    }
  }, 60_000)
})
