// `vtree infer` in-process against openai-sim (with an embedding endpoint, so a search embeds its query),
// exporting over OTLP/HTTP to a loopback receiver that decodes the spans with OpenTelemetry's generated
// decoder: the run is an `invoke_workflow` span, each question an `invoke_agent` span nested in it, tools,
// the tree search and model calls beneath, each typed for Langfuse and Phoenix, and the token counts only
// where the GenAI conventions put them. The names are written out here, not read from GenAiConventions.ts:
// what a trace backend receives is the contract.
import { assert, describe, it } from "@effect/vitest"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel, policyScripts, sampleQuestions } from "../../support/harness/Policy.js"
import { inferArgs, simRuns } from "../../support/harness/SimRuns.js"
import * as Sim from "../../support/openai-sim/index.js"
import { type ReceivedSpan, SpanKind, startReceiver } from "../../support/otlp/Receiver.js"

const questions = sampleQuestions().slice(0, 2)
const { cleanups } = simRuns(questions)

/** What every agent reply reports: cache reads and writes, and tokens by modality (DashScope's details). */
const agentUsage = {
  prompt_tokens: 120,
  completion_tokens: 30,
  prompt_tokens_details: { cached_tokens: 40, cache_creation_input_tokens: 10, text_tokens: 100, image_tokens: 20 },
  completion_tokens_details: { reasoning_tokens: 8, text_tokens: 30 }
}

/** The sample policy, except that each question starts with a search of its tree, and the agent's usage above. */
const searchingAgent = (): NonNullable<Sim.SimOptions["chat"]> => {
  const policy = policyScripts({ questions, viewSteps: 2 })
  const agent = policy[agentModel] as (request: Sim.SimRequest, index: number) => Sim.ChatReply | Sim.Fault
  return {
    ...policy,
    [agentModel]: (request, index) => {
      const messages = request.body["messages"] as ReadonlyArray<{ role: string }>
      const first = !messages.some((message) => message.role === "assistant")
      const reply = first
        ? {
          content: JSON.stringify({
            reflect: {},
            plan: { next: "search_similar" },
            action: { tool: "search_similar", args: { query: "eggs in a skillet", k: 3 } }
          })
        }
        : agent(request, index)
      return "fault" in reply ? reply : { ...reply, usage: agentUsage }
    }
  }
}

const ancestors = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan): Array<ReceivedSpan> => {
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  const chain: Array<ReceivedSpan> = []
  for (let parent = byId.get(span.parentSpanId); parent !== undefined; parent = byId.get(parent.parentSpanId)) {
    chain.push(parent)
  }
  return chain
}
const under = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan, name: (s: ReceivedSpan) => boolean) =>
  ancestors(spans, span).find(name)

/** How each GenAI operation is typed for Langfuse and for OpenInference (Phoenix). */
const uiTypes: Record<string, readonly [string, string]> = {
  invoke_workflow: ["chain", "CHAIN"],
  invoke_agent: ["agent", "AGENT"],
  execute_tool: ["tool", "TOOL"],
  retrieval: ["retriever", "RETRIEVER"],
  chat: ["generation", "LLM"],
  generate_content: ["generation", "LLM"],
  embeddings: ["embedding", "EMBEDDING"]
}

const cacheAndModality = [
  "gen_ai.usage.cache_read.input_tokens",
  "gen_ai.usage.cache_write.input_tokens",
  "gen_ai.usage.reasoning.output_tokens",
  "gen_ai.usage.text.input_tokens",
  "gen_ai.usage.image.input_tokens",
  "gen_ai.usage.text.output_tokens"
]

