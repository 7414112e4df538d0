import { Command } from "@effect/cli"
import { optionalText } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

const options = {
  trees: optionalText(
    "trees",
    "Also serve the video trees of this folder (one <videoID>/tree.json per video): video_* tools and vtree:// resources"
  ),
  prompts: optionalText("prompts", "Prompt pack for video_view_node's summaries: en (default), zh, or a folder"),
  http: optionalText(
    "http",
    "Serve Streamable HTTP at HOST:PORT (path /mcp; :PORT alone binds 127.0.0.1) instead of stdio; " +
      "a non-loopback HOST needs VTREE_MCP_TOKEN, which clients send as a bearer token"
  )
}

export type McpArgs = Command.Command.ParseConfig<typeof options>

/** `vtree mcp`: its options here, its server in McpRun.ts (and the MCP SDK), loaded when it runs. */
export const mcpCommand = Command.make(
  "mcp",
  options,
  loadedWhenRun(() => import("./McpRun.js"), (run, args: McpArgs) => run.mcp(args))
).pipe(
  Command.withDescription(
    "Serve the Search Hub (external_search, external_read; VTREE_SEARCH_*, all off by default) and, with --trees, " +
      "the video trees (video_* tools) over MCP: stdio, or Streamable HTTP with --http"
  )
)
