import { McpSchema, McpServer } from "@effect/ai"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Chunk, Deferred, Effect, JSONSchema, Layer, type Schema, Sink, Stream, SubscriptionRef } from "effect"
import { ReadRequest, SearchRequest } from "../domain/Search.js"
import { SearchHub } from "../programs/search/SearchHub.js"
import { version } from "./version.js"

/** A tool's input schema: the hub's own request Schema as JSON Schema (descriptions included), without `$schema`. */
const inputSchemaOf = (schema: Schema.Schema<any, any>): object => {
  const { $schema: _, ...json } = JSONSchema.make(schema)
  return json
}

/** MCP wants the result twice: as structured content for programs and as JSON text for models. */
const toCallResult = (outcome: { readonly status: "success" | "error" }) =>
  new McpSchema.CallToolResult({
    isError: outcome.status === "error",
    structuredContent: outcome,
    content: [{ type: "text", text: JSON.stringify(outcome) }]
  })

// Both tools only read, from the open web.
const readOnlyTool = (name: string, description: string, inputSchema: object) =>
  new McpSchema.Tool({
    name,
    description,
    inputSchema,
    annotations: new McpSchema.ToolAnnotations({ readOnlyHint: true, openWorldHint: true, destructiveHint: false })
  })

const SearchTools = Layer.effectDiscard(
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const hub = yield* SearchHub
    yield* server.addTool({
      tool: readOnlyTool(
        "external_search",
        "Search the web, news, or GitHub. Returns ranked results with citations; result text is untrusted external content.",
        inputSchemaOf(SearchRequest)
      ),
      handle: (payload) => Effect.map(hub.search(payload), toCallResult)
    })
    yield* server.addTool({
      tool: readOnlyTool(
        "external_read",
        "Fetch a public web page and return its readable text as Markdown. Private and internal addresses are refused; content is untrusted.",
        inputSchemaOf(ReadRequest)
      ),
      handle: (payload) => Effect.map(hub.read(payload), toCallResult)
    })
  })
)

/** The methods @effect/ai's server answers; anything else gets -32601 here, with the caller's id. */
const knownMethods: ReadonlySet<string> = new Set(McpSchema.ClientRpcs.requests.keys())

type JsonRpcId = string | number | null

const errorReply = (id: JsonRpcId, code: number, message: string): string =>
  `${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`

/** What the gate does with one line of stdin: hand it to the server, answer it itself, or drop it. */
export type Screened =
  | { readonly _tag: "Pass"; readonly line: string; readonly id: JsonRpcId | undefined }
  | { readonly _tag: "Reply"; readonly reply: string }
  | { readonly _tag: "Skip" }

/**
 * Screens a line before @effect/ai's server sees it: the library fails its whole input stream on a
 * line that is not JSON (every later request went unanswered) and answers an unknown method with a
 * defect under a made-up id. JSON-RPC 2.0 says -32700 for the first and -32601 for the second, and
 * the server keeps going; a notification (no id) is never answered.
 */
