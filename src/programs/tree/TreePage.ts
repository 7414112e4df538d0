// `vtree tree html`: one self-contained page for a tree (or, for a trees folder, every tree behind an
// index): a timeline of scenes, events and frames, then each scene with its events and their frames,
// every node's card, subtitle, on-screen text and time, an anchor per node id, and a search box over
// cards and subtitles. Everything from tree.json passes through `escapeHtml`; only our markup has tags.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Schema } from "effect"
import { TreeDecodeError } from "../../domain/Tree.js"
import type { Level, TreeIndex, TreeNode } from "../../domain/TreeIndex.js"
import { countOf, formatCount, videoSpan, videoTime } from "../../text/Format.js"
import { escapeHtml } from "../../text/Html.js"
import { type FrameImage, frameImages, type FramesMode } from "./FrameImages.js"
import { resolveFramePath } from "./FramePath.js"
import { cardFields, entityAppendix, nodeSummary } from "./NodeText.js"
import { makeTreeLibrary } from "./TreeLibrary.js"

export interface TreePageTree {
  readonly index: TreeIndex
  /** The image of each frame (L3) node, by node id. */
  readonly frames: ReadonlyMap<string, FrameImage>
}

const esc = escapeHtml
/** A fragment link to a node's anchor: the id percent-encoded, which browsers decode to find it. */
export const nodeHref = (id: string): string => `#${encodeURIComponent(id)}`
const levelName: Record<Level, string> = { 1: "Scene", 2: "Event", 3: "Frame" }

