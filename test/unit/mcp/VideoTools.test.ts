import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import { makeHashingEmbedder } from "../../../src/layers/testing/HashingEmbedder.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import { jpegSize } from "../../../src/programs/mcp/FrameTool.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { clock } from "../../../src/programs/mcp/VideoToolKit.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { EmbeddingProvider } from "../../../src/services/EmbeddingProvider.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { Thumbnailer } from "../../../src/services/Thumbnailer.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { type CallResult, type Era, eras, protocolError, sdkClient } from "../../support/mcp/SdkClient.js"
import { scopedTempDir } from "../../support/TempDir.js"

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const noVlm = Layer.succeed(
  VLMProvider,
  VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })
)

const noLlm = Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no LLM in this test") }))

// The sample frames are within 768 px: none is scaled (test/integration/mcp/Frames.test.ts scales large ones).
const noScaling = Layer.succeed(
  Thumbnailer,
  Thumbnailer.of({ thumbnail: () => Effect.dieMessage("no frame here needs scaling") })
)

const serve = (options: { readonly summarize: boolean; readonly trees?: string; readonly era: Era }) =>
  Effect.gen(function*() {
    const llm = yield* ScriptedLlm.make(() => "the pot boils over at 0:01:10")
    const library = yield* makeVideoLibrary(options.trees ?? samples)
    const tools = makeVideoTools({ library, prompts: testPrompts(), summarize: options.summarize })
    const client = yield* sdkClient(
      { name: "vtree", version: "0", tools, resources: makeVideoResources(library) },
      options.era
    )
      .pipe(
        Effect.provide(Layer.mergeAll(llm.layer, noVlm, noScaling))
      )
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallResult>)
    return { client, call, llm }
  }).pipe(Effect.provide(NodeContext.layer))

