// What `vtree mcp` does, loaded when it runs (cli/LazyCommand.ts); its options are in McpCommand.ts.
import { Console, Effect, Layer, Option } from "effect"
import { loadMcpAskWait, loadMcpSessionIdle, loadMcpToken } from "../../config/McpConfig.js"
import { makeAskTools } from "../../programs/mcp/AskTools.js"
import { makeSearchTools } from "../../programs/mcp/SearchTools.js"
import { makeVideoLibrary } from "../../programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../programs/mcp/VideoTools.js"
import { loadPromptManager, resolvePromptsDir } from "../../programs/prompts/PromptPack.js"
import { treesFolderHint } from "../../programs/tree/TreeLoader.js"
import * as Output from "../shared/OutputLayers.js"
import { version } from "../version.js"
import type { McpArgs } from "./McpCommand.js"
import { McpError } from "./McpError.js"
import * as Mcp from "./McpLayers.js"
import type { ServerSpec } from "./McpServer.js"

// The MCP SDK (with its validators) loads only when a server starts, not at every `vtree` start.
const serving = Effect.promise(() =>
  Promise.all([import("./Serve.js"), import("./HttpServe.js")]).then(([stdio, http]) => ({ ...stdio, ...http }))
)

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

/** `vtree mcp`: the Search Hub, and with --trees the video trees, as an MCP server over stdio or HTTP. */
export const mcp = (args: McpArgs) =>
  Effect.gen(function*() {
    const transport = yield* transportOf(args.http)
    const searchTools = yield* makeSearchTools
    const { serveHttp, serveStdio } = yield* serving
    const serve = <R>(spec: ServerSpec<R>) =>
      transport._tag === "Stdio" ? serveStdio(spec) : Effect.scoped(serveHttp(spec, transport))
    if (Option.isNone(args.trees)) {
      if (searchTools.length === 0) {
        // A host would list no tool and say nothing of why: tell the person starting it (stderr; stdout is the protocol's).
        yield* Console.error(
          "vtree mcp: serving no tools — pass --trees TREES for the video tools, or enable the Search Hub (VTREE_SEARCH_*, see docs/search-hub.md)"
        )
      }
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
  }).pipe(
    Effect.scoped,
    // Spans of every tool call, exported when an OTLP endpoint is set; the providers are built under it.
    Effect.provide(Layer.provideMerge(Mcp.providers(Option.isSome(args.trees)), Output.tracing))
  )
