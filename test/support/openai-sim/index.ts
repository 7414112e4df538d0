/**
 * openai-sim: a real HTTP server on 127.0.0.1 speaking enough of the OpenAI API for vtree's provider
 * layers — `POST /v1/chat/completions`, `POST /v1/embeddings` and `POST /v1/audio/transcriptions` — with scripted replies per model and
 * injectable faults. Used by integration tests, benchmarks and end-to-end tests that spawn the CLI with
 * `VTREE_LLM_BASE_URL=<sim.url>`.
 *
 *   const sim = await start({ chat: { "agent-model": [{ content: "hi", reasoning: "…" }, { fault: "status", status: 429, retryAfter: "2" }] } })
 *   // … point a layer at sim.url …
 *   sim.requests      // every request received, in order, with its parsed body
 *   sim.maxInFlight   // the most requests open at once
 *   await sim.close()
 *
 * A script is a list of replies, consumed in order (running past its end answers 500 saying so), or a
 * function of the request. Models without a script answer 404 (chat); embeddings default to a
 * deterministic vector per text.
 */
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { deterministicSegments, readUpload, transcriptionBody, type TranscriptionReply } from "./transcriptions.js"

export type { TranscriptionReply } from "./transcriptions.js"

export interface ChatReply {
  readonly content: string
  readonly reasoning?: string
  /** Where the reasoning goes: DeepSeek/DashScope style (default) or newer vLLM style. */
  readonly reasoningField?: "reasoning_content" | "reasoning"
  /** Sent as given instead of the sim's counts (any dialect's extra fields included). */
  readonly usage?: {
    readonly prompt_tokens: number
    readonly completion_tokens: number
    readonly [detail: string]: unknown
  }
  readonly finishReason?: string
  /** Answer after this many milliseconds (real time; for benchmarks and concurrency checks). */
  readonly delayMs?: number
  /**
   * Native function calls (`tool_calls`); finish_reason then defaults to "tool_calls" and empty content
   * is sent as null, as OpenAI does. Arguments given as an object are sent as JSON text.
   */
  readonly toolCalls?: ReadonlyArray<SimToolCall>
}

export interface SimToolCall {
  /** Default `call_<request>_<index>`. */
  readonly id?: string
  readonly name: string
  readonly arguments: string | Readonly<Record<string, unknown>>
}

