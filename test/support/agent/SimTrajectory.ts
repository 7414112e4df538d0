// The agent over the real pieces of a run — the sample tree, the packaged en prompt pack, the OpenAI
// layer speaking HTTP to openai-sim — with only the models' replies scripted: a multi-step trajectory
// (views, a search, a frame, an unparseable reply, an unknown tool, then the answer). Used by the
// prefix-stability test and by the prefix-cache benchmark (bench/prefix.ts).
import { NodeContext } from "@effect/platform-node"
import { Duration, Effect, Layer, Option } from "effect"
import { join } from "node:path"
import type { EndpointConfig } from "../../../src/config/ProviderConfig.js"
import type { TreeIndex } from "../../../src/domain/TreeIndex.js"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { runQuestion } from "../../../src/programs/agent/RunQuestion.js"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import { loadQuestions } from "../../../src/programs/questions/QuestionLoader.js"
import { makeSummaryCache } from "../../../src/programs/tools/SummaryCache.js"
import { loadTreeEnvironment } from "../../../src/programs/tree/TreeLoader.js"
import type { ChatReply, SimOptions, SimRequest } from "../openai-sim/index.js"
import { call, submit } from "./Fakes.js"

const samples = join(import.meta.dirname, "../../../samples")
export const trajectoryAgentModel = "agent-model"
export const trajectoryToolModel = "tool-model"

/** The agent's replies for a question over `index`, in order; each step reasons (reasoning_content). */
export const trajectory = (index: TreeIndex, question: string): ReadonlyArray<string> => {
  const [scene, second] = index.rootIds
  const events = index.nodes.get(scene!)!.childrenIds
  return [
    call("view_node", { node_id: scene, question }),
    call("view_node", { node_id: events[0], question }),
    "I think the answer is in the second event, let me look.",
    call("view_node", { node_id: events[1] ?? events[0], question }),
    call("search_similar", { query: "eggs skillet", question }),
    call("zoom_in", { node_id: events[0] }),
    call("observe_frame", { node_ids: [events[0]] }),
    call("view_node", { node_id: second ?? scene, question }),
    submit("C")
  ]
}

const messagesOf = (request: SimRequest): ReadonlyArray<{ role: string; content: unknown }> =>
  Array.isArray(request.body["messages"])
    ? request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }>
    : []

/**
 * Sim scripts: the agent's reply is picked by how many replies its request already holds, so several
 * questions can share one sim; the summarizer answers every round the same way.
 */
export const trajectoryScripts = (replies: ReadonlyArray<string>): NonNullable<SimOptions["chat"]> => ({
  [trajectoryAgentModel]: (request): ChatReply => {
    const step = messagesOf(request).filter((m) => m.role === "assistant").length
    return {
      content: replies[Math.min(step, replies.length - 1)]!,
      reasoning: `step ${step + 1}: weigh what the last observation showed`
    }
  },
  [trajectoryToolModel]: () => ({
    content: "The host cracks eggs into the skillet.\ndetails=four eggs in the skillet; confidence=0.8"
  })
})

/** The sample tree, the packaged en pack and the sample questions about that tree (the first `count`). */
export const loadSample = (count: number) =>
  Effect.gen(function*() {
    const tree = yield* loadTreeEnvironment(join(samples, "trees/vtSmpl0001a"))
    const prompts = yield* loadPromptManager(packagedPromptsDir("en"))
    const questions = (yield* loadQuestions(join(samples, "questions.jsonl"))).slice(0, count)
    return { tree, prompts, questions, replies: trajectory(tree.index, "what does the host cook?") }
  }).pipe(Effect.provide(NodeContext.layer))

export type Sample = Effect.Effect.Success<ReturnType<typeof loadSample>>

/** Runs the sample's questions one after another over the sim at `url` (scripted with trajectoryScripts). */
export const runSample = (sample: Sample, url: string) =>
  Effect.gen(function*() {
    const vlm = yield* ScriptedVlm.make(() => "four eggs in a black skillet")
    const llm = OpenAiLlm.layer({
      agent: endpoint(url, "llm", trajectoryAgentModel),
      tool: endpoint(url, "tool-llm", trajectoryToolModel),
      thinking: "deepseek",
      reliability: { concurrency: 4, retries: 0 }
    })
    return yield* Effect.forEach(sample.questions, (question) =>
      runQuestion(question, sample.tree, { prompts: sample.prompts, summaryCache: makeSummaryCache(), maxSteps: 15 })
        .pipe(
          Effect.provide(Layer.merge(llm, vlm.layer))
        ))
  }).pipe(Effect.provide(NodeContext.layer))

const endpoint = (baseUrl: string, provider: string, model: string): EndpointConfig => ({
  provider,
  baseUrl,
  apiKey: Option.none(),
  model,
  timeout: Duration.seconds(30)
})
