import type { Effect } from "effect"
import { JSONSchema, Schema } from "effect"

/**
 * What an MCP tool is to vtree, independent of any MCP library: a name, JSON Schemas derived from the
 * domain Schemas, and a handler that is an Effect. The CLI's server (cli/mcp/McpServer.ts) hands these
 * to the official SDK; tests and other Effect apps can call `call` directly.
 */

export type McpContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string }

/** A tools/call result: content for models, structuredContent (matching outputSchema) for programs. */
export interface ToolReply {
  readonly content: ReadonlyArray<McpContent>
  readonly structuredContent?: Readonly<Record<string, unknown>>
  readonly isError: boolean
}

export interface ToolAnnotations {
  readonly title: string
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

/** What a running call may tell its client. */
export interface CallContext {
  /** A progress notification when the client sent a progress token; nothing otherwise. */
  readonly progress: (progress: number, total: number | undefined, message: string) => Effect.Effect<void>
  /** The client's session (one per stdio server or HTTP session); what it starts ends with it. */
  readonly session?: string
}

export type JsonObject = Readonly<Record<string, unknown>>

export interface McpTool<R = never> {
  readonly name: string
  readonly description: string
  readonly annotations: ToolAnnotations
  readonly inputSchema: JsonObject
  readonly outputSchema: JsonObject
  /** Never fails: bad arguments and failed work end as a reply with `isError`. */
  readonly call: (args: unknown, context: CallContext) => Effect.Effect<ToolReply, never, R>
  /** The session ended (closed, deleted or expired): stop what it started. */
  readonly endSession?: (session: string) => Effect.Effect<void>
}

/**
 * A Schema as an MCP tool schema: JSON Schema of its encoded side, without the draft marker or `$id`s
 * (Effect names `unknown` "/schemas/unknown" wherever it occurs, which a validator reads as two schemas
 * under one id), and an object at the top as MCP requires (a union of objects becomes `anyOf` under it).
 */
export const toolSchema = (schema: Schema.Schema<any, any, never>): JsonObject => {
  const { $schema: _, ...json } = withoutIds(JSONSchema.make(schema)) as Record<string, unknown>
  return json.type === "object" ? json : { type: "object", ...json }
}

const withoutIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => key !== "$id").map(([key, inner]) => [key, withoutIds(inner)])
  )
}

/** A reply whose text is its structured content as JSON: what programs and models both read. */
export const jsonReply = (structured: Readonly<Record<string, unknown>>, isError = false): ToolReply => ({
  content: [{ type: "text", text: JSON.stringify(structured) }],
  structuredContent: structured,
  isError
})

export interface ResourceEntry {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType: string
}

export interface ResourceTemplate {
  readonly uriTemplate: string
  readonly name: string
  readonly description: string
  readonly mimeType: string
}

export type ResourceContents =
  | { readonly uri: string; readonly mimeType: string; readonly text: string }
  | { readonly uri: string; readonly mimeType: string; readonly blob: string }

/** A resource URI that names nothing served, said so the client can fix it. */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  reason: Schema.Literal("UnknownUri", "Unreadable", "BadCursor"),
  uri: Schema.String,
  message: Schema.String
}) {}

/** One page of `resources/list`, and the cursor of the next (none on the last). */
export interface ResourcePage {
  readonly resources: ReadonlyArray<ResourceEntry>
  readonly nextCursor?: string
}

/** Resources served by `resources/list`, `resources/templates/list` and `resources/read`. */
export interface ResourceCatalog<R = never> {
  /** The page from `cursor` (a nextCursor this catalog gave); BadCursor for any other. */
  readonly list: (cursor: string | undefined) => Effect.Effect<ResourcePage, ResourceNotFound, R>
  readonly templates: ReadonlyArray<ResourceTemplate>
  readonly read: (uri: string) => Effect.Effect<ReadonlyArray<ResourceContents>, ResourceNotFound, R>
}
