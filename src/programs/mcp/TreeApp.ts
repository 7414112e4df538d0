import * as Path from "@effect/platform/Path"
import { Effect, Either } from "effect"
import type { TreeNode } from "../../domain/TreeIndex.js"
import { escapeHtml } from "../../text/Html.js"
import { type FrameImage, frameImages } from "../tree/FrameImages.js"
import { resolveFramePath } from "../tree/FramePath.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { renderTreePage } from "../tree/TreePage.js"
import { appPrefix } from "./ResourceUris.js"

/**
 * The tree page as an MCP App (`io.modelcontextprotocol/ui`, 2026-01-26): a host shows it in a sandboxed
 * frame beside video_overview's result. A tool's `_meta` is the same for every call, so video_overview
 * names one viewer, `ui://vtree/tree`; the viewer hears the call's result over the host's postMessage bridge
 * and reads `ui://vtree/tree/<video_id>`, the video's own page, through the host. The page reaches nothing
 * else: its CSP allows no network, its thumbnails are data: URIs, and a click asks the host to call
 * video_frames or video_view_node.
 */
export const appMimeType = "text/html;profile=mcp-app"
export const viewerUri = "ui://vtree/tree"

/** Thumbnails a page embeds at most, evenly spread, so a long video's page stays small: any other frame is fetched when clicked. */
export const maxAppThumbnails = 64

/** The page's own policy, whatever the host adds: inline script and style, data: images, no network. */
export const appCsp =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

/** What the host reads with the page: no domain to reach (the strictest CSP it builds), a border. */
export const appResourceMeta = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } }

/** video_overview's `_meta.ui`: the viewer its results are shown in. */
export const overviewUiMeta = { ui: { resourceUri: viewerUri } }

// The bridge: JSON-RPC 2.0 over postMessage with the host (ui/initialize, then tool results in, tools/call
// and resources/read out). Search and clicks are delegated, so they work on a page swapped in later.
const bridge = `
(() => {
  let nextId = 1;
  const pending = new Map();
  const post = (message) => parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    post({ id, method, params });
  });
  const notify = (method, params) => post({ method, params });
  const status = (text) => {
    let line = document.getElementById("vtree-status");
    if (!line) {
      line = document.createElement("p");
      line.id = "vtree-status";
      line.className = "muted";
      document.body.prepend(line);
    }
    line.textContent = text;
  };
  const resized = () => notify("ui/notifications/size-changed", {
    width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight
  });
  const shownVideo = () => {
    const tree = document.querySelector("section.tree");
    return tree ? tree.id.slice("tree-".length) : "";
  };
  const show = async (result) => {
    const id = result && result.structuredContent && result.structuredContent.video_id;
    if (typeof id !== "string" || id === shownVideo()) return;
    status("Opening " + id + "…");
    try {
      const read = await request("resources/read", { uri: "${appPrefix}" + encodeURIComponent(id) });
      const page = new DOMParser().parseFromString(read.contents[0].text, "text/html");
      for (const script of page.querySelectorAll("script")) script.remove();
      document.title = page.title;
      for (const style of page.querySelectorAll("style")) document.head.append(document.adoptNode(style));
      // Copied before adopting: adopting takes each node out of the live list.
      document.body.replaceChildren(...Array.from(page.body.childNodes).map((node) => document.adoptNode(node)));
      resized();
    } catch (error) {
      status("Could not open " + id + ": " + error.message);
    }
  };
  const panel = (title, text) => {
    let aside = document.getElementById("vtree-panel");
    if (!aside) {
      aside = document.createElement("aside");
      aside.id = "vtree-panel";
      aside.style.cssText = "position:sticky;bottom:0;background:#fff;border-top:2px solid #0969da;padding:.4rem 1rem;max-height:40vh;overflow:auto;white-space:pre-wrap";
      document.body.append(aside);
    }
    aside.replaceChildren();
    const head = document.createElement("b");
    head.textContent = title;
    aside.append(head, document.createTextNode("\\n" + text));
    resized();
  };
  const callTool = (name, args) => request("tools/call", { name, arguments: args });
  const seeFrame = async (figure) => {
    try {
      const result = await callTool("video_frames", { node_ids: [figure.id] });
      const image = (result.content || []).find((part) => part.type === "image");
      if (!image) throw new Error(((result.content || [])[0] || {}).text || "no image");
      const img = document.createElement("img");
      img.src = "data:" + image.mimeType + ";base64," + image.data;
      img.alt = "frame " + figure.id;
      const old = figure.querySelector("img, .nofile");
      if (old) old.replaceWith(img); else figure.prepend(img);
      figure.dataset.seen = "video_frames";
    } catch (error) {
      panel(figure.id, "video_frames failed: " + error.message);
    }
  };
  const viewNode = async (id) => {
    try {
      const result = await callTool("video_view_node", { node_id: id });
      const body = result.structuredContent || {};
      panel(id + (body.start ? " · " + body.start + "–" + body.end : ""), body.text || ((result.content || [])[0] || {}).text || "");
    } catch (error) {
      panel(id, "video_view_node failed: " + error.message);
    }
  };
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const figure = target.closest("figure.frame");
    if (figure && !target.closest("details, a")) {
      event.preventDefault();
      seeFrame(figure);
      return;
    }
    const heading = target.closest(".card h3 a, .card h4 a");
    const node = heading && heading.closest(".node");
    if (node) {
      event.preventDefault();
      viewNode(node.id);
    }
  });
  // The tree page's search, over whatever page is shown now.
  const search = (box) => {
    const words = box.value.toLowerCase().split(/\\s+/).filter((word) => word !== "");
    const nodes = Array.from(document.querySelectorAll(".node"));
    const own = (node) => Array.from(node.querySelectorAll(":scope > .card, :scope > figcaption"), (e) => e.textContent).join(" ").toLowerCase();
    let hits = 0;
    for (const node of nodes) {
      const hit = words.length > 0 && words.every((word) => own(node).includes(word));
      node.classList.toggle("hit", hit);
      if (hit) hits++;
    }
    for (const node of nodes) node.hidden = words.length > 0 && !node.classList.contains("hit") && !node.querySelector(".hit");
    const counter = document.getElementById("q-count");
    if (counter) counter.textContent = words.length === 0 ? "" : hits + (hits === 1 ? " node matches" : " nodes match");
    document.body.dataset.searched = words.join(" ");
  };
  document.addEventListener("input", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.id === "q") search(event.target);
  });
  addEventListener("message", (event) => {
    if (event.source !== parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && pending.has(message.id)) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message)); else waiting.resolve(message.result);
    } else if (message.method === "ui/notifications/tool-result") {
      show(message.params);
    } else if (message.id !== undefined && (message.method === "ping" || message.method === "ui/resource-teardown")) {
      post({ id: message.id, result: {} });
    }
  });
  request("ui/initialize", {
    appInfo: { name: "vtree tree", version: "1" },
    appCapabilities: {},
    protocolVersion: "2026-01-26"
  }).then(() => {
    notify("ui/notifications/initialized", {});
    resized();
  }, (error) => status("The host did not answer ui/initialize: " + error.message));
})();
`

