import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import jpeg from "jpeg-js"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { thumbnails } from "../../../src/cli/shared/MediaLayers.js"
import { maxAppThumbnails } from "../../../src/programs/mcp/TreeApp.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { type Cdp, click, openChromium, until } from "../../support/harness/ChromiumCdp.js"
import { sdkClient } from "../../support/mcp/SdkClient.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

type TreeJson = { nodes: Record<string, Record<string, unknown>> }

const models = Layer.mergeAll(
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no LLM in this test") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })),
  thumbnails
)

const solidJpeg = Buffer.from(jpeg.encode({ width: 64, height: 36, data: Buffer.alloc(64 * 36 * 4, 200) }, 80).data)

/** 150 frames: more than the page embeds, so some frames are boxes to click. */
const treesFolder = Effect.gen(function*() {
  const trees = join(yield* scopedTempDir("tree-app"), "trees")
  const tree = syntheticTree({ videoId: "VID", scenes: 2, eventsPerScene: 3, framesPerEvent: 25 }) as TreeJson
  tree.nodes["VID_L1_001_L2_002"]!["card"] = { event_description: "A zeppelin lands by the harbour." }
  writeTree(join(trees, "VID"), tree, { frames: false })
  const { mkdirSync, writeFileSync } = yield* Effect.promise(() => import("node:fs"))
  mkdirSync(join(trees, "VID", "frames"))
  for (const id of Object.keys(tree.nodes).filter((id) => id.includes("_L3_"))) {
    writeFileSync(join(trees, "VID", "frames", `${id.slice("VID_".length)}.jpg`), solidJpeg)
  }
  return trees
})

