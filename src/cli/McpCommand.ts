import { Command } from "@effect/cli"
import { searchHub } from "./Composition.js"
import { serve } from "./McpServe.js"

/** `vtree mcp`: the Search Hub as a stdio MCP server named vtree-search. */
export const mcpCommand = Command.make("mcp", {}, () => serve).pipe(
  Command.withDescription(
    "Serve the Search Hub (external_search, external_read) over stdio MCP; configure with VTREE_SEARCH_* (all off by default)"
  ),
  Command.provide(searchHub)
)
