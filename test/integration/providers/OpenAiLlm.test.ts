import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option, TestClock } from "effect"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import { emptyUsage, withCallContext } from "../../../src/services/CallLog.js"
import { type ChatRequest, LLMProvider } from "../../../src/services/LLMProvider.js"
import { llmConfig, sleepsAtLeast, waitFor, withSim } from "./support.js"

const ask = (role: ChatRequest["role"], extra: Partial<ChatRequest> = {}): ChatRequest => ({
  role,
  messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello" }],
  ...extra
})

const chat = (request: ChatRequest) => Effect.flatMap(LLMProvider, (llm) => llm.chat(request))

describe("OpenAiLlm against openai-sim", () => {
  it.scoped("routes roles to models and returns content, reasoning and usage", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: {
          "agent-model": [{
            content: "{\"action\": 1}",
            reasoning: "let me think",
            usage: { prompt_tokens: 11, completion_tokens: 7 }
          }],
          "tool-model": [{ content: "summary", reasoning: "vllm style", reasoningField: "reasoning" }]
        }
      })
      const usage = emptyUsage()
      const [agent, tool] = yield* Effect.all([
        chat(ask("agent")),
        chat(ask("tool", { maxTokens: 50, temperature: 0 }))
      ]).pipe(
        withCallContext({ questionId: "q1", parentStep: 3, usage }),
        Effect.provide(OpenAiLlm.layer(llmConfig(sim.url)))
      )
      assert.strictEqual(agent.content, "{\"action\": 1}")
      assert.strictEqual(agent.reasoning, "let me think")
      assert.deepStrictEqual(agent.usage, { promptTokens: 11, completionTokens: 7 })
      assert.strictEqual(agent.model, "agent-model")
      assert.strictEqual(tool.reasoning, "vllm style")
      assert.strictEqual(tool.model, "tool-model")
      assert.strictEqual(usage.agent.calls, 1)
      assert.strictEqual(usage.agent.promptTokens, 11)
      assert.strictEqual(usage.tool.calls, 1)
      const toolBody = sim.requests.find((request) => request.model === "tool-model")!.body
      assert.strictEqual(toolBody["max_tokens"], 50)
      assert.strictEqual(toolBody["temperature"], 0)
      assert.deepStrictEqual(toolBody["messages"], ask("tool").messages)
    }))

  it.scoped("records each call in the CallLog with the question and step from the fiber context", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ content: "ok" }, { fault: "status", status: 400 }] } })
      const entries = yield* Effect.gen(function*() {
        yield* chat(ask("agent"))
        yield* Effect.exit(chat(ask("agent")))
        return yield* (yield* MemoryCallLog).entries
      }).pipe(
        withCallContext({ questionId: "q7", parentStep: 2 }),
        Effect.provide(Layer.provideMerge(OpenAiLlm.layer(llmConfig(sim.url)), MemoryCallLog.layer))
      )
      assert.strictEqual(entries.length, 2)
      assert.deepStrictEqual(
        entries.map((
          entry
        ) => [entry.questionId, entry.parentStep, entry.role, entry.model, entry.status, entry.errorReason]),
        [["q7", 2, "agent", "agent-model", "ok", null], ["q7", 2, "agent", "agent-model", "error", "BadRequest"]]
      )
      assert.isTrue(entries[0]!.completionTokens > 0)
    }))

  it.scoped("takes reasoning from a leading <think> block when the server has no reasoning parser", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ content: "<think>step one</think>\nfinal" }] } })
      const reply = yield* chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      assert.strictEqual(reply.content, "final")
      assert.strictEqual(reply.reasoning, "step one")
    }))

  it.scoped("sends each thinking dialect's switch: on for the agent, off for the tool role", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "*": () => ({ content: "ok" }) } })
      const bodies = {} as Record<string, [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>
      for (const dialect of ["none", "deepseek", "dashscope", "vllm"] as const) {
        sim.reset()
        yield* Effect.gen(function*() {
          yield* chat(ask("agent"))
          yield* chat(ask("tool"))
          yield* chat(ask("tool", { thinking: true }))
        }).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { thinking: dialect }))))
        const [agent, tool, toolThinking] = sim.requests.map((request) => request.body)
        bodies[dialect] = [agent!, tool!, toolThinking!]
      }
      const pick = (body: Record<string, unknown>) => {
        const { thinking, enable_thinking, chat_template_kwargs } = body
        return { thinking, enable_thinking, chat_template_kwargs }
      }
      const none = { thinking: undefined, enable_thinking: undefined, chat_template_kwargs: undefined }
      assert.deepStrictEqual(bodies["none"]!.map(pick), [none, none, none])
      assert.deepStrictEqual(bodies["deepseek"]!.map(pick), [
        { ...none, thinking: { type: "enabled" } },
        { ...none, thinking: { type: "disabled" } },
        { ...none, thinking: { type: "enabled" } }
      ])
      assert.deepStrictEqual(bodies["dashscope"]!.map(pick), [
        { ...none, enable_thinking: true },
        { ...none, enable_thinking: false },
        { ...none, enable_thinking: true }
      ])
      assert.deepStrictEqual(bodies["vllm"]!.map(pick), [
        { ...none, chat_template_kwargs: { enable_thinking: true, thinking: true } },
        { ...none, chat_template_kwargs: { enable_thinking: false, thinking: false } },
        { ...none, chat_template_kwargs: { enable_thinking: true, thinking: true } }
      ])
    }))

  it.scoped("dashscope: thinking calls are streamed (it refuses them otherwise) and folded back into one reply", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: {
          "agent-model": [{
            content:
              "{\"reflect\": {}, \"plan\": {}, \"action\": {\"tool\": \"submit_answer\", \"args\": {\"answer\": \"B\"}}}",
            reasoning: "The second option matches the frame where the eggs are counted.",
            usage: { prompt_tokens: 120, completion_tokens: 48 }
          }],
          "tool-model": [{ content: "summary" }]
        }
      })
      const usage = emptyUsage()
      const [agent, tool] = yield* Effect.all([chat(ask("agent")), chat(ask("tool"))]).pipe(
        withCallContext({ questionId: "q", usage }),
        Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { thinking: "dashscope" })))
      )
      assert.strictEqual(
        agent.content,
        "{\"reflect\": {}, \"plan\": {}, \"action\": {\"tool\": \"submit_answer\", \"args\": {\"answer\": \"B\"}}}"
      )
      assert.strictEqual(agent.reasoning, "The second option matches the frame where the eggs are counted.")
      assert.deepStrictEqual(agent.usage, { promptTokens: 120, completionTokens: 48 })
      assert.strictEqual(agent.model, "agent-model")
      assert.strictEqual(tool.content, "summary")
      assert.strictEqual(usage.agent.promptTokens, 120)
      const agentBody = sim.requests.find((request) => request.model === "agent-model")!.body
      assert.strictEqual(agentBody["stream"], true)
      assert.deepStrictEqual(agentBody["stream_options"], { include_usage: true })
      assert.strictEqual(agentBody["enable_thinking"], true)
      // Thinking off: a plain call, as DashScope accepts.
      const toolBody = sim.requests.find((request) => request.model === "tool-model")!.body
      assert.isUndefined(toolBody["stream"])
      assert.strictEqual(toolBody["enable_thinking"], false)
    }))

  it.scoped("a streamed reply with no content is a BadResponse, like a plain one", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: { "agent-model": [{ content: "", reasoning: "thought but never answered", finishReason: "length" }] }
      })
      const exit = yield* Effect.exit(
        chat(ask("agent")).pipe(
          Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { thinking: "dashscope", retries: 0 })))
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Cause.failureOption(exit.cause)
        assert.isTrue(Option.isSome(error), "a failure, not a defect")
        assert.strictEqual(Option.getOrThrow(error).reason, "BadResponse")
        assert.include(Option.getOrThrow(error).message, "length")
      }
    }))

  it.scoped("429 with Retry-After: waits at least that long, then retries and succeeds", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: { "agent-model": [{ fault: "status", status: 429, retryAfter: "30" }, { content: "after the wait" }] }
      })
      const fiber = yield* Effect.fork(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      )
      yield* waitFor(sim, () => sim.requests[0]?.answered === true)
      // The first attempt's timeout sleep, then the retry's backoff.
      const [backoffUntil] = yield* sleepsAtLeast(2)
      assert.isAtLeast(backoffUntil!, 30_000)
      assert.strictEqual(sim.requests.length, 1)
      yield* TestClock.adjust("30 seconds")
      const reply = yield* Fiber.join(fiber)
      assert.strictEqual(reply.content, "after the wait")
      assert.strictEqual(sim.requests.length, 2)
    }))

  it.scoped("retry-after-ms is honoured too and maps to RateLimited with retryAfterMs", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "status", status: 429, retryAfterMs: 7_500 }] } })
      const exit = yield* Effect.exit(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { retries: 0 }))))
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
      assert.strictEqual(error?.reason, "RateLimited")
      assert.strictEqual(error?.status, 429)
      assert.strictEqual(error?.retryAfterMs, 7_500)
    }))

  it.scoped("500 and 503 are retried; after 4 retries the Server error surfaces", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: {
          "agent-model": [{ fault: "status", status: 500 }, { fault: "status", status: 503 }, {
            content: "third time"
          }],
          "tool-model": () => ({ fault: "status", status: 503 })
        }
      })
      const layer = OpenAiLlm.layer(llmConfig(sim.url))
      const recovered = yield* Effect.fork(chat(ask("agent")).pipe(Effect.provide(layer)))
      const failing = yield* Effect.fork(Effect.exit(chat(ask("tool")).pipe(Effect.provide(layer))))
      // Backoff is 1 s doubling, jittered by at most 20 %: two minutes covers all four retries.
      for (let i = 0; i < 12; i++) {
        yield* waitFor(sim, () => sim.inFlight === 0)
        yield* TestClock.adjust("10 seconds")
      }
      assert.strictEqual((yield* Fiber.join(recovered)).content, "third time")
      const exit = yield* Fiber.join(failing)
      assert.strictEqual(exit._tag, "Failure")
      const cause = Exit.isFailure(exit) ? exit.cause : undefined
      assert.strictEqual(cause?._tag, "Fail")
      assert.strictEqual(cause?._tag === "Fail" ? cause.error.reason : undefined, "Server")
      assert.strictEqual(sim.requests.filter((request) => request.model === "agent-model").length, 3)
      assert.strictEqual(sim.requests.filter((request) => request.model === "tool-model").length, 5)
    }))

  it.scoped("client errors are not retried: 400/422 → BadRequest, 404 → NotFound naming model and endpoint, 401/403 → Auth", () =>
    Effect.gen(function*() {
      const statuses = [400, 404, 422, 401, 403]
      const sim = yield* withSim({
        chat: { "agent-model": statuses.map((status) => ({ fault: "status" as const, status })) }
      })
      const reasons: Array<string> = []
      const messages: Array<string> = []
      yield* Effect.forEach(statuses, () =>
        chat(ask("agent")).pipe(
          Effect.catchTag("ProviderError", (error) =>
            Effect.sync(() => {
              reasons.push(`${error.status}:${error.reason}`)
              messages.push(error.message)
            }))
        )).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      assert.deepStrictEqual(reasons, ["400:BadRequest", "404:NotFound", "422:BadRequest", "401:Auth", "403:Auth"])
      assert.match(
        messages[1]!,
        new RegExp(
          `^llm: model "agent-model" not found at ${
            sim.url.replace(/[.]/g, "\\.")
          } \\(HTTP 404: .*\\) — check the model name, and that the base URL ends in /v1$`
        )
      )
      assert.strictEqual(sim.requests.length, statuses.length)
    }))

  it.scoped("a malformed body → BadResponse, not retried", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "malformed" }] } })
      const error = yield* Effect.flip(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      )
      assert.strictEqual(error.reason, "BadResponse")
      assert.strictEqual(sim.requests.length, 1)
    }))

  it.scoped("a JSON reply of the wrong shape → BadResponse naming the first bad field, not retried", () =>
    Effect.gen(function*() {
      // The sim sends the usage as given; a server counting tokens in strings breaks the contract.
      const usage = { prompt_tokens: "eleven", completion_tokens: 3 } as unknown as {
        prompt_tokens: number
        completion_tokens: number
      }
      const sim = yield* withSim({ chat: { "agent-model": [{ content: "hi", usage }] } })
      const error = yield* Effect.flip(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      )
      assert.strictEqual(error.reason, "BadResponse")
      assert.include(error.message, "usage.prompt_tokens: Expected number, actual \"eleven\"")
      assert.strictEqual(sim.requests.length, 1)
    }))

  it.scoped("an empty reply → BadResponse naming the finish reason", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: { "agent-model": [{ content: "", reasoning: "ran out", finishReason: "length" }] }
      })
      const error = yield* Effect.flip(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      )
      assert.strictEqual(error.reason, "BadResponse")
      assert.include(error.message, "length")
    }))

  it.scoped("a dropped connection → Transport, retried", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "drop" }, { content: "reconnected" }] } })
      const fiber = yield* Effect.fork(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      )
      yield* waitFor(sim, () => sim.requests[0]?.aborted === true)
      yield* sleepsAtLeast(2)
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual((yield* Fiber.join(fiber)).content, "reconnected")
      assert.strictEqual(sim.requests.length, 2)
    }))

  it.scoped("a dropped connection with no retries left reports Transport", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "drop" }] } })
      const error = yield* Effect.flip(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { retries: 0 }))))
      )
      assert.strictEqual(error.reason, "Transport")
    }))

  it.scoped("a stall past the per-attempt timeout → Timeout; each attempt is cancelled at the server", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "stall" }, { fault: "stall" }] } })
      const fiber = yield* Effect.fork(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { retries: 1 }))))
      )
      yield* waitFor(sim, () => sim.requests.length === 1)
      yield* TestClock.adjust("20 seconds")
      yield* waitFor(sim, () => sim.requests[0]!.aborted)
      // The fired timeout left the clock's list; the backoff is what remains.
      yield* sleepsAtLeast(1)
      yield* TestClock.adjust("2 seconds")
      yield* waitFor(sim, () => sim.requests.length === 2)
      yield* TestClock.adjust("20 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error.reason, "Timeout")
      yield* waitFor(sim, () => sim.requests[1]!.aborted)
      assert.isFalse(sim.requests.some((request) => request.answered))
    }))

  for (const thinking of ["none", "dashscope"] as const) {
    it.scoped(`an endless reply (${thinking === "none" ? "whole" : "streamed"}) is cut at the size cap: BadResponse naming the cap, the connection closed`, () =>
      Effect.gen(function*() {
        const sim = yield* withSim({ chat: { "agent-model": [{ fault: "endless" }] } })
        const config = llmConfig(sim.url, { thinking, retries: 0, maxReplyBytes: 1024 * 1024 })
        const error = yield* Effect.flip(chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(config))))
        assert.strictEqual(error.reason, "BadResponse")
        assert.strictEqual(
          error.message,
          "llm: the reply was over the 1 MiB cap (VTREE_PROVIDER_MAX_REPLY_BYTES) — check the server, or raise the cap"
        )
        yield* waitFor(sim, () => sim.requests[0]!.aborted)
        assert.strictEqual(sim.inFlight, 0)
      }))
  }

  for (const fault of ["silent", "silentWithLength"] as const) {
    it.scoped(
      `headers and then no body${
        fault === "silent" ? "" : " (its length stated)"
      }: Timeout once the role's timeout passes without a first byte`,
      () =>
        Effect.gen(function*() {
          const sim = yield* withSim({ chat: { "agent-model": [{ fault }] } })
          const base = llmConfig(sim.url, { retries: 0 })
          // The TestClock holds the per-attempt timeout still: only the wait for the first byte can end the call.
          const config = { ...base, agent: { ...base.agent, timeout: Duration.millis(300) } }
          const error = yield* Effect.flip(chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(config))))
          assert.strictEqual(error.reason, "Timeout")
          assert.strictEqual(
            error.message,
            "llm: the server sent no reply within 0.3 s — check the server, or raise the role's timeout"
          )
          yield* waitFor(sim, () => sim.requests[0]!.aborted)
        }),
      { timeout: 10_000 }
    )
  }

  it.scoped("interrupting the fiber cancels the HTTP request: the sim sees the connection close", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "stall" }] } })
      const fiber = yield* Effect.fork(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url))))
      )
      yield* waitFor(sim, () => sim.requests.length === 1)
      yield* Fiber.interrupt(fiber)
      yield* waitFor(sim, () => sim.requests[0]!.aborted)
      assert.isTrue(sim.requests[0]!.aborted)
      assert.strictEqual(sim.inFlight, 0)
    }))

  it.scoped("interrupting a streamed call cancels its HTTP request too", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "stall" }] } })
      const fiber = yield* Effect.fork(
        chat(ask("agent")).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { thinking: "dashscope" }))))
      )
      yield* waitFor(sim, () => sim.requests.length === 1)
      assert.strictEqual(sim.requests[0]!.body["stream"], true)
      yield* Fiber.interrupt(fiber)
      yield* waitFor(sim, () => sim.requests[0]!.aborted)
      assert.strictEqual(sim.inFlight, 0)
    }))

  it.scoped("the concurrency cap holds: never more requests in flight than permits", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "*": () => ({ content: "ok", delayMs: 20 }) } })
      const replies = yield* Effect.forEach(Array.from({ length: 24 }, (_, i) => i), () => chat(ask("tool")), {
        concurrency: "unbounded"
      }).pipe(Effect.provide(OpenAiLlm.layer(llmConfig(sim.url, { concurrency: 3 }))))
      assert.strictEqual(replies.length, 24)
      assert.isAtMost(sim.maxInFlight, 3)
      assert.isAtLeast(sim.maxInFlight, 2)
    }))
})
