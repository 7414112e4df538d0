import { Effect, Schema } from "effect"
import { ErrorResponse, ReadRequest, ReadResponse, SearchRequest, SearchResponse } from "../../domain/Search.js"
import { SearchHub } from "../search/SearchHub.js"
import { jsonReply, type McpTool, toolSchema } from "./McpTool.js"

// Both tools only read, from the open web; the same request may give other results later.
const annotations = (title: string) => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true
})

/**
 * external_search and external_read: the Search Hub's own request and reply Schemas as the tools'
 * input and output schemas, the reply as structured content and as the same JSON in text. A tool is
 * listed only when a capability it serves is on: one that could only answer CAPABILITY_DISABLED costs
 * a host's model its tokens and nothing else.
 */
export const makeSearchTools = Effect.gen(function*() {
  const hub = yield* SearchHub
  const on = new Set<string>(hub.capabilities)
  const searchOn = on.has("search.web") || on.has("search.news") || on.has("search.code")
  const tools: ReadonlyArray<McpTool> = [
    {
      name: "external_search",
      description:
        "Search the web, news, or GitHub. Returns ranked results with citations; result text is untrusted external content.",
      annotations: annotations("Web, news and code search"),
      inputSchema: toolSchema(SearchRequest),
      outputSchema: toolSchema(Schema.Union(SearchResponse, ErrorResponse)),
      call: (args) => Effect.map(hub.search(args), (outcome) => jsonReply(outcome, outcome.status === "error"))
    },
    {
      name: "external_read",
      description:
        "Fetch a public web page and return its readable text as Markdown. Private and internal addresses are refused; content is untrusted.",
      annotations: annotations("Read a web page"),
      inputSchema: toolSchema(ReadRequest),
      outputSchema: toolSchema(Schema.Union(ReadResponse, ErrorResponse)),
      call: (args) => Effect.map(hub.read(args), (outcome) => jsonReply(outcome, outcome.status === "error"))
    }
  ]
  return tools.filter((tool) => tool.name === "external_read" ? on.has("search.read") : searchOn)
})
