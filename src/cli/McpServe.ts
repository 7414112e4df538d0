import { McpSchema, McpServer } from "@effect/ai"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { type ConfigError, Effect, Layer } from "effect"
import { GithubSearchLive } from "../layers/github/GithubSearch.js"
import { PageReaderLive } from "../layers/reader/ReaderLive.js"
import { SearxngSearchLive } from "../layers/searxng/SearxngSearch.js"
import { DnsResolver } from "../services/DnsResolver.js"
import { SearchHub } from "../programs/search/SearchHub.js"
import { SearchSettings } from "../programs/search/SearchSettings.js"
import { version } from "./version.js"

/**
 * The Search Hub with its real providers, configured from VTREE_SEARCH_*. Also what `vtree infer
 * --web-search` provides for the agent's external_search / external_read tools.
 */
export const SearchHubLive: Layer.Layer<SearchHub | SearchSettings, ConfigError.ConfigError> =
  SearchHub.Default.pipe(
    Layer.provide(
      Layer.mergeAll(SearxngSearchLive, GithubSearchLive, PageReaderLive).pipe(
        Layer.provide(Layer.mergeAll(DnsResolver.system, FetchHttpClient.layer))
      )
    ),
    Layer.provideMerge(SearchSettings.fromEnv)
  )

// Hand-written rather than derived from the Effect Schemas: clients show these descriptions to
// models, and the hub validates every call again anyway.
const searchInputSchema = {
  type: "object",
  properties: {
    capability: {
      type: "string",
      enum: ["search.web", "search.news", "search.code"],
      description: "search.web: the web; search.news: news articles; search.code: GitHub repositories, code or issues"
    },
    query: { type: "string", minLength: 1, maxLength: 400, description: "What to search for" },
    language: { type: "string", description: "Result language, e.g. en or zh (web and news)" },
    region: { type: "string", description: "Region code, e.g. US, combined with language (web and news)" },
    freshness: {
      type: "object",
      properties: { type: { type: "string", enum: ["days"] }, value: { type: "integer", minimum: 1, maximum: 3650 } },
      required: ["type", "value"],
      additionalProperties: false,
      description: "Only results from the last N days"
    },
    scope: {
      type: "string",
      enum: ["repositories", "code", "issues"],
      description: "search.code only: what to search on GitHub (default repositories; code needs a token)"
    },
    limit: { type: "integer", minimum: 1, maximum: 20, default: 10, description: "How many results" }
  },
  required: ["capability", "query"],
  additionalProperties: false
} as const

const readInputSchema = {
  type: "object",
  properties: {
    url: { type: "string", description: "An http(s) URL of a public web page" },
    max_chars: { type: "integer", minimum: 1000, maximum: 100000, default: 30000, description: "Cut the content after this many characters" },
    include_metadata: { type: "boolean", default: false, description: "Add fetch and extraction details" }
  },
  required: ["url"],
  additionalProperties: false
} as const

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
        searchInputSchema
      ),
      handle: (payload) => Effect.map(hub.search(payload), toCallResult)
    })
    yield* server.addTool({
      tool: readOnlyTool(
        "external_read",
        "Fetch a public web page and return its readable text as Markdown. Private and internal addresses are refused; content is untrusted.",
        readInputSchema
      ),
      handle: (payload) => Effect.map(hub.read(payload), toCallResult)
    })
  })
)

/**
 * MCP through @effect/ai's McpServer rather than @modelcontextprotocol/sdk: it is already a runtime
 * dependency, speaks stdio as a Layer, and keeps the handlers plain Effects (the SDK stays a dev
 * dependency, used only as the independent client in the round-trip test).
 */
const McpServerLive = SearchTools.pipe(
  Layer.provide(McpServer.layerStdio({ name: "vtree-search", version, stdin: NodeStream.stdin, stdout: NodeSink.stdout })),
  Layer.provide(SearchHubLive)
)

/** `vtree mcp`: runs the stdio MCP server until stdin closes. */
export const serve = Layer.launch(McpServerLive)