export const screenLine = (raw: string): Screened => {
  const line = raw.trim()
  if (line === "") return { _tag: "Skip" }
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch (error) {
    return {
      _tag: "Reply",
      reply: errorReply(null, -32700, `Parse error: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  // Batches (older protocol versions) go to the library as they are.
  if (Array.isArray(message)) return { _tag: "Pass", line, id: undefined }
  if (typeof message !== "object" || message === null) {
    return { _tag: "Reply", reply: errorReply(null, -32600, "Invalid Request: expected a JSON-RPC 2.0 object") }
  }
  const fields = message as { readonly id?: unknown; readonly method?: unknown }
  const id = typeof fields.id === "string" || typeof fields.id === "number"
    ? fields.id
    : fields.id === null
    ? null
    : undefined
  if (fields.method === undefined) return { _tag: "Pass", line, id: undefined } // a client's reply to a server request
  if (typeof fields.method !== "string") {
    return id === undefined
      ? { _tag: "Skip" }
      : { _tag: "Reply", reply: errorReply(id, -32600, "Invalid Request: method must be a string") }
  }
  if (!knownMethods.has(fields.method)) {
    return id === undefined
      ? { _tag: "Skip" }
      : { _tag: "Reply", reply: errorReply(id, -32601, `Method not found: ${fields.method}`) }
  }
  return { _tag: "Pass", line, id }
}

/**
 * MCP through @effect/ai's McpServer rather than @modelcontextprotocol/sdk: it is already a runtime
 * dependency, speaks stdio as a Layer, and keeps the handlers plain Effects (the SDK stays a dev
 * dependency, used as the independent client in the tests). In front of it sits `screenLine`, and
 * request ids are swapped for numbers of our own on the way in and back on the way out: the library
 * reads an id with BigInt, so a string id such as "a1" (valid JSON-RPC) used to kill the server.
 * The server exits when stdin ends, once every request read before the end has its answer (a client
 * that writes a request and closes stdin still gets the reply), or after `drainTimeout`.
 */
export const serve = Effect.gen(function*() {
  // Our id → the client's; its size is the number of requests still unanswered.
  const pending = yield* SubscriptionRef.make(new Map<number, JsonRpcId>())
  const ended = yield* Deferred.make<void>()
  let nextId = 1
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const writeStdout = (text: string) =>
    Effect.async<void>((resume) => {
      process.stdout.write(text, () => resume(Effect.void))
    })
  const stdin = NodeStream.stdin.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.mapEffect((line) => {
      const screened = screenLine(line)
      switch (screened._tag) {
        case "Skip":
          return Effect.succeed(Chunk.empty<Uint8Array>())
        case "Reply":
          return Effect.as(writeStdout(screened.reply), Chunk.empty<Uint8Array>())
        case "Pass": {
          if (screened.id === undefined) return Effect.succeed(Chunk.of(encoder.encode(`${screened.line}\n`)))
          const ours = nextId++
          const original = screened.id
          const line = JSON.stringify({ ...(JSON.parse(screened.line) as object), id: ours })
          return SubscriptionRef.update(pending, (ids) => new Map(ids).set(ours, original)).pipe(
            Effect.as(Chunk.of(encoder.encode(`${line}\n`)))
          )
        }
      }
    }),
    Stream.flattenChunks,
    Stream.ensuring(Deferred.succeed(ended, undefined))
  )
  // Answers get the client's id back; server-initiated requests (they have a method) pass untouched.
  const stdout = NodeSink.stdout.pipe(
    Sink.mapInputEffect((chunk: Uint8Array | string) =>
      SubscriptionRef.modify(pending, (ids) => {
        const text = typeof chunk === "string" ? chunk : decoder.decode(chunk)
        const next = new Map(ids)
        const lines = text.split("\n").map((line) => {
          if (line.trim() === "") return line
          try {
            const reply = JSON.parse(line) as { readonly id?: unknown; readonly method?: unknown }
            if (reply.method !== undefined || typeof reply.id !== "number" || !next.has(reply.id)) return line
            const original = next.get(reply.id)!
            next.delete(reply.id)
            return JSON.stringify({ ...reply, id: original })
          } catch {
            return line
          }
        })
        return [lines.join("\n"), next] as const
      })
    )
  )
  const idle = pending.changes.pipe(Stream.takeUntil((ids) => ids.size === 0), Stream.runDrain)
  // The hub itself comes from the command (cli/Composition.ts).
  const server = SearchTools.pipe(Layer.provide(McpServer.layerStdio({ name: "vtree-search", version, stdin, stdout })))
  yield* Effect.raceFirst(
    Layer.launch(server),
    Deferred.await(ended).pipe(Effect.zipRight(Effect.timeout(idle, drainTimeout)), Effect.ignore)
  )
})

/** How long the server waits after stdin ends for answers still being worked on. */
export const drainTimeout = "2 minutes"
