// The cost of MCP per call: video_view_node run in-process (the tool's own Effect, no protocol) against
// the same call over Streamable HTTP through the official SDK clients of both eras (v1's, 2025-11-25, a
// session; v2's pinned to 2026-07-28, a request on its own), one client and 16 at once.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
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
  const connect = (era: Era) =>
    Effect.acquireRelease(
      Effect.promise(async () => {
        if (era === "2025-11-25") {
          const v1 = new ClientV1({ name: "bench", version: "0" })
          await v1.connect(new StreamableHTTPClientTransportV1(url))
          return v1
        }
        const v2 = new Client({ name: "bench", version: "0" }, { versionNegotiation: { mode: { pin: era } } })
        await v2.connect(new StreamableHTTPClientTransport(url))
        return v2
      }),
      (client) => Effect.promise(() => client.close())
    )
  const call = (client: Client | ClientV1) => (): Promise<unknown> =>
    client.callTool({ name: "video_view_node", arguments: { node_id: node } })

  const overHttp = (era: Era) =>
    Effect.gen(function*() {
      const one = yield* connect(era)
      for (let i = 0; i < 50; i++) yield* Effect.promise(call(one))
      const single: Array<number> = []
      const cpuStart = process.cpuUsage()
      for (let i = 0; i < calls; i++) single.push(yield* Effect.promise(() => timed(call(one))))
      const cpu = process.cpuUsage(cpuStart)
      // Client and server share the process: this is the CPU of both sides of one call.
      const cpuPerCall = (cpu.user + cpu.system) / 1000 / calls

      const clients = yield* Effect.all(Array.from({ length: sessions }, () => connect(era)))
      const concurrent: Array<number> = []
      const wallStart = performance.now()
      yield* Effect.promise(() =>
        Promise.all(clients.map(async (client) => {
          for (let i = 0; i < callsPerSession; i++) concurrent.push(await timed(call(client)))
        }))
      )
      return { era, single, cpuPerCall, concurrent, wall: performance.now() - wallStart }
    }).pipe(Effect.scoped)
  return { inProcess, eras: [yield* overHttp("2025-11-25"), yield* overHttp("2026-07-28")] }
})

type Era = "2025-11-25" | "2026-07-28"

const bench: BenchModule = {
  title: "MCP: the cost per call over Streamable HTTP, and 16 sessions at once",
  run: async () => {
    const load = loadavg()[0]!
    const { eras, inProcess } = await Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(models)))
    const rate = (wall: number) => Math.round((sessions * callsPerSession) / (wall / 1000))
    return [
      `\`video_view_node\` on a scene of the sample tree (card, subtitle, entities, children; no model), ${calls} calls after 50`,
      "warm-up each: the tool's Effect run in-process, then the same call through the official SDK clients over",
      "Streamable HTTP to `serveHttp` on loopback in the same process: the v1 client (2025-11-25, a session, SSE",
      "reply) and the v2 client pinned to 2026-07-28 (a request on its own, a JSON reply; result cap in both).",
      "",
      "| Path | p50 | p99 | CPU per call (client + server) | calls/s |",
      "|---|---|---|---|---|",
      `| in-process (\`tool.call\`) | ${ms(median(inProcess))} | ${ms(percentile(inProcess, 0.99))} | | |`,
      ...eras.flatMap((run) => [
        `| Streamable HTTP, ${run.era}, 1 client | ${ms(median(run.single))} | ${ms(percentile(run.single, 0.99))} | ${
          ms(run.cpuPerCall)
        } | |`,
        `| Streamable HTTP, ${run.era}, ${sessions} clients at once (${callsPerSession} calls each) | ${
          ms(median(run.concurrent))
        } | ${ms(percentile(run.concurrent, 0.99))} | | ${rate(run.wall)} |`
      ]),
      "",
      `Load average at the start of the run: ${load.toFixed(1)}, at its end ${
        loadavg()[0]!.toFixed(1)
      } (2 shared cores;`,
      "client and server in one process, so the client's own cost is in every figure)."
    ].join("\n")
  }
}

export default bench
