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
  | {
    readonly type: "resource_link"
    readonly uri: string
    readonly name: string
    readonly mimeType?: string
    readonly description?: string
  }

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
  /** Sent as the tool's `_meta` in tools/list (MCP Apps `ui.resourceUri`, `anthropic/maxResultSizeChars`). */
  readonly meta?: JsonObject
}

/**
 * A Schema as an MCP tool schema: JSON Schema of its encoded side, without the draft marker or `$id`s
 * (Effect names `unknown` "/schemas/unknown" wherever it occurs, which a validator reads as two schemas
 * under one id), and an object at the top as MCP requires (a union of objects becomes `anyOf` under it).
 * Hosts read it as a form, so every `$ref` is inlined (an integer behind `#/$defs/Int` has no type for
 * them: the inspector then sends "3") and Effect's default refinement titles and descriptions
 * (`minLength(1)`, "an integer") are dropped: the fields' own descriptions say what they mean.
 */
export const toolSchema = (schema: Schema.Schema<any, any, never>): JsonObject => {
  const { $defs, $schema: _, ...json } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  const definitions = ($defs ?? {}) as Readonly<Record<string, unknown>>
  const readable = forHosts(json, definitions, new Set()) as Record<string, unknown>
  // A recursive definition cannot be inlined; its `$defs` stay for the `$ref`s left.
  const refsLeft = JSON.stringify(readable).includes("\"$ref\"")
  const object = readable.type === "object" ? readable : { type: "object", ...readable }
  return refsLeft ? { ...object, $defs: forHosts(definitions, {}, new Set()) } : object
}

/** Effect's generated titles (`minLength(1)`, `between(1, 20)`, `int`) and descriptions ("a string at least 1 character(s) long"). */
const generatedTitle = /^[a-z][A-Za-z]*(\(.*\))?$/
const generatedDescription =
  /^an? .*\b(character|item)\(s\)|^an? (integer|string|number|finite number|non-negative number|positive number)$/

const forHosts = (
  value: unknown,
  definitions: Readonly<Record<string, unknown>>,
  inlining: ReadonlySet<string>
): unknown => {
  if (Array.isArray(value)) return value.map((item) => forHosts(item, definitions, inlining))
  if (typeof value !== "object" || value === null) return value
  let node = value as Record<string, unknown>
  const ref = node["$ref"]
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
    const name = ref.slice("#/$defs/".length)
    const target = definitions[name]
    if (target !== undefined && !inlining.has(name)) {
      const { $ref: _, ...own } = node
      // The property's own keywords (its description, its bounds) win over the definition's.
      node = { ...(forHosts(target, definitions, new Set([...inlining, name])) as object), ...own }
    }
  }
  return Object.fromEntries(
    Object.entries(node).flatMap(([key, inner]) => {
      if (key === "$id") return []
      if (key === "title" && typeof inner === "string" && generatedTitle.test(inner)) return []
      if (key === "description" && typeof inner === "string" && generatedDescription.test(inner)) return []
      return [[key, forHosts(inner, definitions, inlining)]]
    })
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
  // `_meta` carries an MCP App's `ui` settings (its CSP, border) with the page.
  | { readonly uri: string; readonly mimeType: string; readonly text: string; readonly _meta?: JsonObject }
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
