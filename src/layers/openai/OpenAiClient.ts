import { Duration, Effect, Either, Option, ParseResult, Redacted, Ref, Schema } from "effect"
import OpenAI from "openai"
import type { EndpointConfig, ReliabilityConfig } from "../../config/ProviderConfig.js"
import { ProviderError } from "../../domain/ProviderError.js"
import type { CallRole } from "../../services/CallLog.js"
import type { ChatResponse, TokenBreakdown, Usage as TokenUsage } from "../../services/LLMProvider.js"
import { boundedFetch, defaultMaxReplyBytes } from "../shared/BoundedFetch.js"
import { type CallSpan, reported } from "../shared/Reliability.js"
import { type EndpointPool, type PoolPolicy, type PoolSender, poolSender, type ReplicaSet } from "./EndpointPool.js"
import { toProviderError } from "./OpenAiErrors.js"
import { splitReply } from "./Thinking.js"
import { foldToolCallDeltas, readToolCalls, WireToolCall, WireToolCallDelta } from "./ToolCalls.js"

/**
 * An SDK client for one endpoint. Retries are ours (one policy for every provider), so the SDK's are
 * off; its own timeout sits past ours so that ours, which knows the attempt, is the one that fires.
 */
export const makeClient = (endpoint: EndpointConfig, maxReplyBytes: number = defaultMaxReplyBytes): OpenAI =>
  new OpenAI({
    baseURL: endpoint.baseUrl,
    // The SDK insists on a key; local servers (vLLM, Ollama) accept any, so a placeholder stands in.
    apiKey: Option.match(endpoint.apiKey, { onNone: () => "no-key", onSome: Redacted.value }),
    maxRetries: 0,
    timeout: Duration.toMillis(endpoint.timeout) + 5_000,
    // The SDK reads replies itself: the size cap and the wait for a first byte go in through its fetch.
    fetch: boundedFetch({ maxBytes: maxReplyBytes, firstByteMs: Duration.toMillis(endpoint.timeout) })
  })

/** Every base URL serving the endpoint's role. */
export const endpointUrls = (endpoint: EndpointConfig): ReadonlyArray<string> => endpoint.baseUrls ?? [endpoint.baseUrl]

/** The default first ejection of a failing replica (`VTREE_PROVIDER_EJECT_SECONDS`). */
export const defaultEjectFor = Duration.seconds(5)

/**
 * What a role sends its requests through: one SDK client per base URL over the provider's replicas
 * (shared by roles naming the same URL), and the policy without a cap of its own — caps are per replica.
 */
export interface Route {
  readonly endpoint: EndpointConfig
  readonly pool: EndpointPool<OpenAI>
  readonly policy: PoolPolicy
  /** Sends one call through the pool under the policy (EndpointPool's `poolSender`, built once per route). */
  readonly send: PoolSender<OpenAI>
}

export const makeRoute = (endpoint: EndpointConfig, reliability: ReliabilityConfig, replicas: ReplicaSet): Route => {
  const pool: EndpointPool<OpenAI> = {
    members: endpointUrls(endpoint).map((url) => ({
      replica: replicas.replica(url),
      client: makeClient({ ...endpoint, baseUrl: url }, reliability.maxReplyBytes)
    })),
    set: replicas,
    probe: (client) => sdkRequest(endpoint, (signal) => client.models.list({ signal })),
    ejectFor: reliability.ejectFor ?? defaultEjectFor
  }
  const policy: PoolPolicy = { provider: endpoint.provider, timeout: endpoint.timeout, retries: reliability.retries }
  return { endpoint, pool, policy, send: poolSender(pool, policy) }
}

/**
 * Runs one logical call (retries included) across the route's replicas and reports it, with the
 * endpoint that served it and the attempts it took; each attempt also reaches the run's breaker.
 */
export const sendReported = <A>(
  route: Route,
  role: CallRole,
  attempt: (client: OpenAI) => Effect.Effect<A, ProviderError>,
  tokens: (result: A) => { readonly promptTokens: number; readonly completionTokens: number },
  span: Omit<CallSpan<A>, "provider"> = {}
): Effect.Effect<A, ProviderError> =>
  Effect.suspend(() => {
    const servedBy = Ref.unsafeMake(Option.none<string>())
    const attempts = Ref.unsafeMake(0)
    return route.send(servedBy, { role, attempts })(attempt).pipe(
      // Every endpoint here speaks the OpenAI API through its SDK, as the GenAI conventions name it.
      reported({ role, model: route.endpoint.model, servedBy, attempts }, tokens, { provider: "openai", ...span })
    )
  })