/** The wire form of a reply's tool calls, ids filled in. */
const wireToolCalls = (calls: ReadonlyArray<SimToolCall>, request: number) =>
  calls.map((call, index) => ({
    id: call.id ?? `call_${request}_${index}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)
    }
  }))

export type Fault =
  /** An HTTP error status, optionally with Retry-After (seconds or date) / retry-after-ms headers. */
  | {
    readonly fault: "status"
    readonly status: number
    readonly retryAfter?: string
    readonly retryAfterMs?: number
    readonly message?: string
  }
  /** Never answer; the request stays open until the client gives up or the sim closes. */
  | { readonly fault: "stall" }
  /** 200 with a body that is not JSON. */
  | { readonly fault: "malformed" }
  /** Destroy the socket without answering. */
  | { readonly fault: "drop" }
  /** 200 and its headers, then a body that never ends: written as fast as the client reads, until it closes. */
  | { readonly fault: "endless" }
  /** 200 and its headers, then nothing: the body never starts. */
  | { readonly fault: "silent" }
  /** The same, with headers stating the body's length (a whole reply, not a stream). */
  | { readonly fault: "silentWithLength" }

export interface EmbeddingReply {
  /** One vector per input; omitted → deterministic vectors of `dimensions` (default: the sim's). */
  readonly vectors?: ReadonlyArray<ReadonlyArray<number>>
  readonly dimensions?: number
  /** List the data items last-first (indices stay right), as some servers do. */
  readonly reversed?: boolean
}

export interface SimRequest {
  readonly path: string
  readonly model: string | undefined
  readonly body: Record<string, unknown>
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** True once the client closed the connection before the response was sent. */
  aborted: boolean
  /** True once the response was completely written. */
  answered: boolean
}

export type Script<R> = ReadonlyArray<R | Fault> | ((request: SimRequest, index: number) => R | Fault)

export interface SimOptions {
  /** Chat replies per model name; the key "*" serves models without their own script. */
  readonly chat?: Readonly<Record<string, Script<ChatReply>>>
  /** `/audio/transcriptions` replies per model; without a script, deterministic segments (transcriptions.ts). */
  readonly transcriptions?: Readonly<Record<string, Script<TranscriptionReply>>>
  /** Embedding replies per model name; the key "*" serves models without their own script. */
  readonly embeddings?: Readonly<Record<string, Script<EmbeddingReply>>>
  /** Size of default embedding vectors (8). */
  readonly dimensions?: number
  /** Listen on this loopback port (0 / unset: any free one), e.g. to bring a stopped sim back at its old URL. */
  readonly port?: number
  /** Asked first for every chat request; a reply answers it, undefined leaves it to the scripts (see builder.ts). */
  readonly intercept?: (request: SimRequest) => ChatReply | undefined
  /** How the computed usage reports prefix-cache hits and reasoning tokens (see `usageBlock`); default "openai". */
  readonly usageDialect?: UsageDialect
}

export interface OpenAiSim {
  /** Base URL including `/v1`, as the openai SDK and VTREE_*_BASE_URL expect. */
  readonly url: string
  readonly requests: ReadonlyArray<SimRequest>
  readonly inFlight: number
  readonly maxInFlight: number
  /** Resolves once `predicate` holds (polled), or rejects after `timeoutMs` real milliseconds. */
  readonly waitFor: (predicate: () => boolean, timeoutMs?: number) => Promise<void>
  /** Forget requests, the in-flight maximum and the prefix cache (between benchmark phases). */
  readonly reset: () => void
  readonly close: () => Promise<void>
}

/** The same vector for the same text: tests can predict it, and similar calls stay comparable. */
export const deterministicVector = (text: string, dimensions: number): Array<number> => {
  const digest = createHash("sha256").update(text).digest()
  return Array.from({ length: dimensions }, (_, i) => (digest[i % digest.length]! - 128) / 128)
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

const errorBody = (message: string, type = "invalid_request_error") => ({ error: { message, type, code: null } })

const roughTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4))

/**
 * Where a usage block puts the details: "openai" (also vLLM with prefix caching and DashScope) in
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`; "deepseek" puts
 * cache hits in `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`; "none" reports neither.
 */
export type UsageDialect = "openai" | "deepseek" | "none"

/** What the sim counts for one chat reply; cached ⊆ prompt, reasoning ⊆ completion. */
export interface SimTokens {
  readonly prompt: number
  readonly completion: number
  readonly cached: number
  readonly reasoning: number
}

export const usageBlock = (tokens: SimTokens, dialect: UsageDialect): Record<string, unknown> => {
  const base = {
    prompt_tokens: tokens.prompt,
    completion_tokens: tokens.completion,
    total_tokens: tokens.prompt + tokens.completion
  }
  switch (dialect) {
    case "none":
      return base
    case "openai":
      return {
        ...base,
        prompt_tokens_details: { cached_tokens: tokens.cached },
        completion_tokens_details: { reasoning_tokens: tokens.reasoning }
      }
    case "deepseek":
      return {
        ...base,
        prompt_cache_hit_tokens: tokens.cached,
        prompt_cache_miss_tokens: tokens.prompt - tokens.cached,
        completion_tokens_details: { reasoning_tokens: tokens.reasoning }
      }
  }
}

/** The text the sim counts prompt tokens over (and caches prefixes of): the messages as sent. */
export const promptText = (body: Record<string, unknown>): string =>
  JSON.stringify(Array.isArray(body["messages"]) ? body["messages"] : [])

const sharedPrefix = (a: string, b: string): number => {
  const end = Math.min(a.length, b.length)
  let i = 0
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/**
 * A prefix cache like vLLM's or OpenAI's: a request's cached tokens are the longest prefix of its prompt
 * text shared with an earlier answered request. "Conversation" is simply the model: every earlier
 * request to the same model counts, as on a server whose cache is shared by all its clients. Only
 * whole 4-character tokens count, and only the most recent `capacity` prompts are kept (servers evict).
 */
export const makePrefixCache = (capacity = 256) => {
  // Per model: the kept prompts in sorted order (in which the prompt sharing the longest prefix with a
  // new one is always a neighbour of the new one's place, so a lookup is a binary search and two
  // comparisons, not one per kept prompt), and in arrival order, for eviction.
  const byModel = new Map<string, { readonly sorted: Array<string>; readonly arrived: Array<string> }>()
  const place = (sorted: ReadonlyArray<string>, text: string): number => {
    let low = 0
    let high = sorted.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (sorted[middle]! < text) low = middle + 1
      else high = middle
    }
    return low
  }
  return {
    /** Cached tokens for `text`, then remembers it. */
    lookup: (model: string, text: string): number => {
      const kept = byModel.get(model) ?? { sorted: [], arrived: [] }
      byModel.set(model, kept)
      const at = place(kept.sorted, text)
      const longest = Math.max(
        at > 0 ? sharedPrefix(kept.sorted[at - 1]!, text) : 0,
        at < kept.sorted.length ? sharedPrefix(kept.sorted[at]!, text) : 0
      )
      kept.sorted.splice(at, 0, text)
      kept.arrived.push(text)
      if (kept.arrived.length > capacity) kept.sorted.splice(place(kept.sorted, kept.arrived.shift()!), 1)
      return Math.floor(longest / 4)
    },
    clear: () => byModel.clear()
  }
}

export const start = async (options: SimOptions = {}): Promise<OpenAiSim> => {
  const requests: Array<SimRequest> = []
  const counters = new Map<string, number>()
  const sockets = new Set<Socket>()
  const prefixCache = makePrefixCache()
  let inFlight = 0
  let maxInFlight = 0

  const pick = <R>(kind: string, scripts: Readonly<Record<string, Script<R>>> | undefined, request: SimRequest) => {
    const key = request.model !== undefined && scripts?.[request.model] !== undefined ? request.model : "*"
    const script = scripts?.[key]
    if (script === undefined) return undefined
    const counter = `${kind}:${key}`
    const index = counters.get(counter) ?? 0
    counters.set(counter, index + 1)
    if (typeof script === "function") return { reply: script(request, index), index }
    if (index >= script.length) {
      return {
        reply: {
          fault: "status",
          status: 500,
          message: `openai-sim: the ${kind} script for model ${key} has ${script.length} replies; reply ${
            index + 1
          } was requested`
        } satisfies Fault,
        index
      }
    }
    return { reply: script[index]!, index }
  }

  const applyFault = (fault: Fault, res: ServerResponse, req: IncomingMessage): boolean => {
    switch (fault.fault) {
      case "status": {
        const headers: Record<string, string> = {}
        if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter
        if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs)
        sendJson(res, fault.status, errorBody(fault.message ?? `openai-sim: injected HTTP ${fault.status}`), headers)
        return true
      }
      case "stall":
        return false
      case "malformed": {
        const text = "{\"id\": \"chatcmpl-sim\", \"choices\": [ {\"message\": "
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
        res.end(text)
        return true
      }
      case "drop":
        req.socket.destroy()
        return false
      case "endless": {
        res.writeHead(200, { "content-type": "application/json" })
        res.write("{\"id\": \"chatcmpl-sim\", \"padding\": \"")
        const piece = "x".repeat(64 * 1024)
        // Bounded by the client: the loop ends when it closes the connection, and waits while it does not read.
        const pump = () => {
          while (!res.destroyed && res.write(piece));
          if (!res.destroyed) res.once("drain", pump)
        }
        pump()
        return false
      }
      case "silent":
        res.writeHead(200, { "content-type": "application/json" })
        res.flushHeaders()
        return false
      case "silentWithLength":
        res.writeHead(200, { "content-type": "application/json", "content-length": 1000 })
        res.flushHeaders()
        return false
    }
  }

  const isFault = (value: unknown): value is Fault => typeof value === "object" && value !== null && "fault" in value

  const handleChat = async (request: SimRequest, res: ServerResponse, req: IncomingMessage) => {
    const intercepted = options.intercept?.(request)
    const picked = intercepted !== undefined ? { reply: intercepted, index: -1 } : pick("chat", options.chat, request)
    if (picked === undefined) {
      return sendJson(res, 404, errorBody(`openai-sim: no chat script for model ${request.model ?? "(none)"}`))
    }
    const { reply } = picked
    if (isFault(reply)) return applyFault(reply, res, req)
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs))
    const prompt = promptText(request.body)
    const cached = prefixCache.lookup(request.model ?? "", prompt)
    const promptTokens = roughTokens(prompt)
    const usage = reply.usage ?? usageBlock({
      prompt: promptTokens,
      completion: roughTokens(reply.content + (reply.reasoning ?? "")),
      cached: Math.min(cached, promptTokens),
      reasoning: reply.reasoning === undefined ? 0 : roughTokens(reply.reasoning)
    }, options.usageDialect ?? "openai")
    if (request.body["stream"] === true) return sendStream(res, request, reply, usage)
    const message: Record<string, unknown> = { role: "assistant", content: reply.content }
    if (reply.reasoning !== undefined) message[reply.reasoningField ?? "reasoning_content"] = reply.reasoning
    const calls = reply.toolCalls ?? []
    if (calls.length > 0) {
      message["tool_calls"] = wireToolCalls(calls, requests.length)
      if (reply.content === "") message["content"] = null
    }
    sendJson(res, 200, {
      id: `chatcmpl-sim-${requests.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model ?? "unknown",
      choices: [{ index: 0, message, finish_reason: reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop") }],
      usage
    })
  }

  /**
   * `stream: true`: server-sent events as OpenAI-compatible servers send them — reasoning deltas first,
   * then the content in a few pieces, a finish chunk, a usage chunk when `stream_options.include_usage`,
   * and `[DONE]`.
   */
  const sendStream = (res: ServerResponse, request: SimRequest, reply: ChatReply, usage: unknown) => {
    const base = {
      id: `chatcmpl-sim-${requests.length}`,
      object: "chat.completion.chunk",
      created: Math.floor(Date.now() / 1000),
      model: request.model ?? "unknown"
    }
    const pieces = (text: string) => text.match(/[\s\S]{1,16}/g) ?? []
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finish }]
    })
    const events: Array<unknown> = [chunk({ role: "assistant", content: "" })]
    for (const piece of pieces(reply.reasoning ?? "")) {
      events.push(chunk({ [reply.reasoningField ?? "reasoning_content"]: piece }))
    }
    for (const piece of pieces(reply.content)) events.push(chunk({ content: piece }))
    // Each call as servers stream it: id and name first, then the argument text in pieces.
    wireToolCalls(reply.toolCalls ?? [], requests.length).forEach((call, index) => {
      events.push(
        chunk({
          tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }]
        })
      )
      for (const piece of pieces(call.function.arguments)) {
        events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
      }
    })
    events.push(chunk({}, reply.finishReason ?? ((reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop")))
    const options = request.body["stream_options"] as { include_usage?: unknown } | undefined
    if (options?.include_usage === true) events.push({ ...base, choices: [], usage })
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    res.end(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + "data: [DONE]\n\n")
  }

  const handleEmbeddings = (request: SimRequest, res: ServerResponse, req: IncomingMessage) => {
    const input = request.body["input"]
    const texts = Array.isArray(input) ? input.map(String) : [String(input ?? "")]
    const picked = pick("embeddings", options.embeddings, request)
    const reply: EmbeddingReply | Fault = picked?.reply ?? {}
    if (isFault(reply)) return applyFault(reply, res, req)
    const dimensions = reply.dimensions ?? options.dimensions ?? 8
    const vectors = reply.vectors ?? texts.map((text) => deterministicVector(text, dimensions))
    const data = vectors.map((embedding, index) => ({ object: "embedding", index, embedding }))
    sendJson(res, 200, {
      object: "list",
      model: request.model ?? "unknown",
      data: reply.reversed === true ? data.reverse() : data,
      usage: { prompt_tokens: texts.reduce((sum, text) => sum + roughTokens(text), 0), total_tokens: 0 }
    })
  }

  // Multipart, not JSON: the form fields become the recorded body, the file its name and size.
  const handleTranscription = async (raw: Buffer, path: string, res: ServerResponse, req: IncomingMessage) => {
    const upload = await readUpload(raw, req.headers["content-type"] ?? "")
    const model = typeof upload.fields["model"] === "string" ? upload.fields["model"] : undefined
    const request: SimRequest = {
      path,
      model,
      body: { ...upload.fields, file: { name: upload.fileName, size: upload.fileBytes.length } },
      headers: { ...req.headers },
      aborted: false,
      answered: false
    }
    requests.push(request)
    res.on("finish", () => (request.answered = true))
    res.on("close", () => (request.aborted = !res.writableFinished))
    const reply: TranscriptionReply | Fault = pick("transcriptions", options.transcriptions, request)?.reply ?? {}
    if (isFault(reply)) return applyFault(reply, res, req)
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs))
    const body = transcriptionBody(upload, reply.segments ?? deterministicSegments(upload, reply.segmentSeconds))
    res.writeHead(200, { "content-type": body.contentType, "content-length": Buffer.byteLength(body.text) })
    res.end(body.text)
  }

  const server: Server = createServer(async (req, res) => {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    let counted = true
    const done = () => {
      if (counted) {
        counted = false
        inFlight -= 1
      }
    }
    let request: SimRequest | undefined
    res.on("finish", () => {
      if (request !== undefined) request.answered = true
      done()
    })
    res.on("close", () => {
      if (request !== undefined && !res.writableFinished) request.aborted = true
      done()
    })
    try {
      const bytes = await readBody(req)
      const path = (req.url ?? "/").split("?")[0]!
      if (req.method === "GET" && (path === "/v1/models" || path === "/health")) {
        return sendJson(res, 200, { object: "list", data: [] })
      }
      if (req.method === "POST" && path === "/v1/audio/transcriptions") {
        return void (await handleTranscription(bytes, path, res, req))
      }
      const raw = bytes.toString("utf8")
      let body: Record<string, unknown>
      try {
        body = raw === "" ? {} : JSON.parse(raw) as Record<string, unknown>
      } catch {
        return sendJson(res, 400, errorBody("openai-sim: the request body is not JSON"))
      }
      request = {
        path,
        model: typeof body["model"] === "string" ? body["model"] : undefined,
        body,
        headers: { ...req.headers },
        aborted: false,
        answered: false
      }
      requests.push(request)
      if (req.method === "POST" && path === "/v1/chat/completions") return void (await handleChat(request, res, req))
      if (req.method === "POST" && path === "/v1/embeddings") return void handleEmbeddings(request, res, req)
      return sendJson(res, 404, errorBody(`openai-sim: no route ${req.method} ${path}`))
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, errorBody(`openai-sim: ${String(error)}`, "server_error"))
    }
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get inFlight() {
      return inFlight
    },
    get maxInFlight() {
      return maxInFlight
    },
    waitFor: (predicate, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const deadline = Date.now() + timeoutMs
        const poll = () => {
          if (predicate()) return resolve()
          if (Date.now() > deadline) return reject(new Error("openai-sim: waitFor timed out"))
          setTimeout(poll, 5)
        }
        poll()
      }),
    reset: () => {
      requests.length = 0
      maxInFlight = inFlight
      prefixCache.clear()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
