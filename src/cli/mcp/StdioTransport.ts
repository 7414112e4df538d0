import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
  specTypeSchemas,
  type Transport
} from "@modelcontextprotocol/server"
import type { Readable, Writable } from "node:stream"

/**
 * MCP's stdio transport, one JSON-RPC message per line, for the SDK's stdio entry. The SDK ships one,
 * but it reports a line it cannot read to `onerror` and answers nothing — a request whose id is `true`, a
 * batch, a line without a method all went unanswered, and a client waiting for them hung — and at the
 * end of input it aborts what is still running, unanswered. This one keeps the SDK's message Schema and adds what JSON-RPC 2.0 asks of
 * a server: every request is answered, with a result or an error (-32700 for a line that is not JSON,
 * -32600 for one that is not a valid message), notifications never are; a batch is served as a batch
 * where the negotiated protocol has them (2025-03-26) and refused with -32600 where it does not; the
 * end of input closes the transport once every request read before it has been answered.
 */

/** The one MCP protocol version whose messages may be JSON-RPC batches (added then, removed in 2025-06-18). */
export const batchingProtocolVersions: ReadonlySet<string> = new Set(["2025-03-26"])

/** A longer line is refused and skipped, so a client cannot make the server hold unbounded input. */
export const maxLineBytes = 4 * 1024 * 1024

type ErrorReply = {
  readonly jsonrpc: "2.0"
  readonly id: RequestId | null
  readonly error: { readonly code: number; readonly message: string }
}

const errorReply = (id: RequestId | null, code: number, message: string): ErrorReply => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const validId = (id: unknown): RequestId | null =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null

/** Why a parsed JSON value is not a JSON-RPC message, in a client's terms. */
export const invalidReason = (value: unknown): string => {
  if (!isRecord(value)) return "expected a JSON-RPC 2.0 object"
  if (value.jsonrpc !== "2.0") return `"jsonrpc" must be "2.0"`
  if ("id" in value && validId(value.id) === null) return `"id" must be a string or an integer`
  if (!("method" in value)) return `no "method"`
  if (typeof value.method !== "string") return `"method" must be a string`
  if ("params" in value && !isRecord(value.params)) return `"params" must be an object`
  return "not a JSON-RPC 2.0 request or notification"
}

/** What to do with a value that failed the SDK's message Schema: answer it, or (a notification, a reply) not. */
const refusal = (value: unknown): ErrorReply | undefined => {
  const isResponse = isRecord(value) && !("method" in value) && ("result" in value || "error" in value)
  const isNotification = isRecord(value) && typeof value.method === "string" && !("id" in value)
  if (isResponse || isNotification) return undefined
  return errorReply(isRecord(value) ? validId(value.id) : null, -32600, `Invalid Request: ${invalidReason(value)}`)
}

/** The value as a JSON-RPC message by the SDK's Schema; none when it is not one. */
export const parseMessage = (value: unknown): JSONRPCMessage | undefined => {
  const parsed = specTypeSchemas.JSONRPCMessage["~standard"].validate(value)
  // The SDK's spec Schemas are synchronous (zod without async refinements).
  return parsed instanceof Promise || parsed.issues !== undefined ? undefined : parsed.value as JSONRPCMessage
}

const idKey = (id: RequestId): string => JSON.stringify(id)

interface Batch {
  /** Requests of the batch not yet answered, by id key (a count: a client may repeat an id). */
  readonly pending: Map<string, number>
  readonly replies: Array<unknown>
}

/** Replies written and not yet read by the client; past this the client is cut off (the transport closes). */
export const maxUnreadBytes = 16 * 1024 * 1024

export interface LineTransportOptions {
  /** After the input ends, how long unanswered requests may still take; then the transport closes. */
  readonly drainTimeoutMs?: number
  /** Replies the client may leave unread before it is cut off; maxUnreadBytes by default. */
  readonly maxUnreadBytes?: number
}