describe("vtree infer traces in the GenAI conventions (in-process CLI, openai-sim, OTLP/HTTP)", () => {
  it(
    "sends the run as invoke_workflow, questions as nested invoke_agent, tools, retrieval and model calls typed for Langfuse and Phoenix",
    async () => {
      const { cleanup, dir } = tempDir()
      cleanups.push(cleanup)
      const db = join(dir, "runs.db")
      const sim = await Sim.start({ chat: searchingAgent() })
      cleanups.push(() => sim.close())
      const otlp = await startReceiver()
      cleanups.push(() => otlp.close())
      const result = await runCli(
        inferArgs(db, "--question-ids", questions.map((q) => q.questionId).join(","), "--concurrency", "2"),
        simEnv(sim.url, {
          VTREE_EMBED_BASE_URL: sim.url,
          VTREE_EMBED_MODEL: "embed-model",
          VTREE_CACHE_DIR: join(dir, "cache"),
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url
        })
      )
      assert.strictEqual(result.code, 0, result.stderr)
      const spans = otlp.spans
      const op = (s: ReceivedSpan) => s.attributes["gen_ai.operation.name"]

      // The run: one invoke_workflow span, the root of the trace every GenAI span is in.
      const workflows = spans.filter((s) => op(s) === "invoke_workflow")
      assert.deepStrictEqual(workflows.map((s) => s.name), ["invoke_workflow vtree infer"])
      const workflow = workflows[0]!
      assert.strictEqual(workflow.parentSpanId, "")
      assert.strictEqual(workflow.kind, SpanKind.INTERNAL)
      assert.strictEqual(workflow.attributes["gen_ai.workflow.name"], "vtree infer")
      assert.strictEqual(workflow.attributes["gen_ai.invocation.is_nested"], false)
      assert.isTrue(spans.filter((s) => op(s) !== undefined).every((s) => s.traceId === workflow.traceId))

      // Each question: an invoke_agent span inside the workflow, nested, with its tokens but no cache counts.
      const agents = spans.filter((s) => op(s) === "invoke_agent")
      assert.deepStrictEqual(
        agents.map((s) => s.attributes["vtree.question_id"]).sort(),
        questions.map((q) => q.questionId).sort()
      )
      for (const agent of agents) {
        assert.strictEqual(agent.name, "invoke_agent vtree")
        assert.strictEqual(agent.attributes["gen_ai.agent.name"], "vtree")
        assert.strictEqual(agent.attributes["gen_ai.invocation.is_nested"], true)
        assert.strictEqual(under(spans, agent, (s) => op(s) === "invoke_workflow"), workflow)
        assert.isAbove(agent.attributes["gen_ai.usage.input_tokens"] as number, 0)
        assert.isFalse(cacheAndModality.some((key) => key in agent.attributes), JSON.stringify(agent.attributes))
      }
      const agentOf = (s: ReceivedSpan) => under(spans, s, (a) => op(a) === "invoke_agent")

      // Tools run inside their question's agent; the search is a retrieval of the video's tree inside its tool,
      // holding the embedding of its query.
      const tools = spans.filter((s) => op(s) === "execute_tool")
      assert.deepStrictEqual(
        [...new Set(tools.map((s) => s.attributes["gen_ai.tool.name"]))].sort(),
        ["search_similar", "submit_answer", "view_node"]
      )
      assert.isTrue(tools.every((s) => s.name === `execute_tool ${s.attributes["gen_ai.tool.name"]}`))
      assert.isTrue(tools.every((s) => agentOf(s) !== undefined))
      const retrievals = spans.filter((s) => op(s) === "retrieval")
      assert.strictEqual(retrievals.length, questions.length)
      for (const retrieval of retrievals) {
        const video = retrieval.attributes["gen_ai.data_source.id"]
        assert.strictEqual(retrieval.name, `retrieval ${video}`)
        assert.strictEqual(retrieval.attributes["gen_ai.retrieval.top_k"], 3)
        const tool = under(spans, retrieval, (s) => op(s) === "execute_tool")!
        assert.strictEqual(tool.attributes["gen_ai.tool.name"], "search_similar")
        assert.strictEqual(agentOf(retrieval)!.attributes["vtree.video_id"], video)
        const queryEmbedding = spans.filter((s) => op(s) === "embeddings" && ancestors(spans, s).includes(retrieval))
        assert.deepStrictEqual(queryEmbedding.map((s) => s.name), ["embeddings embed-model"])
      }

      // Model calls are CLIENT spans; the agent's sit inside its invoke_agent, with the cache and modality
      // counts its endpoint reported.
      const chats = spans.filter((s) => op(s) === "chat")
      assert.isTrue(
        chats.every((s) => s.kind === SpanKind.CLIENT && s.name === `chat ${s.attributes["gen_ai.request.model"]}`)
      )
      const agentCalls = chats.filter((s) => s.attributes["gen_ai.request.model"] === agentModel)
      assert.isAbove(agentCalls.length, questions.length)
      for (const call of agentCalls) {
        assert.isDefined(agentOf(call))
        assert.deepInclude(call.attributes, {
          "gen_ai.usage.input_tokens": 120,
          "gen_ai.usage.output_tokens": 30,
          "gen_ai.usage.cache_read.input_tokens": 40,
          "gen_ai.usage.cache_write.input_tokens": 10,
          "gen_ai.usage.text.input_tokens": 100,
          "gen_ai.usage.image.input_tokens": 20,
          "gen_ai.usage.reasoning.output_tokens": 8,
          "gen_ai.usage.text.output_tokens": 30
        })
      }
      // An embedding counts its input, nothing else.
      const embeddings = spans.filter((s) => op(s) === "embeddings")
      assert.isTrue(
        embeddings.every((s) =>
          s.kind === SpanKind.CLIENT && typeof s.attributes["gen_ai.usage.input_tokens"] === "number"
        )
      )
      assert.isFalse(embeddings.some((s) => "gen_ai.usage.output_tokens" in s.attributes))

      // Every GenAI span is typed for Langfuse and Phoenix; cache and modality counts only on inference spans.
      const genAi = spans.filter((s) => op(s) !== undefined)
      for (const span of genAi) {
        const [langfuse, openInference] = uiTypes[op(span) as string]!
        assert.strictEqual(span.attributes["langfuse.observation.type"], langfuse, span.name)
        assert.strictEqual(span.attributes["openinference.span.kind"], openInference, span.name)
      }
      assert.isTrue(
        spans.filter((s) => cacheAndModality.some((key) => key in s.attributes)).every((s) =>
          op(s) === "chat" || op(s) === "generate_content"
        )
      )
    },
    90_000
  )
})
