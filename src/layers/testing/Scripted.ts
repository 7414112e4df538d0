import { Clock, type Duration, Effect, type Layer, Ref } from "effect"
import { ProviderError } from "../../domain/ProviderError.js"
import type { CallRole } from "../../services/CallLog.js"
import { recordCall } from "../../services/CallLog.js"
import { isUnreachable, reportAttempt } from "../../services/EndpointBreaker.js"
import type { ChatResponse } from "../../services/LLMProvider.js"

/** A script: replies consumed in order, or a function of the request (and its 0-based index). */
export type Script<Req, Reply> = ReadonlyArray<Reply> | ((request: Req, index: number) => Reply)

export interface ScriptOptions {
  /** Each call sleeps this long first (on the TestClock under `it.effect`). */
  readonly latency?: Duration.DurationInput
}

/** What a fake's `make` hands back: the service, a Layer of it, and every request received so far, in order. */
export interface ScriptedFake<Id, Service, Req> {
  readonly service: Service
  readonly layer: Layer.Layer<Id>
  readonly requests: Effect.Effect<ReadonlyArray<Req>>
}

/** A chat fake's reply: a full ChatResponse, just the content, or a ProviderError to fail with. */
export type ChatReply = ChatResponse | string | ProviderError

export interface ScriptedChatOptions extends ScriptOptions {
  /** Reported model name for string replies (default "scripted-llm" or "scripted-vlm"). */
  readonly model?: string
}

/** Word count as a stand-in token count: deterministic, and grows with the text like real usage. */
export const approximateTokens = (text: string): number => text.split(/\s+/).filter((word) => word !== "").length

/**
 * The engine shared by the scripted fakes: records each request, takes the next reply, sleeps the
 * latency, and reports the call through `recordCall` exactly like a real adapter. Each call is one
 * attempt at one endpoint named `name`, reported to the run's breaker: a scripted Transport or Timeout
 * failure counts as an unreachable endpoint, as a dead server's would.
 */
export const makeScripted = <Req, Reply, Out>(options: {
  readonly name: string
  readonly role: (request: Req) => CallRole
  readonly model: string
  readonly script: Script<Req, Reply | ProviderError>
  readonly toOutput: (reply: Reply, request: Req) => Out
  readonly tokens: (output: Out) => { readonly promptTokens: number; readonly completionTokens: number }
  readonly latency: Duration.DurationInput | undefined
}) =>
  Effect.gen(function*() {
    const requests = yield* Ref.make<ReadonlyArray<Req>>([])
    const call = (request: Req): Effect.Effect<Out, ProviderError> =>
      Effect.gen(function*() {
        const index = (yield* Ref.getAndUpdate(requests, (all) => [...all, request])).length
        const { script } = options
        if (typeof script !== "function" && index >= script.length) {
          // Running past the script is a bug in the test that wrote it, not a provider failure.
          return yield* Effect.dieMessage(
            `${options.name}: the script has ${script.length} replies; call ${index + 1} was made`
          )
        }
        const reply = typeof script === "function" ? script(request, index) : script[index]!
        const startedAt = yield* Clock.currentTimeMillis
        if (options.latency !== undefined) yield* Effect.sleep(options.latency)
        const durationMs = (yield* Clock.currentTimeMillis) - startedAt
        const role = options.role(request)
        yield* reportAttempt({
          role,
          hosts: [options.name],
          failure: reply instanceof ProviderError ? reply : null,
          allDown: reply instanceof ProviderError && isUnreachable(reply)
        })
        if (reply instanceof ProviderError) {
          yield* recordCall({
            role,
            model: options.model,
            startedAt,
            durationMs,
            promptTokens: 0,
            completionTokens: 0,
            status: "error",
            errorReason: reply.reason
          })
          return yield* reply
        }
        const output = options.toOutput(reply as Reply, request)
        yield* recordCall({
          role,
          model: options.model,
          startedAt,
          durationMs,
          ...options.tokens(output),
          status: "ok",
          errorReason: null
        })
        return output
      })
    return { call, requests: Ref.get(requests) }
  })

/**
 * The engine of the fakes that answer with a ChatResponse (LLM, VLM): a string reply becomes a response
 * from `model` whose usage is counted in words (`promptTokens` counts the request's).
 */
export const makeScriptedChat = <Req>(options: {
  readonly name: string
  readonly role: (request: Req) => CallRole
  readonly model: string
  readonly script: Script<Req, ChatReply>
  readonly promptTokens: (request: Req) => number
  readonly latency: Duration.DurationInput | undefined
}) =>
  makeScripted<Req, ChatResponse | string, ChatResponse>({
    name: options.name,
    role: options.role,
    model: options.model,
    script: options.script,
    latency: options.latency,
    toOutput: (reply, request) =>
      typeof reply === "string"
        ? {
          content: reply,
          usage: { promptTokens: options.promptTokens(request), completionTokens: approximateTokens(reply) },
          model: options.model
        }
        : reply,
    tokens: (response) => response.usage
  })