/**
 * One attempt of an SDK request. The signal is what makes the policy's timeout or an interruption
 * (Ctrl-C, a sibling failing) cancel the HTTP request instead of leaving it running.
 */
export const sdkRequest = <A>(endpoint: EndpointConfig, run: (signal: AbortSignal) => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: toProviderError(endpoint.provider, endpoint.apiKey, endpoint) })

const TokenCount = Schema.optional(Schema.NullOr(Schema.Number))
/**
 * The usage block in every dialect vtree meets: OpenAI, vLLM (with prefix caching) and DashScope put
 * cache hits in `prompt_tokens_details.cached_tokens`, DeepSeek in `prompt_cache_hit_tokens`; reasoning
 * models count their thinking in `completion_tokens_details.reasoning_tokens`. OpenAI counts audio, DashScope's
 * vision models text and image tokens, and its explicit cache the tokens it wrote, in the same details.
 */
const Usage = Schema.Struct({
  prompt_tokens: TokenCount,
  completion_tokens: TokenCount,
  prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({
    cached_tokens: TokenCount,
    cache_creation_input_tokens: TokenCount,
    text_tokens: TokenCount,
    image_tokens: TokenCount,
    audio_tokens: TokenCount,
    video_tokens: TokenCount
  }))),
  prompt_cache_hit_tokens: TokenCount,
  completion_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({
    reasoning_tokens: TokenCount,
    text_tokens: TokenCount,
    audio_tokens: TokenCount
  })))
}).annotations({ identifier: "Usage" })
type ReplyUsage = typeof Usage.Type

/** A reply's usage block as vtree counts it; details only when the server reported them. */
export const readUsage = (usage: ReplyUsage | null | undefined): TokenUsage => {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    ...(cached === undefined || cached === null ? {} : { cachedPromptTokens: cached }),
    ...(reasoning === undefined || reasoning === null ? {} : { reasoningTokens: reasoning })
  }
}
/** The parts of a reply's counts its span carries beyond what the store records; absent when none is reported. */
export const readTokenBreakdown = (usage: ReplyUsage | null | undefined): TokenBreakdown | undefined => {
  const input = usage?.prompt_tokens_details
  const output = usage?.completion_tokens_details
  const counts: Record<keyof TokenBreakdown, number | null | undefined> = {
    cacheWriteInput: input?.cache_creation_input_tokens,
    textInput: input?.text_tokens,
    imageInput: input?.image_tokens,
    audioInput: input?.audio_tokens,
    videoInput: input?.video_tokens,
    textOutput: output?.text_tokens,
    audioOutput: output?.audio_tokens
  }
  const reported = Object.entries(counts).filter((entry): entry is [string, number] => typeof entry[1] === "number")
  return reported.length === 0 ? undefined : Object.fromEntries(reported)
}

const FinishReason = Schema.optional(Schema.NullOr(Schema.String))
const Text = Schema.optional(Schema.NullOr(Schema.String))

/** A message's text; reasoning comes as `reasoning_content` or `reasoning` depending on the server. */
const messageText = { content: Text, reasoning_content: Text, reasoning: Text }

const ReplyMessage = Schema.Struct({
  ...messageText,
  tool_calls: Schema.optional(Schema.NullOr(Schema.Array(WireToolCall)))
}).annotations({ identifier: "Message" })

/** A streamed message piece: tool calls come as numbered pieces to be joined. */
const DeltaMessage = Schema.Struct({
  ...messageText,
  tool_calls: Schema.optional(Schema.NullOr(Schema.Array(WireToolCallDelta)))
}).annotations({ identifier: "Delta" })

