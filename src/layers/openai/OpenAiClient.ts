import { Duration, Effect, Option, Redacted } from "effect"
import OpenAI from "openai"
import type { EndpointConfig, ReliabilityConfig } from "../../config/ProviderConfig.js"
import { ProviderError } from "../../domain/ProviderError.js"
import type { ChatResponse } from "../../services/LLMProvider.js"
import type { CallRole } from "../../services/CallLog.js"
import * as Deadlines from "../../programs/providers/Deadlines.js"
import { type ProviderPolicy, reported, timeoutError, withRetries } from "../../programs/providers/Reliability.js"
import { toProviderError } from "./OpenAiErrors.js"
import { splitReply } from "./Thinking.js"
import { transportFetch } from "./Transport.js"

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
    timeout: Duration.toMillis(endpoint.timeout) + 5_000,
    fetch: transportFetch
  })

/** The reliability policy of one endpoint, with the queue that times its attempts out. */
export interface RequestPolicy extends ProviderPolicy {
  readonly deadlines: Deadlines.Deadlines
}

export const makePolicy = (
  endpoint: EndpointConfig,
  reliability: ReliabilityConfig,
  semaphore: Effect.Semaphore
): RequestPolicy => ({
  provider: endpoint.provider,
  semaphore,
  timeout: endpoint.timeout,
  retries: reliability.retries,
  deadlines: Deadlines.make(endpoint.timeout)
})

/**
 * One attempt of an SDK request as an Effect, timed out by the policy's deadlines. The AbortSignal is
 * what makes the timeout or an interruption (Ctrl-C, a sibling failing) cancel the HTTP request instead
 * of leaving it running.
 */
export const sdkRequest = <A>(endpoint: EndpointConfig, policy: RequestPolicy, run: (signal: AbortSignal) => Promise<A>) =>
  policy.deadlines.run(run, toProviderError(endpoint.provider, endpoint.apiKey), () => timeoutError(policy))

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
 * Folds a streamed chat completion back into the shape of a non-streamed reply, so one reader checks
 * both: content and reasoning deltas joined in order, the last finish reason, the usage chunk.
 */
export const collectStream = async (chunks: AsyncIterable<unknown>): Promise<Record<string, unknown>> => {
  let content = ""
  let reasoning = ""
  let finishReason: unknown = null
  let usage: unknown = undefined
  let model: unknown = undefined
  for await (const chunk of chunks) {
    const part = chunk as { model?: unknown; usage?: unknown; choices?: ReadonlyArray<{ delta?: Record<string, unknown>; finish_reason?: unknown }> }
    if (typeof part.model === "string") model = part.model
    if (typeof part.usage === "object" && part.usage !== null) usage = part.usage
    const choice = part.choices?.[0]
    if (choice === undefined) continue
    const delta = choice.delta ?? {}
    if (typeof delta["content"] === "string") content += delta["content"]
    const thought = delta["reasoning_content"] ?? delta["reasoning"]
    if (typeof thought === "string") reasoning += thought
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finishReason = choice.finish_reason
  }
  return {
    model,
    usage,
    choices: [{ message: { content, ...(reasoning === "" ? {} : { reasoning_content: reasoning }) }, finish_reason: finishReason }]
  }
}

/**
 * Sends one chat-completions body under the policy and reports the call. `body` is sent as given,
 * so dialect fields the SDK's types do not know (thinking switches) reach the server. With `stream`,
 * the reply is received as server-sent events and folded back into one reply (DashScope accepts
 * thinking only on streamed calls).
 */
export const completeChat = (options: {
  readonly client: OpenAI
  readonly endpoint: EndpointConfig
  readonly policy: RequestPolicy
  readonly role: CallRole
  readonly body: Record<string, unknown>
  readonly stream?: boolean
}): Effect.Effect<ChatResponse, ProviderError> =>
  sdkRequest(options.endpoint, options.policy, async (signal): Promise<unknown> => {
    if (options.stream !== true) {
      return options.client.chat.completions.create(
        options.body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
        { signal }
      )
    }
    const chunks = await options.client.chat.completions.create(
      { ...options.body, stream: true, stream_options: { include_usage: true } } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming,
      { signal }
    )
    return collectStream(chunks)
  }).pipe(
      Effect.flatMap((reply) => readChatReply(options.endpoint, reply)),
      withRetries(options.policy),
      reported({ role: options.role, model: options.endpoint.model }, (response) => response.usage)
    )