export class LineTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  private buffer: Array<Buffer> = []
  private buffered = 0
  /** Skipping the rest of a line that went over maxLineBytes. */
  private skipping = false
  /** Requests read and not yet answered, by id key. */
  private readonly inflight = new Map<string, number>()
  private readonly batchOf = new Map<string, Batch>()
  private protocolVersion: string | undefined
  private ended = false
  private closed = false
  private drainTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: LineTransportOptions = {}
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a)) {
      const head = data.subarray(0, newline)
      data = data.subarray(newline + 1)
      if (this.skipping) {
        this.skipping = false
        this.buffer = []
        this.buffered = 0
        continue
      }
      const line = Buffer.concat([...this.buffer, head]).toString("utf8")
      this.buffer = []
      this.buffered = 0
      this.handleLine(line)
    }
    if (this.skipping || data.length === 0) return
    this.buffer.push(data)
    this.buffered += data.length
    if (this.buffered > maxLineBytes) {
      this.buffer = []
      this.buffered = 0
      this.skipping = true
      this.write(errorReply(null, -32600, `Invalid Request: a message longer than ${maxLineBytes} bytes was skipped`))
    }
  }

  private readonly onEnd = () => {
    this.ended = true
    this.closeWhenDrained()
    if (!this.closed && this.options.drainTimeoutMs !== undefined) {
      this.drainTimer = setTimeout(() => void this.close(), this.options.drainTimeoutMs)
    }
  }

  private readonly onInputError = (error: Error) => this.onerror?.(error)

  start(): Promise<void> {
    this.input.on("data", this.onData)
    this.input.on("end", this.onEnd)
    this.input.on("error", this.onInputError)
    return Promise.resolve()
  }

  private handleLine(raw: string) {
    const line = raw.trim()
    if (line === "") return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      this.write(errorReply(null, -32700, "Parse error: the line is not valid JSON"))
      return
    }
    if (!Array.isArray(value)) {
      this.handleMessage(value, undefined)
      return
    }
    if (value.length === 0) {
      this.write(errorReply(null, -32600, "Invalid Request: an empty batch"))
      return
    }
    if (this.protocolVersion === undefined || !batchingProtocolVersions.has(this.protocolVersion)) {
      this.write(
        errorReply(
          null,
          -32600,
          `Invalid Request: JSON-RPC batches are not part of MCP protocol ${
            this.protocolVersion ?? "before initialization"
          }; send one message per line`
        )
      )
      return
    }
    const batch: Batch = { pending: new Map(), replies: [] }
    for (const item of value) this.handleMessage(item, batch)
    this.flushBatch(batch)
  }

  private handleMessage(value: unknown, batch: Batch | undefined) {
    const parsed = parseMessage(value)
    if (parsed === undefined) {
      const reply = refusal(value)
      if (reply === undefined) return
      if (batch === undefined) this.write(reply)
      else batch.replies.push(reply)
      return
    }
    const message = parsed
    if (isJSONRPCRequest(message)) {
      const key = idKey(message.id)
      increment(this.inflight, key)
      if (batch !== undefined) {
        increment(batch.pending, key)
        this.batchOf.set(key, batch)
      }
    } else if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      // A cancelled request gets no reply (MCP): stop waiting for one.
      const requestId = validId(isRecord(message.params) ? message.params.requestId : undefined)
      if (requestId !== null) this.settle(idKey(requestId), undefined)
    }
    this.onmessage?.(message)
    this.closeWhenDrained()
  }

  /** A request is done: answered (`reply`) or cancelled (no reply). */
  private settle(key: string, reply: unknown): boolean {
    if (!this.inflight.has(key)) return false
    decrement(this.inflight, key)
    const batch = this.batchOf.get(key)
    let held = false
    if (batch !== undefined && batch.pending.has(key)) {
      decrement(batch.pending, key)
      if (!batch.pending.has(key)) this.batchOf.delete(key)
      if (reply !== undefined) {
        batch.replies.push(reply)
        held = true
      }
      this.flushBatch(batch)
    }
    return held
  }

  private flushBatch(batch: Batch) {
    if (batch.pending.size > 0 || batch.replies.length === 0) return
    const replies = batch.replies.splice(0)
    this.writeLine(JSON.stringify(replies))
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve()
    if ("id" in message && message.id !== undefined && !("method" in message)) {
      if ("result" in message && isRecord(message.result) && typeof message.result.protocolVersion === "string") {
        this.protocolVersion = message.result.protocolVersion
      }
      const held = this.settle(idKey(message.id), message)
      this.closeWhenDrained()
      if (held) return Promise.resolve()
    }
    return this.write(message)
  }

  private write(message: unknown): Promise<void> {
    return this.writeLine(JSON.stringify(message))
  }

  private writeLine(json: string): Promise<void> {
    if (this.closed) return Promise.resolve()
    // Written at once, in order; `flushed` settles when the last line has left, which close waits for.
    let accepted = true
    const written = new Promise<void>((resolve) => {
      accepted = this.output.write(`${json}\n`, () => resolve())
    })
    this.flushed = this.flushed.then(() => written)
    if (!accepted) this.holdInput()
    const cap = this.options.maxUnreadBytes ?? maxUnreadBytes
    if (this.output.writableLength > cap) {
      // A client that does not read its replies would grow the server without bound: cut it off.
      this.onerror?.(new Error(`the client left more than ${cap} bytes of replies unread; closing`))
      void this.close()
      return Promise.resolve()
    }
    return written
  }

  /** Reads no more requests until the client has read the replies already written (backpressure). */
  private holdInput() {
    if (this.input.isPaused()) return
    this.input.pause()
    this.output.once("drain", () => {
      if (!this.closed) this.input.resume()
    })
  }

  private flushed: Promise<void> = Promise.resolve()

  /** After the end of input, closes once nothing is unanswered (a reply being written goes out first). */
  private closeWhenDrained() {
    if (!this.ended || this.inflight.size > 0 || this.closing) return
    this.closing = true
    // The reply that settled the last request is written right after this call: let it out first.
    setImmediate(() => void this.flushed.then(() => this.close()))
  }

  private closing = false

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer)
    this.input.off("data", this.onData)
    this.input.off("end", this.onEnd)
    this.input.off("error", this.onInputError)
    this.onclose?.()
    return Promise.resolve()
  }
}

const increment = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)

const decrement = (counts: Map<string, number>, key: string) => {
  const count = (counts.get(key) ?? 0) - 1
  if (count <= 0) counts.delete(key)
  else counts.set(key, count)
}