// Identifiers keep a decode message short: "Expected ChatCompletion, actual null", not the whole type.
const Choice = Schema.Struct({ message: ReplyMessage, finish_reason: FinishReason }).annotations({
  identifier: "Choice"
})

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
    Schema.Array(
      Schema.Struct({ delta: Schema.optional(Schema.NullOr(DeltaMessage)), finish_reason: FinishReason }).annotations({
        identifier: "ChunkChoice"
      })
    )
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
export const readChatReply = (
  endpoint: EndpointConfig,
  reply: ChatReply
): Either.Either<ChatResponse, ProviderError> => {
  const [first] = reply.choices
  const { content, reasoning } = splitReply(first.message)
  const toolCalls = readToolCalls(first.message.tool_calls)
  if (content.trim() === "" && toolCalls.length === 0) {
    return Either.left(
      badResponse(endpoint, `the model returned no content (finish_reason: ${first.finish_reason ?? "none"})`)
    )
  }
  const tokenBreakdown = readTokenBreakdown(reply.usage)
  return Either.right({
    content,
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
    usage: readUsage(reply.usage),
    ...(tokenBreakdown === undefined ? {} : { tokenBreakdown }),
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
  const toolCallDeltas: Array<WireToolCallDelta> = []
  for (const chunk of chunks) {
    if (typeof chunk.model === "string") model = chunk.model
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
    const choice = chunk.choices?.[0]
    if (choice === undefined) continue
    content += choice.delta?.content ?? ""
    reasoning += choice.delta?.reasoning_content ?? choice.delta?.reasoning ?? ""
    for (const delta of choice.delta?.tool_calls ?? []) toolCallDeltas.push(delta)
    if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason
  }
  const toolCalls: ReadonlyArray<WireToolCall> = foldToolCallDeltas(toolCallDeltas)
  return {
    model,
    usage,
    choices: [{
      message: {
        content,
        ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
        ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls })
      },
      finish_reason: finishReason
    }]
  }
}

/**
 * Sends one chat-completions body across the route's replicas under its policy and reports the call. `body` is sent as given,
 * so dialect fields the SDK's types do not know (thinking switches) reach the server. With `stream`,
 * the reply is received as server-sent events and folded back into one reply (DashScope accepts
 * thinking only on streamed calls).
 */
export const completeChat = (
  options: Route & {
    readonly role: CallRole
    readonly body: Record<string, unknown>
    readonly stream?: boolean
  }
): Effect.Effect<ChatResponse, ProviderError> => {
  const { endpoint } = options
  const reply = (client: OpenAI): Effect.Effect<ChatReply, ProviderError> =>
    options.stream === true
      ? sdkRequest(endpoint, async (signal) => {
        const stream = await client.chat.completions.create(
          {
            ...options.body,
            stream: true,
            stream_options: { include_usage: true }
          } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming,
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
  const attempt = (client: OpenAI) => Effect.flatMap(reply(client), (decoded) => readChatReply(endpoint, decoded))
  return sendReported(options, options.role, attempt, (response) => response.usage, {
    responseModel: (response) => response.model,
    tokenBreakdown: (response) => response.tokenBreakdown,
    input: () => spanMessages(options.body.messages),
    output: (response) => [{
      role: "assistant",
      parts: [
        ...(response.content === "" ? [] : [{ type: "text", content: response.content }]),
        ...(response.toolCalls ?? []).map((call) => ({
          type: "tool_call",
          id: call.id,
          name: call.name,
          arguments: call.arguments
        }))
      ]
    }]
  })
}

/**
 * A request's messages as the GenAI conventions' `gen_ai.input.messages` has them (role + parts). Images
 * are named, not copied: a data URL of a frame is megabytes no trace backend should store.
 */
export const spanMessages = (messages: unknown): ReadonlyArray<unknown> =>
  (Array.isArray(messages) ? messages : []).map((message: Record<string, unknown>) => {
    const content = message["content"]
    const parts = typeof content === "string"
      ? [{ type: "text", content }]
      : Array.isArray(content)
      ? content.map((part: Record<string, unknown>) =>
        part["type"] === "text" ? { type: "text", content: part["text"] } : { type: "uri", modality: "image" }
      )
      : []
    const calls = Array.isArray(message["tool_calls"]) ? message["tool_calls"] as Array<Record<string, any>> : []
    return {
      role: message["role"],
      parts: [
        ...parts,
        ...calls.map((call) => ({
          type: "tool_call",
          id: call["id"],
          name: call["function"]?.name,
          arguments: call["function"]?.arguments
        }))
      ]
    }
  })
