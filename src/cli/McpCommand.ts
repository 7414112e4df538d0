import { Command } from "@effect/cli"
import { Effect } from "effect"

/**
 * `vtree mcp`: the Search Hub as a stdio MCP server named vtree-search. The server and its providers
 * load only when the command runs, so every other command starts without them.
 */
export const mcpCommand = Command.make("mcp", {}, () =>
  Effect.flatMap(Effect.promise(() => import("./McpServe.js")), (module) => module.serve)).pipe(
  Command.withDescription(
    "Serve the Search Hub (external_search, external_read) over stdio MCP; configure with VTREE_SEARCH_* (all off by default)"
  )
)
