import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ReadOutcome, SearchOutcome } from "../../../src/domain/Search.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { runQuestion } from "../../../src/programs/agent/RunQuestion.js"
import { makeWebTools } from "../../../src/programs/tools/WebTools.js"
import { call, scriptFor, submit } from "../../support/agent/Fakes.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { noVlm } from "../../support/agent/ToolHarness.js"

describe("web-search agent tools", () => {
  it.effect("are added through extraTools, get the hub's JSON behind the untrusted header, and are listed", () =>
    Effect.gen(function*() {
      const received: Array<unknown> = []
      const hub = {
        search: (input: unknown) =>
          Effect.sync((): SearchOutcome => {
            received.push(input)
            return {
              request_id: "r1",
              status: "error",
              capability: "search.web",
              error: { code: "CAPABILITY_DISABLED", message: "search.web is switched off", retryable: false }
            }
          }),
        read: (input: unknown) =>
          Effect.sync((): ReadOutcome => {
            received.push(input)
            return {
              request_id: "r2",
              status: "error",
              error: { code: "URL_BLOCKED", message: "blocked", retryable: false }
            }
          })
      }
      const llm = yield* ScriptedLlm.make(scriptFor([
        call("external_search", { capability: "search.web", query: "pasta recipe" }),
        call("external_read", { url: "http://127.0.0.1/" }),
        call("nope", {}),
        submit("C")
      ]))
      const prediction = yield* runQuestion(
        { questionId: "q", question: "How many tomatoes?", options: ["A. 1", "B. 2", "C. 3", "D. 4"] },
        sampleTree(),
        { prompts: testPrompts(), webSearch: true, extraTools: (context) => makeWebTools(context.prompts.labels, hub) }
      ).pipe(Effect.provide(Layer.merge(llm.layer, noVlm)))
      assert.deepStrictEqual(received, [{ capability: "search.web", query: "pasta recipe" }, {
        url: "http://127.0.0.1/"
      }])
      assert.isTrue(
        prediction.steps[0]!.output.startsWith(
          "[external CAPABILITY_DISABLED] search.web is switched off\n[External]\n<<<external_content"
        )
      )
      assert.include(prediction.steps[0]!.output, "\"CAPABILITY_DISABLED\"")
      assert.include(prediction.steps[1]!.output, "\"URL_BLOCKED\"")
      const agentCalls = (yield* llm.requests).filter((request) => request.role === "agent")
      assert.include(agentCalls[3]!.messages.at(-1)!.content, "submit_answer, external_search, external_read")
      assert.strictEqual(prediction.prediction, "C")
    }))
})