const style = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1f2328}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;padding:.5rem 1rem;z-index:2;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header h1{font-size:1.2rem;margin:0}main{max-width:1200px;margin:0 auto;padding:0 1rem 4rem}
#q{font:inherit;padding:.3rem .5rem;width:22rem;max-width:100%}.muted{color:#57606a}
h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left}td.n{text-align:right}
.timeline{position:relative;margin:.8rem 0 1.2rem;border:1px solid #d0d7de;border-radius:4px;background:#f6f8fa}
.tl-row{position:relative;height:22px;border-bottom:1px solid #eaeef2}.tl-row:last-child{border-bottom:0;height:12px}
.tl-row a{position:absolute;top:2px;bottom:2px;overflow:hidden;white-space:nowrap;font-size:11px;color:#fff;text-decoration:none;padding-left:3px;box-sizing:border-box;border-right:1px solid #fff}
.tl-scene{background:#0969da}.tl-event{background:#8250df}.tl-frame{background:#bf8700;width:2px;padding:0!important;border:0!important}
.legend{font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin:0 .25rem 0 .8rem;vertical-align:-1px}
section.scene{border:1px solid #d0d7de;border-radius:6px;padding:.4rem .8rem;margin:1rem 0}
section.event{border-left:3px solid #8250df;padding-left:.8rem;margin:.8rem 0 .8rem .4rem}
.card h3,.card h4{margin:.3rem 0;font-size:1rem}.card h4{font-size:.95rem}
.time{font-variant-numeric:tabular-nums;color:#57606a;font-weight:400}code.id{font-size:12px;color:#57606a;word-break:break-all}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.3rem 0}dt{color:#57606a}dd{margin:0;white-space:pre-wrap;word-break:break-word}
.sub{white-space:pre-wrap;background:#f6f8fa;padding:.3rem .5rem;margin:.3rem 0}.vt{margin:.3rem 0}
.frames{display:flex;flex-wrap:wrap;gap:.6rem;margin:.5rem 0}
figure.frame{margin:0;width:320px;max-width:100%;border:1px solid #d0d7de;border-radius:4px;padding:.3rem;box-sizing:border-box}
figure.frame img{display:block;max-width:100%;height:auto;background:#eaeef2}
.nofile{display:flex;align-items:center;justify-content:center;height:90px;background:#eaeef2;color:#57606a;font-size:12px;padding:.3rem;text-align:center;word-break:break-all}
figcaption{font-size:12px;margin:.2rem 0}.hit>.card,.hit>figcaption{background:#fff8c5}
:target{outline:3px solid #bf8700;outline-offset:2px}[hidden]{display:none!important}
`

// The search box: a node is shown when its own card or subtitle holds the words, or one of its
// descendants does (so a hit keeps its scene and event around it). `?q=words` opens the page searched.
const script = `
(() => {
  const box = document.getElementById("q");
  const counter = document.getElementById("q-count");
  const nodes = Array.from(document.querySelectorAll(".node"));
  const own = (node) => Array.from(node.querySelectorAll(":scope > .card, :scope > figcaption"), (e) => e.textContent).join(" ");
  const apply = () => {
    const words = box.value.toLowerCase().split(/\\s+/).filter((w) => w !== "");
    let hits = 0;
    for (const node of nodes) {
      const text = own(node).toLowerCase();
      const hit = words.length > 0 && words.every((w) => text.includes(w));
      node.classList.toggle("hit", hit);
      if (hit) hits++;
    }
    for (const node of nodes) node.hidden = words.length > 0 && !node.classList.contains("hit") && !node.querySelector(".hit");
    for (const details of document.querySelectorAll("details.more")) if (details.closest(".hit") && words.length > 0) details.open = true;
    counter.textContent = words.length === 0 ? "" : hits.toLocaleString("en-US") + (hits === 1 ? " node matches" : " nodes match");
    document.body.dataset.searched = words.join(" ");
  };
  box.addEventListener("input", apply);
  const asked = new URLSearchParams(location.search).get("q");
  if (asked) { box.value = asked; apply(); }
  // A link to a node id lands on it once the images above it have their size (and in browsers that
  // scroll to the fragment before layout is done).
  const land = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    target.hidden = false;
    target.scrollIntoView({ block: "center" });
    document.body.dataset.at = id + " " + Math.round(scrollY);
  };
  addEventListener("hashchange", land);
  addEventListener("load", land);
})();
`

const cardBody = (node: TreeNode): string => {
  const fields = cardFields(node).filter(([field]) => field !== "visible_text")
  const dl = fields.length === 0
    ? ""
    : `<dl>${fields.map(([field, value]) => `<dt>${esc(field)}</dt><dd>${esc(value)}</dd>`).join("")}</dl>`
  const subtitle = node.subtitle.trim()
  const visible = entityAppendix(node).visibleText
  return dl +
    (subtitle === "" ? "" : `<p class="sub" title="subtitle">${esc(subtitle)}</p>`) +
    (visible.length === 0 ? "" : `<p class="vt"><b>On-screen text:</b> ${esc(visible.join(" · "))}</p>`)
}

const heading = (node: TreeNode, label: string, tag: "h3" | "h4") =>
  `<${tag}><a href="${esc(nodeHref(node.id))}">${esc(label)}</a> <span class="time">${
    esc(videoSpan(node.timeRange))
  }</span> <code class="id">${esc(node.id)}</code></${tag}>`

const frameFigure = (node: TreeNode, image: FrameImage | undefined): string => {
  const time = videoTime(node.timeRange[0])
  const alt = `frame ${node.id} at ${time}`
  const picture = image === undefined
    ? `<div class="nofile">no frame file</div>`
    : image._tag === "Missing"
    ? `<div class="nofile" title="${esc(image.message)}">frame not shown: ${esc(image.message)}</div>`
    : image._tag === "Embedded"
    // In the page already: decoding it at once costs less than a lazy image's late layout shift.
    ? `<img src="${image.src}" width="${image.width}" height="${image.height}" alt="${esc(alt)}">`
    : `<img src="${esc(image.src)}" alt="${esc(alt)}" loading="lazy">`
  const summary = nodeSummary(node)
  return `<figure class="node frame" id="${esc(node.id)}">${picture}<figcaption><a href="${
    esc(nodeHref(node.id))
  }"><b>${esc(time)}</b></a> <code class="id">${esc(node.id)}</code><br>${esc(summary)}</figcaption>` +
    `<details class="more card"><summary>card</summary>${cardBody(node)}</details></figure>`
}

const timeline = (index: TreeIndex, end: number): string => {
  if (end <= 0) return ""
  const pct = (t: number) => `${Math.max(0, Math.min(100, (t / end) * 100)).toFixed(3)}%`
  const width = ([a, b]: readonly [number, number]) => `${Math.max(0.05, ((b - a) / end) * 100).toFixed(3)}%`
  const block = (node: TreeNode, cls: string, label: string) =>
    `<a class="${cls}" href="${esc(nodeHref(node.id))}" style="left:${pct(node.timeRange[0])};width:${
      width(node.timeRange)
    }" title="${esc(`${node.id} · ${videoSpan(node.timeRange)} · ${nodeSummary(node).slice(0, 160)}`)}">${
      esc(label)
    }</a>`
  const scenes: Array<string> = []
  const events: Array<string> = []
  const frames: Array<string> = []
  index.rootIds.forEach((sceneId, s) => {
    const scene = index.nodes.get(sceneId)!
    scenes.push(block(scene, "tl-scene", `S${s + 1}`))
    scene.childrenIds.forEach((eventId, e) => {
      const event = index.nodes.get(eventId)!
      events.push(block(event, "tl-event", `${s + 1}.${e + 1}`))
      for (const frameId of event.childrenIds) {
        const frame = index.nodes.get(frameId)!
        frames.push(
          `<a class="tl-frame" href="${esc(nodeHref(frame.id))}" style="left:${pct(frame.timeRange[0])}" title="${
            esc(`${frame.id} · ${videoTime(frame.timeRange[0])}`)
          }"></a>`
        )
      }
    })
  })
  return `<p class="legend muted"><i style="background:#0969da"></i>scenes<i style="background:#8250df"></i>events` +
    `<i style="background:#bf8700"></i>frames · 0:00 to ${esc(videoTime(end))}</p>` +
    `<div class="timeline" role="img" aria-label="Timeline of scenes, events and frames">` +
    `<div class="tl-row">${scenes.join("")}</div><div class="tl-row">${events.join("")}</div>` +
    `<div class="tl-row">${frames.join("")}</div></div>`
}

// The entity registry (imported or built): one row per entry, its nodes as links; nothing when the tree has none.
const registryTable = (index: TreeIndex): string => {
  const entities = index.entities ?? []
  if (entities.length === 0) return ""
  const rows = entities.map((entity) => {
    const about = [entity.description, entity.appearance, entity.identity].filter((part) =>
      part !== undefined && part.trim() !== ""
    )
    const nodes = (entity.nodes ?? []).filter((id) => index.nodes.has(id))
      .map((id) => `<a href="${esc(nodeHref(id))}"><code class="id">${esc(id)}</code></a>`)
    return `<tr id="${esc(`entity-${index.videoId}-${entity.id}`)}"><td>${esc(entity.name ?? entity.id)}</td><td>${
      esc((entity.aliases ?? []).join(" · "))
    }</td><td>${esc(about.join("; "))}</td><td class="n">${
      entity.first_seen === undefined ? "" : esc(videoTime(entity.first_seen))
    }</td><td>${nodes.join(" ")}</td></tr>`
  }).join("")
  return `<details class="registry"><summary>${
    esc(`${formatCount(entities.length)} ${entities.length === 1 ? "entity" : "entities"}`)
  } in the registry</summary>` +
    `<table><tr><th>Name</th><th>Also called</th><th>About</th><th>First seen</th><th>Nodes</th></tr>${rows}</table></details>`
}

const countsOf = (index: TreeIndex) => {
  const counts = { 1: 0, 2: 0, 3: 0 }
  let end = 0
  for (const node of index.nodes.values()) {
    counts[node.level] += 1
    end = Math.max(end, node.timeRange[1])
  }
  return { counts, end: Math.max(end, index.durationSeconds ?? 0) }
}

const treeSection = (tree: TreePageTree, headed: boolean): string => {
  const { index } = tree
  const { counts, end } = countsOf(index)
  const about = [index.durationCategory, videoTime(end), index.domain].filter((part) => part !== null)
  const scenes = index.rootIds.map((sceneId, s) => {
    const scene = index.nodes.get(sceneId)!
    const events = scene.childrenIds.map((eventId, e) => {
      const event = index.nodes.get(eventId)!
      const frames = event.childrenIds.map((id) => index.nodes.get(id)!)
      return `<section class="node event" id="${esc(event.id)}"><div class="card">${
        heading(event, `${levelName[2]} ${s + 1}.${e + 1}`, "h4")
      }${cardBody(event)}</div>` +
        (frames.length === 0
          ? ""
          : `<div class="frames">${frames.map((f) => frameFigure(f, tree.frames.get(f.id))).join("")}</div>`) +
        `</section>`
    }).join("\n")
    return `<section class="node scene" id="${esc(scene.id)}"><div class="card">${
      heading(scene, `${levelName[1]} ${s + 1}`, "h3")
    }${cardBody(scene)}</div>\n${events}\n</section>`
  }).join("\n")
  return `<section class="tree" id="${esc(`tree-${index.videoId}`)}">` +
    (headed ? `<h2>${esc(index.videoId)}</h2>` : "") +
    `<p class="muted">${
      esc([...about, countOf(counts[1], "scene"), countOf(counts[2], "event"), countOf(counts[3], "frame")].join(" · "))
    }</p>` +
    `${timeline(index, end)}\n${registryTable(index)}\n${scenes}\n</section>`
}

const indexTable = (trees: ReadonlyArray<TreePageTree>): string =>
  `<h2>Trees</h2><table><tr><th>Video</th><th>Duration</th><th>Domain</th><th>Scenes</th><th>Events</th><th>Frames</th></tr>${
    trees.map(({ index }) => {
      const { counts, end } = countsOf(index)
      return `<tr><td><a href="${esc(nodeHref(`tree-${index.videoId}`))}">${esc(index.videoId)}</a></td><td class="n">${
        esc(videoTime(end))
      }</td><td>${esc(index.domain ?? "—")}</td><td class="n">${formatCount(counts[1])}</td><td class="n">${
        formatCount(counts[2])
      }</td><td class="n">${formatCount(counts[3])}</td></tr>`
    }).join("")
  }</table>`

/**
 * The page: one tree, or an index of several followed by each of them. `head` and `script` stand in for
 * the page's own when it is shown elsewhere (the MCP App in a host adds its CSP and its own bridge).
 */
export const renderTreePage = (
  trees: ReadonlyArray<TreePageTree>,
  options: { readonly title: string; readonly head?: string; readonly script?: string }
): string => {
  const several = trees.length !== 1
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.head ?? ""}<title>${esc(options.title)}</title>
<style>${style}</style>
</head>
<body>
<header><h1>${
    esc(options.title)
  }</h1><input type="search" id="q" placeholder="Search cards and subtitles" aria-label="Search cards and subtitles"> <span id="q-count" class="muted"></span></header>
<main>
${several ? indexTable(trees) : ""}
${trees.map((tree) => treeSection(tree, several)).join("\n")}
</main>
<script>${options.script ?? script}</script>
</body>
</html>
`
}

/**
 * The tree folders `input` names: itself when it is a tree (a folder holding tree.json, or the file),
 * else the subfolders of a trees folder that hold one, in name order.
 */
export const treeFoldersOf = Effect.fn("TreePage.treeFolders")(function*(input: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const exists = (file: string) => fs.exists(file).pipe(Effect.orElseSucceed(() => false))
  if (input.toLowerCase().endsWith(".json") || (yield* exists(path.join(input, "tree.json")))) return [input]
  const entries = yield* fs.readDirectory(input).pipe(Effect.orElseSucceed(() => [] as Array<string>))
  const trees: Array<string> = []
  for (const name of [...entries].sort()) {
    if (yield* exists(path.join(input, name, "tree.json"))) trees.push(path.join(input, name))
  }
  if (trees.length === 0) {
    return yield* TreeDecodeError.at(
      path.join(input, "tree.json"),
      "",
      "not found, nor in any folder inside it",
      "pass a tree folder (holding tree.json) or a trees folder (one tree folder per video)",
      "NotFound"
    )
  }
  return trees
})

/**
 * Nodes one page holds. Every node is a card in one self-contained file: a 400,000-node tree made a 365 MB page
 * in 244 s, which no browser opens; 50,000 (a default build of tens of hours of video) stays a page one reads.
 */
export const maxPageNodes = 50_000

/** A page vtree will not write, with what to do instead. */
export class TreePageError extends Schema.TaggedError<TreePageError>()("TreePageError", {
  reason: Schema.Literal("TooLarge"),
  message: Schema.String
}) {}

/** Refuses, before any frame is read, a page of more than `maxNodes` nodes. */
const checkPageSize = Effect.fn("TreePage.checkSize")(function*(
  input: string,
  folders: ReadonlyArray<string>,
  library: Effect.Effect.Success<ReturnType<typeof makeTreeLibrary>>,
  maxNodes: number
) {
  const path = yield* Path.Path
  let nodes = 0
  for (const folder of folders) {
    nodes += (yield* Effect.scoped(library.open(folder))).index.nodes.size
  }
  if (nodes <= maxNodes) return
  const over = `${countOf(nodes, "node")}, over the ${formatCount(maxNodes)} one page holds`
  return yield* new TreePageError({
    reason: "TooLarge",
    message: folders.length === 1
      ? `${input}: ${over} — read it with vtree tree show and vtree tree search, or rebuild it with fewer frames`
      : `${input}: ${folders.length} trees with ${over} — write a page per tree: vtree tree html ${
        path.join(input, "<videoID>")
      }`
  })
})

/**
 * The page of a tree or a trees folder. `pageDir` is where the page will be read from (the folder of
 * `--out`, or the working folder): links to frames (`mode: "link"`) are relative to it.
 */
export const treePage = Effect.fn("TreePage.make")(function*(
  input: string,
  options: { readonly mode: FramesMode; readonly pageDir: string; readonly maxNodes?: number }
) {
  const path = yield* Path.Path
  const folders = yield* treeFoldersOf(input)
  const library = yield* makeTreeLibrary()
  yield* checkPageSize(input, folders, library, options.maxNodes ?? maxPageNodes)
  const trees = yield* Effect.forEach(folders, (folder) =>
    Effect.gen(function*() {
      const { dir, index } = yield* Effect.scoped(library.open(folder))
      const frames = [...index.nodes.values()].filter((node) => node.level === 3)
      const files = yield* Effect.forEach(frames, (node) => Effect.either(resolveFramePath(dir, index, node)))
      const images = yield* frameImages(files.flatMap((file) => file._tag === "Right" ? [file.right] : []), {
        ...options,
        shown: (file) => path.relative(dir, file)
      })
      return {
        index,
        frames: new Map(frames.map((node, i): [string, FrameImage] => {
          const file = files[i]!
          return [
            node.id,
            file._tag === "Left" ? { _tag: "Missing", message: file.left.problem } : images.get(file.right)!
          ]
        }))
      }
    }))
  const title = trees.length === 1
    ? `vtree tree ${trees[0]!.index.videoId}`
    : `vtree trees ${path.basename(path.resolve(input))}`
  return { page: renderTreePage(trees, { title }), trees: folders }
}, Effect.scoped)
