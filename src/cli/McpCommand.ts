import { Command } from "@effect/cli"
import { Effect, Option } from "effect"
import { makeSearchTools } from "../programs/mcp/SearchTools.js"
import { makeVideoLibrary } from "../programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../programs/mcp/VideoResources.js"
import { makeVideoTools } from "../programs/mcp/VideoTools.js"
import { loadPromptManager, resolvePromptsDir } from "../programs/prompts/PromptPack.js"
import { optionalText } from "./CliOptions.js"
import { McpModels, mcpModels, searchHub } from "./Composition.js"
import { version } from "./version.js"

// The MCP SDK (with its validators) loads only when a server starts, not at every `vtree` start.
const serving = Effect.promise(() => import("./mcp/Serve.js"))

const options = {
  trees: optionalText(
    "trees",
    "Also serve the video trees of this folder (one <videoID>/tree.json per video): video_* tools and vtree:// resources"
  ),
  prompts: optionalText("prompts", "Prompt pack for video_view_node's summaries: en (default), zh, or a folder")
}

/** `vtree mcp`: the Search Hub, and with --trees the video trees, as an MCP server over stdio. */
export const mcpCommand = Command.make("mcp", options, (args) =>
  Effect.gen(function*() {
    const searchTools = yield* makeSearchTools
    const { serveStdio } = yield* serving
    if (Option.isNone(args.trees)) {
      return yield* serveStdio({ name: "vtree-search", version, tools: searchTools })
    }
    const library = yield* makeVideoLibrary(args.trees.value)
    const prompts = yield* loadPromptManager(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
    const models = yield* McpModels
    const videoTools = makeVideoTools({ library, prompts, summarize: models.summarize })
    yield* serveStdio({
      name: "vtree",
      version,
      instructions:
        "Video trees: start with video_list, then video_overview for a video's scenes and events; read nodes with " +
        "video_view_node, find them with video_search, see them with video_frames. external_* tools search the web.",
      tools: [...videoTools, ...searchTools],
      resources: makeVideoResources(library)
    })
  })).pipe(
    Command.withDescription(
      "Serve the Search Hub (external_search, external_read; VTREE_SEARCH_*, all off by default) and, with --trees, " +
        "the video trees (video_* tools) over stdio MCP"
    ),
    Command.provide(mcpModels),
    Command.provide(searchHub)
  )
