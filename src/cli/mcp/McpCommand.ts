import { Command } from "@effect/cli"
import { Effect, Option } from "effect"
import { loadMcpAskWait, loadMcpSessionIdle, loadMcpToken } from "../../config/McpConfig.js"
import { makeAskTools } from "../../programs/mcp/AskTools.js"
import { makeSearchTools } from "../../programs/mcp/SearchTools.js"
import { makeVideoLibrary } from "../../programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../programs/mcp/VideoTools.js"
import { loadPromptManager, resolvePromptsDir } from "../../programs/prompts/PromptPack.js"
import { treesFolderHint } from "../../programs/tree/TreeLoader.js"
import { optionalText } from "../CliOptions.js"
import * as Output from "../shared/OutputLayers.js"
import { version } from "../version.js"
import { McpError } from "./McpError.js"
import * as Mcp from "./McpLayers.js"
import type { ServerSpec } from "./McpServer.js"

// The MCP SDK (with its validators) loads only when a server starts, not at every `vtree` start.
const serving = Effect.promise(() =>
  Promise.all([import("./Serve.js"), import("./HttpServe.js")]).then(([stdio, http]) => ({ ...stdio, ...http }))
)

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

/** Where and how to serve: stdio, or HTTP with its checked address and token. */
const transportOf = (http: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(http)) return { _tag: "Stdio" } as const
    const { isLoopback, parseListen } = yield* serving
    const listen = parseListen(http.value)
    if (listen === undefined) {
      return yield* new McpError({
        reason: "BadOption",
        message: `--http ${http.value}: expected HOST:PORT, :PORT or PORT, e.g. 127.0.0.1:8765`
      })
    }
    const token = yield* loadMcpToken
    if (!isLoopback(listen.host) && Option.isNone(token)) {
      return yield* new McpError({
        reason: "BadOption",
        message:
          `--http ${http.value}: a non-loopback address needs VTREE_MCP_TOKEN set (clients send it as a bearer token)`
      })
    }
    const sessionIdle = yield* loadMcpSessionIdle
    return { _tag: "Http", ...listen, token, sessionIdle } as const
  })

/** `vtree mcp`: the Search Hub, and with --trees the video trees, as an MCP server over stdio. */
export const mcpCommand = Command.make("mcp", options, (args) =>
  Effect.gen(function*() {
    const transport = yield* transportOf(args.http)
    const searchTools = yield* makeSearchTools
    const { serveHttp, serveStdio } = yield* serving
    const serve = <R>(spec: ServerSpec<R>) =>
      transport._tag === "Stdio" ? serveStdio(spec) : Effect.scoped(serveHttp(spec, transport))
    if (Option.isNone(args.trees)) {
      return yield* serve({ name: "vtree-search", version, tools: searchTools })
    }
    // One video's tree folder given for the folder of trees: ask for its parent, as infer does.
    const oneTree = yield* treesFolderHint(args.trees.value)
    if (Option.isSome(oneTree)) return yield* new McpError({ reason: "BadOption", message: oneTree.value })
    const library = yield* makeVideoLibrary(args.trees.value)
    const prompts = yield* loadPromptManager(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
    const hasLlm = yield* Mcp.hasLlm
    const videoTools = makeVideoTools({ library, prompts, summarize: hasLlm })
    const askTools = yield* makeAskTools({ library, prompts, enabled: hasLlm, wait: yield* loadMcpAskWait })
    yield* serve({
      name: "vtree",
      version,
      instructions:
        "Video trees: start with video_list, then video_overview for a video's scenes and events; read nodes with " +
        "video_view_node, find them with video_search, see them with video_frames; video_ask has vtree's agent " +
        "answer a question." + (searchTools.length === 0 ? "" : " external_* tools search the web."),
      tools: [...videoTools, ...askTools, ...searchTools],
      resources: makeVideoResources(library)
    })
  }).pipe(Effect.scoped)).pipe(
    Command.withDescription(
      "Serve the Search Hub (external_search, external_read; VTREE_SEARCH_*, all off by default) and, with --trees, " +
        "the video trees (video_* tools) over MCP: stdio, or Streamable HTTP with --http"
    ),
    Command.provide((args) => Mcp.providers(Option.isSome(args.trees))),
    // Spans of every tool call, exported when an OTLP endpoint is set.
    Command.provide(Output.tracing)
  )