// The host: a page that frames the app as MCP Apps hosts do (sandbox allow-scripts, no same origin),
// answers ui/initialize, hands it video_overview's result, and forwards its tools/call and resources/read
// to /mcp, where the test calls vtree's server in-process.
const hostPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>test host</title></head>
<body style="margin:0">
<script>
window.log = [];
const mcp = (method, params) => fetch("/mcp", { method: "POST", body: JSON.stringify({ method, params }) }).then((r) => r.json());
const frame = document.createElement("iframe");
frame.setAttribute("sandbox", "allow-scripts");
frame.style.cssText = "width:1000px;height:700px;border:0;display:block";
const post = (message) => frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
addEventListener("message", async (event) => {
  if (event.source !== frame.contentWindow) return;
  const message = event.data;
  window.log.push(message.method === "tools/call" ? "tools/call " + message.params.name : message.method);
  if (message.method === "ui/initialize") {
    post({ id: message.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "test host", version: "0" },
      hostCapabilities: { serverTools: {}, serverResources: {} }, hostContext: { displayMode: "inline" } } });
  } else if (message.method === "ui/notifications/initialized") {
    const args = { video_id: "VID" };
    const result = await mcp("tools/call", { name: "video_overview", arguments: args });
    post({ method: "ui/notifications/tool-input", params: { arguments: args } });
    post({ method: "ui/notifications/tool-result", params: result });
  } else if (message.method === "tools/call" || message.method === "resources/read") {
    post({ id: message.id, result: await mcp(message.method, message.params) });
  }
});
mcp("resources/read", { uri: window.viewerUri || "ui://vtree/tree" }).then((read) => {
  window.viewer = read.contents[0];
  frame.srcdoc = read.contents[0].text;
  document.body.append(frame);
});
</script>
</body></html>`

/** Runs `expression` in a frame's context and returns its value (awaiting a promise). */
const evaluate = async (cdp: Cdp, session: string, contextId: number, expression: string): Promise<any> => {
  const { exceptionDetails, result } = await cdp.send("Runtime.evaluate", {
    expression,
    contextId,
    awaitPromise: true,
    returnByValue: true
  }, session)
  if (exceptionDetails !== undefined) throw new Error(`${expression}: ${exceptionDetails.text}`)
  return result.value
}

describe("the tree page as an MCP App, in headless Chromium inside a test host", () => {
  it.live("renders from video_overview's result with its CSP, forbids the network, and calls back through the host", () =>
    Effect.gen(function*() {
      const trees = yield* treesFolder
      const library = yield* makeVideoLibrary(trees)
      const client = yield* sdkClient({
        name: "vtree",
        version: "0",
        tools: makeVideoTools({ library, prompts: testPrompts(), summarize: false }),
        resources: makeVideoResources(library)
      })
      const { tools } = yield* Effect.promise(() => client.listTools())
      const overview = tools.find((tool) => tool.name === "video_overview")!
      assert.deepStrictEqual(overview._meta?.["ui"], { resourceUri: "ui://vtree/tree" })

      // Every request that reaches the test's server, by path; the host's go to /mcp.
      const requests: Array<string> = []
      const calls: Array<string> = []
      const server = createServer((request, response) => {
        requests.push(request.url ?? "")
        if (request.url === "/host.html") {
          response.writeHead(200, { "content-type": "text/html" }).end(hostPage)
          return
        }
        if (request.url !== "/mcp") {
          response.writeHead(404).end()
          return
        }
        let body = ""
        request.on("data", (chunk) => (body += chunk))
        request.on("end", () => {
          const { method, params } = JSON.parse(body)
          calls.push(method === "tools/call" ? `${method} ${params.name}` : `${method} ${params.uri}`)
          const answer = method === "tools/call" ? client.callTool(params) : client.readResource(params)
          answer.then(
            (result) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result)),
            (error: Error) => response.writeHead(500).end(error.message)
          )
        })
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const cdp = yield* Effect.acquireRelease(
        Effect.sync(() => openChromium({ width: 1200, height: 900 })),
        (cdp) => Effect.promise(() => cdp.close())
      )

      yield* Effect.promise(async () => {
        const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" })
        const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true })
        await cdp.send("Runtime.enable", {}, sessionId)
        await cdp.send("Page.enable", {}, sessionId)
        const { frameTree } = await cdp.send("Page.getFrameTree", {}, sessionId)
        await cdp.send("Page.navigate", { url: `${origin}/host.html` }, sessionId)
        // The app's context: the default context of the frame that is not the host's.
        let app: number | undefined
        let host: number | undefined
        await until("the app's frame", async () => {
          for (const event of cdp.events) {
            if (event.method !== "Runtime.executionContextCreated" || event.sessionId !== sessionId) continue
            const { auxData, id } = event.params.context
            if (auxData?.isDefault !== true) continue
            if (auxData.frameId === frameTree.frame.id) host = id
            else app = id
          }
          return app !== undefined
        })
        const inApp = (expression: string) => evaluate(cdp, sessionId, app!, expression)
        const inHost = (expression: string) => evaluate(cdp, sessionId, host!, expression)
        await until(
          "the tree page to replace the viewer",
          () => inApp(`document.querySelector("section.tree") !== null`)
        )

        // The host read the viewer with its CSP and border; the app read the video's page through the host.
        const viewer = await inHost("window.viewer")
        assert.strictEqual(viewer.mimeType, "text/html;profile=mcp-app")
        assert.deepStrictEqual(viewer._meta, {
          ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true }
        })
        assert.deepStrictEqual(calls.slice(0, 3), [
          "resources/read ui://vtree/tree",
          "tools/call video_overview",
          "resources/read ui://vtree/tree/VID"
        ])
        const log = (await inHost("window.log")).filter((method: string) => method !== "ui/notifications/size-changed")
        assert.deepStrictEqual(log.slice(0, 3), ["ui/initialize", "ui/notifications/initialized", "resources/read"])

        // Timeline, cards, thumbnails as data: URIs (64 of 150), the rest boxes to click, and the search box.
        const page = await inApp(`({
          timeline: document.querySelectorAll(".timeline a").length,
          cards: document.querySelectorAll(".card").length,
          thumbnails: Array.from(document.querySelectorAll("figure.frame img"), (img) => img.src.slice(0, 23)),
          boxes: document.querySelectorAll("figure.frame .nofile").length,
          loaded: Array.from(document.querySelectorAll("figure.frame img")).every((img) => img.complete && img.naturalWidth > 0),
          csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]').content
        })`)
        assert.strictEqual(page.timeline, 2 + 6 + 150)
        assert.isAtLeast(page.cards, 2 + 6)
        assert.strictEqual(page.thumbnails.length, maxAppThumbnails)
        assert.deepStrictEqual([...new Set(page.thumbnails)], ["data:image/jpeg;base64,"])
        assert.isTrue(page.loaded)
        assert.strictEqual(page.boxes, 150 - maxAppThumbnails)
        assert.include(page.csp, "default-src 'none'")

        const searched = await inApp(`(() => {
          const box = document.getElementById("q");
          box.value = "zeppelin";
          box.dispatchEvent(new Event("input", { bubbles: true }));
          return [document.getElementById("q-count").textContent, document.querySelector(".hit").id];
        })()`)
        assert.deepStrictEqual(searched, ["1 node matches", "VID_L1_001_L2_002"])
        await inApp(
          `(() => { const box = document.getElementById("q"); box.value = ""; box.dispatchEvent(new Event("input", { bubbles: true })); })()`
        )

        // The page reaches no network: a fetch, an image and a beacon from it fail, and nothing arrives.
        const before = requests.length
        const tried = await inApp(`(async () => {
          const fetched = await fetch("${origin}/probe-fetch").then(() => "reached", (error) => "blocked: " + error.name);
          const image = await new Promise((done) => {
            const img = new Image();
            img.onload = () => done("reached");
            img.onerror = () => done("blocked");
            img.src = "${origin}/probe-image";
          });
          return [fetched, image];
        })()`)
        assert.deepStrictEqual(tried, ["blocked: TypeError", "blocked"])
        assert.deepStrictEqual(requests.slice(before), [])
        // The host itself (no CSP) does reach the server: the probe above could have arrived.
        assert.strictEqual(await inHost(`fetch("${origin}/probe-host").then((r) => r.status)`), 404)

        // A click on a frame box: the app asks the host for video_frames, and shows the frame it gets back.
        const target = await inApp(`(() => {
          const box = document.querySelector("figure.frame .nofile");
          box.scrollIntoView({ block: "center" });
          const rect = box.getBoundingClientRect();
          return { id: box.closest("figure").id, x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
        })()`)
        await click(cdp, sessionId, target.x, target.y)
        await until(
          "the clicked frame",
          () => inApp(`document.getElementById(${JSON.stringify(target.id)}).dataset.seen === "video_frames"`)
        )
        assert.include(calls, "tools/call video_frames")
        assert.include(await inHost("window.log"), "tools/call video_frames")
        assert.isTrue(
          await inApp(
            `document.getElementById(${
              JSON.stringify(target.id)
            }).querySelector("img").src.startsWith("data:image/jpeg;base64,")`
          )
        )

        // A click on an event's heading: video_view_node's text in the page's panel.
        const heading = await inApp(`(() => {
          const link = document.querySelector("#VID_L1_001_L2_002 h4 a");
          link.scrollIntoView({ block: "center" });
          const rect = link.getBoundingClientRect();
          return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
        })()`)
        await click(cdp, sessionId, heading.x, heading.y)
        await until("the node's panel", () => inApp(`document.getElementById("vtree-panel") !== null`))
        assert.include(
          await inApp(`document.getElementById("vtree-panel").textContent`),
          "A zeppelin lands by the harbour."
        )
        assert.include(calls, "tools/call video_view_node")
      })
    }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, models)), Effect.scoped))
})
