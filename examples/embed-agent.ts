/**
 * Embedding the vtree agent in your own Effect program, with the public fakes standing in for models.
 * Swap `FakeModels` for `Layer.mergeAll(OpenAiLlm.layerConfig, OpenAiVlm.layerConfig)` to use real endpoints.
 *
 *   npx tsx examples/embed-agent.ts
 */
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import type { Providers } from "../src/index.js"
import { Agent, Prompts, Testing, Tree } from "../src/index.js"

export const sampleTree = fileURLToPath(new URL("../samples/trees/vtSmpl0001a", import.meta.url))

const reply = (tool: string, args: Record<string, unknown>) =>
  JSON.stringify({ reflect: { known: "nothing yet" }, plan: { next: tool }, action: { tool, args } })

/**
 * The fake agent decides from the conversation so far, as a model would: look at the cooking scene,
 * then answer. The tool role (the summarizer) answers every extract / verify round the same way.
 */
const fakeModel = (request: Providers.ChatRequest): string => {
  if (request.role === "tool") {
    return "Four eggs are cracked into wells in the sauce.\ndetails=card and subtitle agree; confidence=0.9"
  }
  const steps = request.messages.filter((message) => message.role === "assistant").length
  return steps === 0
    ? reply("view_node", { node_id: "vtSmpl0001a_L1_001", question: "How many eggs?" })
    : reply("submit_answer", { answer: "C", evidence: "four wells, four eggs", reasoning: "the L1_001 scene says so" })
}

export const FakeModels = Layer.mergeAll(
  Testing.ScriptedLlm.layer(fakeModel, { model: "fake-reasoner" }),
  Testing.ScriptedVlm.layer(() => "A black skillet with four eggs.", { model: "fake-vision" }),
  Testing.MemoryCallLog.layer
)

/** Your program: load a tree and a prompt pack once, answer a question, look at what it cost. */
export const program = Effect.gen(function*() {
  const prompts = yield* Prompts.loadPromptManager(Prompts.packagedPromptsDir("en"))
  const tree = yield* Tree.loadTreeEnvironment(sampleTree)
  const prediction = yield* Agent.runQuestion(
    {
      questionId: "001-1",
      question: "How many eggs does the host cook in the skillet?",
      options: ["A. Two", "B. Three", "C. Four", "D. Six"],
      taskType: "Counting Problem"
    },
    tree,
    { prompts, maxSteps: 5 }
  )
  const calls = yield* (yield* Testing.MemoryCallLog).entries
  return { prediction, calls }
})

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  program.pipe(
    Effect.flatMap(({ calls, prediction }) =>
      Console.log(
        `answer ${prediction.prediction} (${prediction.stopReason}) after ${prediction.stepsUsed} steps; ` +
          `${calls.length} model calls: ${calls.map((call) => `${call.role}@step${call.parentStep}`).join(", ")}`
      )
    ),
    Effect.provide(Layer.provideMerge(FakeModels, NodeContext.layer)),
    NodeRuntime.runMain
  )
}
