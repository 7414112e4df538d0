import { Duration, Effect, Option, Redacted } from "effect"
import OpenAI from "openai"
import type { EndpointConfig, ReliabilityConfig } from "../../config/ProviderConfig.js"
import { ProviderError } from "../../domain/ProviderError.js"
import type { ChatResponse } from "../../services/LLMProvider.js"
import type { CallRole } from "../../services/CallLog.js"
import { type ProviderPolicy, reported, withPolicy } from "../../programs/providers/Reliability.js"
import { toProviderError } from "./OpenAiErrors.js"
import { splitReply } from "./Thinking.js"

/**
 * An SDK client for one endpoint. Retries are ours (one policy for every provider), so the SDK's are
 * off; its own timeout sits past ours so that ours, which knows the attempt, is the one that fires.
 */
export const makeClient = (endpoint: EndpointConfig): OpenAI =>
  new OpenAI({
    baseURL: endpoint.baseUrl,
    // The SDK insists on a key; local servers (vLLM, Ollama) accept any, so a placeholder stands in.
    apiKey: Option.match(endpoint.apiKey, { onNone: () => "no-key", onSome: Redacted.value }),
    maxRetries: 0,
    timeout: Duration.toMillis(endpoint.timeout) + 5_000
  })

export const makePolicy = (
  endpoint: EndpointConfig,
  reliability: ReliabilityConfig,
  semaphore: Effect.Semaphore
): ProviderPolicy => ({
  provider: endpoint.provider,
  semaphore,
  timeout: endpoint.timeout,
  retries: reliability.retries
})

/**
 * One SDK request as an Effect. The AbortSignal is what makes interruption (a timeout, Ctrl-C, a
 * sibling failing) cancel the HTTP request instead of leaving it running.
 */
export const sdkRequest = <A>(endpoint: EndpointConfig, run: (signal: AbortSignal) => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: toProviderError(endpoint.provider, endpoint.apiKey) })

const badResponse = (endpoint: EndpointConfig, message: string) =>
  new ProviderError({ provider: endpoint.provider, reason: "BadResponse", message: `${endpoint.provider}: ${message}` })

/** Reads a chat-completions reply into a ChatResponse, or says what was wrong with it. */
export const readChatReply = (endpoint: EndpointConfig, reply: unknown): Effect.Effect<ChatResponse, ProviderError> => {
  if (typeof reply !== "object" || reply === null) {
    return Effect.fail(badResponse(endpoint, "the reply is not a JSON object"))
  }
  const body = reply as { choices?: unknown; usage?: unknown; model?: unknown }
  const first = Array.isArray(body.choices) ? body.choices[0] as { message?: unknown } | undefined : undefined
  const message = first?.message
  if (typeof message !== "object" || message === null) {
    return Effect.fail(badResponse(endpoint, "the reply has no choices[0].message"))
  }
  const { content, reasoning } = splitReply(message as Record<string, unknown>)
  if (content.trim() === "") {
    const finish = (first as { finish_reason?: unknown }).finish_reason
    return Effect.fail(
      badResponse(endpoint, `the model returned no content (finish_reason: ${typeof finish === "string" ? finish : "none"})`)
    )
  }
  const usage = (typeof body.usage === "object" && body.usage !== null ? body.usage : {}) as {
    prompt_tokens?: unknown
    completion_tokens?: unknown
  }
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0)
  return Effect.succeed({
    content,
    ...(reasoning === undefined ? {} : { reasoning }),
    usage: { promptTokens: count(usage.prompt_tokens), completionTokens: count(usage.completion_tokens) },
    model: typeof body.model === "string" && body.model !== "" ? body.model : endpoint.model
  })
}

/**
 * Sends one chat-completions body under the policy and reports the call. `body` is sent as given,
 * so dialect fields the SDK's types do not know (thinking switches) reach the server.
 */
export const completeChat = (options: {
  readonly client: OpenAI
  readonly endpoint: EndpointConfig
  readonly policy: ProviderPolicy
  readonly role: CallRole
  readonly body: Record<string, unknown>
}): Effect.Effect<ChatResponse, ProviderError> =>
  sdkRequest(options.endpoint, (signal) =>
    options.client.chat.completions.create(
      options.body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
      { signal }
    )).pipe(
      Effect.flatMap((reply) => readChatReply(options.endpoint, reply)),
      withPolicy(options.policy),
      reported({ role: options.role, model: options.endpoint.model }, (response) => response.usage)
    )