describe.each(eras)("video tools over MCP (official SDK client, %s era, in-process)", (era) => {
  it.scoped("lists the tools with annotations, input and output schemas; resources are advertised, logging is not", () =>
    Effect.gen(function*() {
      const { client } = yield* serve({ summarize: false, era })
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((tool) => tool.name), [
        "video_list",
        "video_overview",
        "video_view_node",
        "video_search",
        "video_frames",
        "video_subtitles"
      ])
      for (const tool of tools) {
        assert.strictEqual(tool.outputSchema?.type, "object")
        assert.isTrue(tool.annotations?.readOnlyHint)
      }
      // Only the overview needs more text than a host's default; it says so as Claude Code reads it.
      const declared = tools.filter((tool) => tool._meta?.["anthropic/maxResultSizeChars"] !== undefined)
      assert.deepStrictEqual(declared.map((tool) => [tool.name, tool._meta!["anthropic/maxResultSizeChars"]]), [[
        "video_overview",
        80_000
      ]])
      const capabilities = client.sdk.getServerCapabilities()
      assert.deepStrictEqual(Object.keys(capabilities ?? {}).sort(), ["resources", "tools"])
      assert.isUndefined(capabilities?.tools?.listChanged)
    }))

  it.scoped("video_list, video_overview, video_view_node (card), video_search, video_subtitles", () =>
    Effect.gen(function*() {
      const { call } = yield* serve({ summarize: false, era })
      // The client validates every structuredContent against the tool's outputSchema.
      const listed = yield* call("video_list", {})
      const entry = listed.structuredContent!.videos[0]
      assert.strictEqual(entry.video_id, video)
      assert.strictEqual(entry.duration, "0:10:00")
      assert.isTrue(entry.has_frames)
      assert.isAbove(entry.nodes.frames, 0)
      assert.deepStrictEqual(JSON.parse(listed.content[0]!.text!), listed.structuredContent)

      const overview = yield* call("video_overview", { video_id: video })
      const scene = overview.structuredContent!.scenes[0]
      assert.strictEqual(scene.node_id, `${video}_L1_000`)
      assert.match(scene.start, /^\d+:\d\d:\d\d$/)
      assert.isAbove(scene.events.length, 0)
      assert.strictEqual(overview.structuredContent!.next_cursor, null)
      const badCursor = yield* call("video_overview", { video_id: video, cursor: "7" })
      assert.isTrue(badCursor.isError)
      assert.include(badCursor.content[0]!.text, "INVALID_ARGUMENTS: video_overview: cursor is not a next_cursor")

      const node = yield* call("video_view_node", { node_id: `${video}_L1_000_L2_000` })
      assert.strictEqual(node.structuredContent!.mode, "card")
      assert.isAbove(node.structuredContent!.children.length, 0)

      const found = yield* call("video_search", { video_id: video, query: "kitchen", k: 2 })
      assert.isAtMost(found.structuredContent!.hits.length, 2)

      const said = yield* call("video_subtitles", { video_id: video, start: 0, end: 600 })
      assert.isFalse(said.isError)
      assert.isFalse(said.structuredContent!.truncated)

      const unknown = yield* call("video_overview", { video_id: "nope" })
      assert.isTrue(unknown.isError)
      assert.include(unknown.content[0]!.text, `available: ${video}`)
      const bad = yield* call("video_search", { video_id: video })
      assert.isTrue(bad.isError)
      assert.include(bad.content[0]!.text, "query")
    }))

  it.scoped("video_search whose query embedding fails answers with keyword hits and a note, not an error", () =>
    Effect.gen(function*() {
      // The tree's embeddings are cached under VTREE_CACHE_DIR: a folder of this test's own.
      const cache = yield* scopedTempDir("video-search-cache")
      yield* searchWithFailingQueries.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cache]])))
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  const searchWithFailingQueries = Effect.gen(function*() {
    const inner = makeHashingEmbedder({ dimensions: 32 })
    // The tree's texts embed; the one-text query call fails, as a slow endpoint's timeout would.
    const embedder = Layer.succeed(
      EmbeddingProvider,
      EmbeddingProvider.of({
        ...inner,
        embed: (texts) =>
          texts.length === 1
            ? Effect.fail(new ProviderError({ provider: "embed", reason: "Timeout", message: "embedding timed out" }))
            : inner.embed(texts)
      })
    )
    const library = yield* makeVideoLibrary(samples)
    const tools = makeVideoTools({ library, prompts: testPrompts(), summarize: false })
    const client = yield* sdkClient({ name: "vtree", version: "0", tools, resources: makeVideoResources(library) }, era)
      .pipe(Effect.provide(Layer.mergeAll(noVlm, noScaling, embedder, noLlm)))
    const found = yield* Effect.promise(() =>
      client.callTool({ name: "video_search", arguments: { video_id: video, query: "kitchen", k: 3 } }) as Promise<
        CallResult
      >
    )
    assert.isFalse(found.isError)
    assert.strictEqual(
      found.structuredContent!.note,
      "semantic search unavailable (embedding timed out); keyword results"
    )
    assert.isAbove(found.structuredContent!.hits.length, 0)
  })

  it.scoped("a tree's entity registry: video_view_node's card shows the entries of the node as the agent's view_node does, video_overview lists them, video_list counts them", () =>
    Effect.gen(function*() {
      const trees = yield* scopedTempDir("video-tools")
      const tree = JSON.parse(readFileSync(join(samples, video, "tree.json"), "utf8"))
      tree.entities = [
        { id: "host_1", name: "Maya", appearance: "green apron", identity: "the host", first_seen: 5 },
        { id: "cat_1", name: "Rex", first_seen: 595 }
      ]
      mkdirSync(join(trees, video))
      writeFileSync(join(trees, video, "tree.json"), JSON.stringify(tree))
      const { call } = yield* serve({ era, summarize: false, trees })

      const node = yield* call("video_view_node", { node_id: `${video}_L1_000_L2_000` })
      assert.strictEqual(node.structuredContent!.mode, "card")
      assert.include(node.structuredContent!.text, "Maya (host_1): green apron; the host")
      assert.notInclude(node.structuredContent!.text, "cat_1")
      const late = yield* call("video_view_node", { node_id: `${video}_L1_001_L2_002` })
      assert.include(late.structuredContent!.text, "Rex (cat_1)")
      assert.notInclude(late.structuredContent!.text, "host_1")

      const overview = yield* call("video_overview", { video_id: video })
      assert.deepStrictEqual(overview.structuredContent!.entities, [
        { id: "host_1", name: "Maya", appearance: "green apron", identity: "the host", first_seen: "0:00:05" },
        { id: "cat_1", name: "Rex", appearance: null, identity: null, first_seen: "0:09:55" }
      ])
      const listed = yield* call("video_list", {})
      assert.strictEqual(listed.structuredContent!.videos[0].entities, 2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a tree without a registry: no entities listed", () =>
    Effect.gen(function*() {
      const { call } = yield* serve({ summarize: false, era })
      const overview = yield* call("video_overview", { video_id: video })
      assert.deepStrictEqual(overview.structuredContent!.entities, [])
      const listed = yield* call("video_list", {})
      assert.strictEqual(listed.structuredContent!.videos[0].entities, 0)
    }))

  it.scoped("video_view_node with a question and a tool model summarizes as the agent's view_node", () =>
    Effect.gen(function*() {
      const { call, llm } = yield* serve({ summarize: true, era })
      const node = yield* call("video_view_node", { node_id: `${video}_L1_000_L2_000`, question: "when does it boil?" })
      assert.strictEqual(node.structuredContent!.mode, "summarized")
      assert.include(node.structuredContent!.text, "the pot boils over at 0:01:10")
      assert.isAbove((yield* llm.requests).length, 0)
    }))

  it.scoped("video_frames returns JPEG image content with node id and time, and refuses more than 8", () =>
    Effect.gen(function*() {
      const { call } = yield* serve({ summarize: false, era })
      const frames = yield* call("video_frames", { node_ids: [`${video}_L1_000_L2_000`] })
      const images = frames.content.filter((item) => item.type === "image")
      assert.strictEqual(images.length, frames.structuredContent!.frames.length)
      assert.isAbove(images.length, 0)
      assert.strictEqual(images[0]!.mimeType, "image/jpeg")
      const size = jpegSize(Buffer.from(images[0]!.data!, "base64"))!
      assert.isAtMost(Math.max(size.width, size.height), 768)
      assert.include(frames.content[0]!.text, `${video}_L1_000_L2_000_L3_000 at `)

      const many = yield* call("video_frames", {
        node_ids: [`${video}_L1_000_L2_000`, `${video}_L1_000_L2_001`, `${video}_L1_001_L2_000`]
      })
      assert.isTrue(many.isError)
      assert.include(many.content[0]!.text, "at most 8")
      assert.isEmpty(many.content.filter((item) => item.type === "image"))
    }))

  it.scoped("trees and frames are resources read through resources/read", () =>
    Effect.gen(function*() {
      const { client } = yield* serve({ summarize: false, era })
      const { resources } = yield* Effect.promise(() => client.listResources())
      assert.deepStrictEqual(resources.map((r) => r.uri), [`vtree://tree/${video}`])
      const tree = yield* Effect.promise(() => client.readResource({ uri: `vtree://tree/${video}` }))
      const text = (tree.contents[0] as { text: string }).text
      assert.strictEqual(JSON.parse(text).videoID, video)
      const frame = yield* Effect.promise(() =>
        client.readResource({ uri: `vtree://frame/${video}_L1_000_L2_000_L3_000` })
      )
      assert.strictEqual(frame.contents[0]!.mimeType, "image/jpeg")
      const missing = yield* Effect.promise(() =>
        client.readResource({ uri: "vtree://frame/nope" }).then(() => undefined, (error: unknown) => error)
      )
      assert.isDefined(protocolError(missing))
      assert.strictEqual(protocolError(missing)!.code, -32602)
    }))

  it.scoped("the MCP App: video_overview names the viewer, which reads as an mcp-app page with a CSP allowing no network", () =>
    Effect.gen(function*() {
      const { client } = yield* serve({ summarize: false, era })
      const { tools } = yield* Effect.promise(() => client.listTools())
      const uri = tools.find((tool) => tool.name === "video_overview")!._meta!["ui"] as { resourceUri: string }
      assert.deepStrictEqual(uri, { resourceUri: "ui://vtree/tree" })
      const { resourceTemplates } = yield* Effect.promise(() => client.sdk.listResourceTemplates())
      assert.deepInclude(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]), [
        "ui://vtree/tree/{video_id}",
        "text/html;profile=mcp-app"
      ])
      const viewer = (yield* Effect.promise(() => client.readResource({ uri: uri.resourceUri }))).contents[0]!
      assert.strictEqual(viewer.mimeType, "text/html;profile=mcp-app")
      assert.deepStrictEqual(viewer["_meta"], {
        ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true }
      })
      const html = (viewer as { text: string }).text
      assert.include(
        html,
        `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;unsafe-inline&#39;;`
      )
      assert.notMatch(html, /\b(src|href)="(https?:)?\/\//)
      const unknown = yield* Effect.promise(() =>
        client.readResource({ uri: "ui://vtree/tree/nope" }).then(() => undefined, (error: unknown) => error)
      )
      assert.include(protocolError(unknown)!.message, `no video "nope"`)
    }))

  it("clock writes h:mm:ss", () => {
    assert.strictEqual(clock(0), "0:00:00")
    assert.strictEqual(clock(3725), "1:02:05")
    assert.strictEqual(clock(12.5), "0:00:12.5")
  })
})
