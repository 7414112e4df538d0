// The cost of MCP per call: video_view_node run in-process (the tool's own Effect, no protocol) against
// the same call over Streamable HTTP through the official SDK client, one session and 16 at once.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Deferred, Effect, Layer, Option, Runtime } from "effect"
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { serveHttp } from "../src/cli/mcp/HttpServe.js"
import * as SharpThumbnailer from "../src/layers/sharp/SharpThumbnailer.js"
import { makeVideoLibrary } from "../src/programs/mcp/VideoLibrary.js"
import { makeVideoTools } from "../src/programs/mcp/VideoTools.js"
import { loadPromptManager, resolvePromptsDir } from "../src/programs/prompts/PromptPack.js"
import { LLMProvider } from "../src/services/LLMProvider.js"
import type { Thumbnailer } from "../src/services/Thumbnailer.js"
import { VLMProvider } from "../src/services/VLMProvider.js"
import type { BenchModule } from "./run.js"
import { median, percentile } from "./stats.js"

const samples = fileURLToPath(new URL("../samples/trees", import.meta.url))
const node = "vtSmpl0001a_L1_000"
const calls = 400
const sessions = 16
const callsPerSession = 50

const models = Layer.mergeAll(
  NodeContext.layer,
  SharpThumbnailer.layer,
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no model in this benchmark") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no model") }))
)

const timed = async (f: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  await f()
  return performance.now() - start
}

const ms = (value: number) => `${value.toFixed(2)} ms`

const program = Effect.gen(function*() {
  const library = yield* makeVideoLibrary(samples)
  const prompts = yield* loadPromptManager(resolvePromptsDir(undefined))
  const tools = makeVideoTools({ library, prompts, summarize: false })
  const viewNode = tools.find((tool) => tool.name === "video_view_node")!
  const runtime = yield* Effect.runtime<
    LLMProvider | VLMProvider | NodeContext.NodeContext | Thumbnailer
  >()
  const context = { progress: () => Effect.void }
  const direct = () => Runtime.runPromise(runtime)(viewNode.call({ node_id: node }, context))

  // Warm both paths first (module loading, JIT), then measure.
  for (let i = 0; i < 50; i++) yield* Effect.promise(direct)
  const inProcess: Array<number> = []
  for (let i = 0; i < calls; i++) inProcess.push(yield* Effect.promise(() => timed(direct)))

  const bound = yield* Deferred.make<number>()
  yield* Effect.forkScoped(
    serveHttp({ name: "vtree", version: "bench", tools }, {
      host: "127.0.0.1",
      port: 0,
      token: Option.none(),
      onListening: (port) => Deferred.unsafeDone(bound, Effect.succeed(port))
    }).pipe(Effect.scoped)
  )
  const url = new URL(`http://127.0.0.1:${yield* Deferred.await(bound)}/mcp`)
  const connect = () =>
    Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "bench", version: "0" })
        await client.connect(new StreamableHTTPClientTransport(url))
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
  const call = (client: Client) => () => client.callTool({ name: "video_view_node", arguments: { node_id: node } })

  const one = yield* connect()
  for (let i = 0; i < 50; i++) yield* Effect.promise(call(one))
  const overHttp: Array<number> = []
  for (let i = 0; i < calls; i++) overHttp.push(yield* Effect.promise(() => timed(call(one))))

  const clients = yield* Effect.all(Array.from({ length: sessions }, connect))
  const concurrent: Array<number> = []
  const wallStart = performance.now()
  yield* Effect.promise(() =>
    Promise.all(clients.map(async (client) => {
      for (let i = 0; i < callsPerSession; i++) concurrent.push(await timed(call(client)))
    }))
  )
  const wall = performance.now() - wallStart
  return { inProcess, overHttp, concurrent, wall }
})

const bench: BenchModule = {
  title: "MCP: the cost per call over Streamable HTTP, and 16 sessions at once",
  run: async () => {
    const { concurrent, inProcess, overHttp, wall } = await Effect.runPromise(
      program.pipe(Effect.scoped, Effect.provide(models))
    )
    const overhead = median(overHttp) - median(inProcess)
    return [
      `\`video_view_node\` on a scene of the sample tree (card, subtitle, entities, children; no model), ${calls} calls after 50`,
      "warm-up each: the tool's Effect run in-process, then the same call through the official SDK client over",
      "Streamable HTTP to `serveHttp` on loopback in the same process (JSON-RPC, session header, SSE reply, result cap).",
      "",
      "| Path | p50 | p99 |",
      "|---|---|---|",
      `| in-process (\`tool.call\`) | ${ms(median(inProcess))} | ${ms(percentile(inProcess, 0.99))} |`,
      `| Streamable HTTP, 1 session | ${ms(median(overHttp))} | ${ms(percentile(overHttp, 0.99))} |`,
      `| Streamable HTTP, ${sessions} sessions at once (${callsPerSession} calls each) | ${ms(median(concurrent))} | ${
        ms(percentile(concurrent, 0.99))
      } |`,
      "",
      `MCP over HTTP costs about ${ms(overhead)} a call at the median (${
        (median(overHttp) / median(inProcess)).toFixed(1)
      }× the in-process call); against a model call of seconds that is noise. ${sessions} sessions together ran ${
        sessions * callsPerSession
      } calls in ${(wall / 1000).toFixed(2)} s (${
        Math.round((sessions * callsPerSession) / (wall / 1000))
      } calls/s on the 2 shared cores, client and server in one process), so the p50 under load is the queue, not the protocol.`,
      `Load average during the run: ${loadavg()[0]!.toFixed(1)} (other engineers' jobs share the cores; the HTTP`,
      "figures move with it more than the in-process one)."
    ].join("\n")
  }
}

export default bench