const head = `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(appCsp)}">\n`

/** `ui://vtree/tree`: the viewer video_overview names, empty until the host hands it a result. */
export const viewerPage = (): string =>
  `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
${head}<title>vtree tree</title>
<style>body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:1rem;color:#1f2328}.muted{color:#57606a}</style>
</head>
<body>
<p id="vtree-status" class="muted">The tree of the video video_overview opens shows here.</p>
<script>${bridge}</script>
</body>
</html>
`

/** At most `max` of `items`, evenly spread, first and last included. */
const spread = <A>(items: ReadonlyArray<A>, max: number): ReadonlyArray<A> =>
  items.length <= max
    ? items
    : Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]!)

const onClick: FrameImage = { _tag: "Missing", message: "click to see it" }

/**
 * `ui://vtree/tree/<video_id>`: the video's tree page (timeline, cards, search) with at most
 * `maxAppThumbnails` thumbnails embedded; every other frame is a box to click.
 */
export const treeAppPage = Effect.fn("TreeApp.page")(function*(tree: TreeEnvironment) {
  const path = yield* Path.Path
  const { dir, index } = tree
  const frames = [...index.nodes.values()].filter((node) => node.level === 3)
  const embedded = yield* Effect.forEach(spread(frames, maxAppThumbnails), (node) =>
    Effect.map(
      Effect.either(resolveFramePath(dir, index, node)),
      (file) => Either.isRight(file) ? [[node, file.right] as const] : []
    )).pipe(Effect.map((files) => files.flat()))
  const images = yield* frameImages(embedded.map(([, file]) => file), {
    mode: "embed",
    pageDir: dir,
    shown: (file) => path.relative(dir, file)
  })
  const shown = new Map<string, FrameImage>(
    frames.map((node: TreeNode): [string, FrameImage] => [node.id, onClick])
  )
  for (const [node, file] of embedded) {
    const image = images.get(file)
    // A frame whose thumbnail failed is still a box to click: video_frames says why.
    if (image?._tag === "Embedded") shown.set(node.id, image)
  }
  return renderTreePage([{ index, frames: shown }], {
    title: `vtree tree ${index.videoId}`,
    head,
    script: bridge
  })
})
