// What the video_ask tests share, over whichever transport: the sample tree, a question about it, an agent
// script that views scenes then answers B, a model that never answers, and the ask tools over the samples.
import { Deferred, Duration, Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { makeAskTools } from "../../../src/programs/mcp/AskTools.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../agent/Prompts.js"

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"

export const noVlm = Layer.succeed(
  VLMProvider,
  VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })
)

export const question = { video_id: video, question: "What is cooked?", options: { choices: ["A. soup", "B. rice"] } }

/** The agent's reply viewing scene `n` of the sample video. */
export const viewNode = (n: number) =>
  JSON.stringify({ action: { tool: "view_node", args: { node_id: `${video}_L1_00${n}`, question: "q" } } })
export const submit = JSON.stringify({
  action: { tool: "submit_answer", args: { answer: "B", evidence: "seen at 0:01:10" } }
})

/** The agent views the first `views` scenes, then answers B; the tool model summarizes whatever it is asked. */
export const agentScript = (views: number) => {
  let agentCalls = 0
  return ScriptedLlm.make((request) => {
    if (request.role !== "agent") return "a summary"
    agentCalls += 1
    return agentCalls <= views ? viewNode(agentCalls - 1) : submit
  })
}

/** A model whose every call hangs: `started` completes when a call begins, `interrupted` when it is interrupted. */
export const hangingLlm = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const interrupted = yield* Deferred.make<void>()
  const layer = Layer.succeed(
    LLMProvider,
    LLMProvider.of({
      chat: () =>
        Deferred.succeed(started, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
    })
  )
  return { layer, started, interrupted }
})

/** video_ask and video_ask_result over samples/trees (`enabled: false` leaves them out), waiting 45 s as by default. */
export const askTools = (enabled = true, wait: Duration.Duration = Duration.seconds(45)) =>
  Effect.flatMap(
    makeVideoLibrary(samples),
    (library) => makeAskTools({ library, prompts: testPrompts(), enabled, wait })
  )
