import { Duration, Effect, Either, Option, ParseResult, Redacted, Schema } from "effect"
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
 * One attempt of an SDK request. The signal is what makes the policy's timeout or an interruption
 * (Ctrl-C, a sibling failing) cancel the HTTP request instead of leaving it running.
 */
export const sdkRequest = <A>(endpoint: EndpointConfig, run: (signal: AbortSignal) => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: toProviderError(endpoint.provider, endpoint.apiKey, endpoint) })

const TokenCount = Schema.optional(Schema.NullOr(Schema.Number))
const Usage = Schema.Struct({ prompt_tokens: TokenCount, completion_tokens: TokenCount }).annotations({ identifier: "Usage" })
const FinishReason = Schema.optional(Schema.NullOr(Schema.String))
const Text = Schema.optional(Schema.NullOr(Schema.String))

/** A reply message; reasoning comes as `reasoning_content` or `reasoning` depending on the server. */
const ReplyMessage = Schema.Struct({ content: Text, reasoning_content: Text, reasoning: Text }).annotations({ identifier: "Message" })

// Identifiers keep a decode message short: "Expected ChatCompletion, actual null", not the whole type.
const Choice = Schema.Struct({ message: ReplyMessage, finish_reason: FinishReason }).annotations({ identifier: "Choice" })

/** A non-streamed chat-completions reply, as much of it as vtree reads. */
export const ChatReply = Schema.Struct({
  model: Text,
  choices: Schema.NonEmptyArray(Choice),
  usage: Schema.optional(Schema.NullOr(Usage))
}).annotations({ identifier: "ChatCompletion" })
export type ChatReply = typeof ChatReply.Type

/** One server-sent event of a streamed reply; the usage chunk has no choices. */
export const ChatChunk = Schema.Struct({
  model: Text,
  choices: Schema.optional(
    Schema.Array(Schema.Struct({ delta: Schema.optional(Schema.NullOr(ReplyMessage)), finish_reason: FinishReason }).annotations({ identifier: "ChunkChoice" }))
  ),
  usage: Schema.optional(Schema.NullOr(Usage))
}).annotations({ identifier: "ChatCompletionChunk" })
export type ChatChunk = typeof ChatChunk.Type

/** A reply that does not decode is a BadResponse naming the first problem, e.g. "choices: is missing". */
export const decodeReply = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (endpoint: EndpointConfig) => (reply: unknown): Either.Either<A, ProviderError> =>
    Either.mapLeft(decode(reply), (error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const at = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
      return badResponse(endpoint, `unexpected reply (${at}${issue?.message ?? "invalid"})`)
    })
}

const decodeChatReply = decodeReply(ChatReply)
const decodeChunks = decodeReply(Schema.Array(ChatChunk))

const badResponse = (endpoint: EndpointConfig, message: string) =>
  new ProviderError({ provider: endpoint.provider, reason: "BadResponse", message: `${endpoint.provider}: ${message}` })

/** A decoded reply as a ChatResponse, or a BadResponse when the model said nothing. */
export const readChatReply = (endpoint: EndpointConfig, reply: ChatReply): Either.Either<ChatResponse, ProviderError> => {
  const [first] = reply.choices
  const { content, reasoning } = splitReply(first.message)
  if (content.trim() === "") {
    return Either.left(badResponse(endpoint, `the model returned no content (finish_reason: ${first.finish_reason ?? "none"})`))
  }
  return Either.right({
    content,
    ...(reasoning === undefined ? {} : { reasoning }),
    usage: { promptTokens: reply.usage?.prompt_tokens ?? 0, completionTokens: reply.usage?.completion_tokens ?? 0 },
    // Some servers send an empty model name.
    model: reply.model || endpoint.model
  })
}

/**
 * Folds a streamed chat completion back into the shape of a non-streamed reply, so one reader checks
 * both: content and reasoning deltas joined in order, the last finish reason, the usage chunk.
 */
export const collectStream = (chunks: ReadonlyArray<ChatChunk>): ChatReply => {
  let content = ""
  let reasoning = ""
  let finishReason: string | null = null
  let usage: ChatReply["usage"] = undefined
  let model: string | undefined = undefined
  for (const chunk of chunks) {
    if (typeof chunk.model === "string") model = chunk.model
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
    const choice = chunk.choices?.[0]
    if (choice === undefined) continue
    content += choice.delta?.content ?? ""
    reasoning += choice.delta?.reasoning_content ?? choice.delta?.reasoning ?? ""
    if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason
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
  readonly policy: ProviderPolicy
  readonly role: CallRole
  readonly body: Record<string, unknown>
  readonly stream?: boolean
}): Effect.Effect<ChatResponse, ProviderError> => {
  const { client, endpoint } = options
  const reply: Effect.Effect<ChatReply, ProviderError> = options.stream === true
    ? sdkRequest(endpoint, async (signal) => {
      const stream = await client.chat.completions.create(
        { ...options.body, stream: true, stream_options: { include_usage: true } } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming,
        { signal }
      )
      const chunks: Array<unknown> = []
      for await (const chunk of stream) chunks.push(chunk)
      return chunks
    }).pipe(Effect.flatMap(decodeChunks(endpoint)), Effect.map(collectStream))
    : sdkRequest(endpoint, (signal) =>
      client.chat.completions.create(
        options.body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
        { signal }
      )).pipe(Effect.flatMap(decodeChatReply(endpoint)))
  return reply.pipe(
    Effect.flatMap((decoded) => readChatReply(endpoint, decoded)),
    withPolicy(options.policy),
    reported({ role: options.role, model: endpoint.model }, (response) => response.usage)
  )
}
