// Server-side prefix caches (vLLM, OpenAI, DeepSeek, DashScope) only help when each agent request starts
// with the exact bytes of the one before. This runs the real agent loop, prompts and tools over HTTP to
// openai-sim and checks that on every step: system prompt, tool descriptions, history and every other
// request field unchanged, the new turns only appended.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadSample, runSample, trajectoryAgentModel, trajectoryScripts } from "../../support/agent/SimTrajectory.js"
import * as Sim from "../../support/openai-sim/index.js"

interface Message {
  readonly role: string
  readonly content: unknown
}

const messagesOf = (body: Record<string, unknown>) => body["messages"] as ReadonlyArray<Message>

/** The request's bytes up to the end of its last message: what request n+1 must start with. */
const prefixBytes = (body: Record<string, unknown>): string => {
  const text = JSON.stringify(body)
  const messages = JSON.stringify(messagesOf(body))
  const at = text.indexOf(messages)
  return text.slice(0, at + messages.length - 1)
}

const withoutMessages = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).filter(([key]) => key !== "messages"))

describe("agent prefix stability", () => {
  it.scoped("each agent request starts with the exact bytes of the previous one, across every kind of step", () =>
    Effect.gen(function*() {
      const sample = yield* loadSample(1)
      const sim = yield* Effect.acquireRelease(
        Effect.promise(() => Sim.start({ chat: trajectoryScripts(sample.replies) })),
        (server) => Effect.promise(() => server.close())
      )
      const [prediction] = yield* runSample(sample, sim.url)
      // The trajectory ran through: views, a search, a frame, an unparseable reply, an unknown tool, the answer.
      assert.strictEqual(prediction!.stopReason, "finished")
      assert.strictEqual(prediction!.stats.parseFailures, 1)
      assert.strictEqual(prediction!.stats.unknownTools, 1)
      assert.deepStrictEqual(prediction!.steps.map((step) => step.tool), [
        "view_node",
        "view_node",
        "view_node",
        "search_similar",
        "observe_frame",
        "view_node",
        "submit_answer"
      ])

      const bodies = sim.requests.filter((request) => request.model === trajectoryAgentModel).map((request) =>
        request.body
      )
      assert.strictEqual(bodies.length, sample.replies.length)
      for (let n = 0; n + 1 < bodies.length; n++) {
        const [before, after] = [bodies[n]!, bodies[n + 1]!]
        assert.isTrue(
          JSON.stringify(after).startsWith(prefixBytes(before)),
          `request ${n + 2} rewrites request ${n + 1}`
        )
        assert.deepStrictEqual(messagesOf(after).slice(0, messagesOf(before).length), messagesOf(before))
        assert.deepStrictEqual(
          withoutMessages(after),
          withoutMessages(before),
          `request ${n + 2} changes a field besides the messages`
        )
        // Appended: the model's reply as sent, then one user turn (an observation or a correction).
        assert.deepStrictEqual(messagesOf(after).slice(messagesOf(before).length).map((m) => m.role), [
          "assistant",
          "user"
        ])
      }
      // The provider's reasoning is recorded, never sent back: it would differ per call and break nothing
      // here, but it would cost every later step its tokens.
      assert.notInclude(JSON.stringify(bodies.at(-1)), "weigh what the last observation showed")

      // So a prefix-caching server serves all of step n's request from its cache at step n+1.
      const cached = prediction!.usage.agent.cachedPromptTokens!
      const prompt = prediction!.usage.agent.promptTokens
      const floor = bodies.slice(0, -1).reduce(
        (sum, body) => sum + Math.floor((Sim.promptText(body).length - 1) / 4),
        0
      )
      assert.isAtLeast(cached, floor)
      assert.isAbove(cached / prompt, 0.8)
    }))
})
