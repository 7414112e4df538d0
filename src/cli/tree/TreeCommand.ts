import { Args, Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Either, Option } from "effect"
import { TreeDecodeError } from "../../domain/Tree.js"
import { type Level, NodeNotFound, type TreeIndex } from "../../domain/TreeIndex.js"
import { frameRelativePath, type IdFinding, selectFrameNodes } from "../../programs/tree/FrameSelection.js"
import { anchoredText, childInfo, entityAppendix, nodeSummary, nodeText } from "../../programs/tree/NodeText.js"
import { loadTreeEnvironment, readTreeIndex } from "../../programs/tree/TreeLoader.js"
import { treePage } from "../../programs/tree/TreePage.js"
import { countOf, formatCount, videoSpan, videoTime } from "../../text/Format.js"
import { cutTerminalText, terminalText } from "../../text/TerminalText.js"
import { wholeNumber, withShownDefault } from "../CliOptions.js"
import * as Media from "../shared/MediaLayers.js"
import { writeResult } from "../shared/OutputFile.js"
import { treeImportCommand } from "./TreeImportCommand.js"
import * as Tree from "./TreeLayers.js"
import { treePackCommands } from "./TreePackCommand.js"

const levelName: Record<Level, string> = { 1: "Scene", 2: "Event", 3: "Frame" }
// A person reads these: times as h:mm:ss (text/Format.ts). The agent's own view_node header keeps
// `<t0>-<t1>s`, the plain seconds its prompts are written for.
const span = videoSpan

/** Frame file of every L3 node, whether it is on disk. */
const frameReport = Effect.fn("TreeCommand.frameReport")(function*(dir: string, index: TreeIndex) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const frames = [...index.nodes.values()].filter((node) => node.level === 3).map((node) =>
    frameRelativePath(index, node)
  )
  const present = yield* Effect.forEach(
    frames,
    (file) => fs.exists(path.join(dir, file)).pipe(Effect.orElseSucceed(() => false)),
    {
      concurrency: 32
    }
  )
  return { found: present.filter(Boolean).length, missing: frames.filter((_, i) => !present[i]) }
})

/** The report of `vtree tree validate` and the frames it misses; fails with TreeDecodeError on a bad tree. */
export const checkTree = Effect.fn("TreeCommand.check")(function*(input: string) {
  const { dir, file, index } = yield* readTreeIndex(input)
  const counts = { 1: 0, 2: 0, 3: 0 }
  let start = Infinity
  let end = -Infinity
  for (const node of index.nodes.values()) {
    counts[node.level] += 1
    start = Math.min(start, node.timeRange[0])
    end = Math.max(end, node.timeRange[1])
  }
  // A tree made without frames on purpose has none to miss.
  const frames = index.hasFrames === false ? undefined : yield* frameReport(dir, index)
  const about = [
    index.durationCategory,
    index.durationSeconds === null ? null : videoTime(index.durationSeconds),
    index.domain
  ]
    .filter((part) => part !== null)
    .join(" · ")
  const report = [
    `${file}: ok`,
    `video: ${index.videoId}${about === "" ? "" : ` · ${about}`}`,
    `nodes: ${countOf(counts[1], "L1 scene")}, ${countOf(counts[2], "L2 event")}, ${countOf(counts[3], "L3 frame")} (${
      formatCount(index.nodes.size)
    } in all)`,
    `time: ${videoSpan([start, end])} (${videoTime(end - start)})`,
    frames === undefined
      ? "frames: none (made from text captions without the video; observe_frame is unavailable)"
      : `frames: ${frames.found} found, ${frames.missing.length} missing` +
        (frames.missing.length === 0
          ? ""
          : ` (${frames.missing.slice(0, 5).join(", ")}${frames.missing.length > 5 ? ", …" : ""})`),
    ...(index.entities === undefined || index.entities.length === 0
      ? []
      : [`entities: ${index.entities.length} in the registry`])
  ].join("\n")
  return { file, report, missing: frames?.missing ?? [] }
})

/** The report of `vtree tree validate`; fails with TreeDecodeError on a bad tree (missing frames count as valid). */
export const validateTree = (input: string) => Effect.map(checkTree(input), (checked) => checked.report)

/**
 * `vtree tree validate`: the report, then a failure when frames are missing (observe_frame would fail
 * on those nodes), unless `allowMissingFrames`.
 */
export const validateCommand = Effect.fn("TreeCommand.validateCommand")(
  function*(input: string, allowMissingFrames: boolean) {
    const { file, missing, report } = yield* checkTree(input)
    yield* Console.log(report)
    if (missing.length > 0 && !allowMissingFrames) {
      const count = missing.length === 1 ? "1 frame missing" : `${missing.length} frames missing`
      return yield* TreeDecodeError.at(
        file,
        "",
        `${count} (${missing[0]}${missing.length > 1 ? ", …" : ""}); observe_frame cannot show them`,
        "run the build again to restore them, or accept the tree with --allow-missing-frames",
        "MissingFrames"
      )
    }
  }
)

// Tree messages written for the agent name its tools; a person at the shell gets the commands.
const cliFinding = (input: string): IdFinding => ({
  ids: `list ids with \`vtree tree show ${input}\` (the outline) or \`vtree tree search ${input} <words>\``,
  children: `\`vtree tree show ${input} <scene id>\` lists them`
})

/** The report of `vtree tree show`: header, node text, children, entity appendix. */
export const showNode = Effect.fn("TreeCommand.show")(function*(input: string, nodeId: string, anchor: boolean) {
  const env = yield* loadTreeEnvironment(input)
  if (!env.index.nodes.has(nodeId)) {
    const roots = env.index.rootIds
    return yield* new NodeNotFound({
      reason: "UnknownId",
      nodeId,
      message:
        `node "${nodeId}" does not exist in ${env.index.videoId} — its scenes are ${roots.slice(0, 5).join(", ")}` +
        `${roots.length > 5 ? ", …" : ""}; ${cliFinding(input).ids}`
    })
  }
  const node = yield* env.getNode(nodeId)
  const lines = [`[Node] ${node.id} | ${levelName[node.level]} | ${span(node.timeRange)}`]
  if (anchor) {
    // Rendered before it is split into sentences, so no sentence boundary falls inside an escape sequence.
    const subtitle = terminalText(node.subtitle.replace(/\r\n/g, "\n"), { multiline: true })
    lines.push(anchoredText({ ...node, subtitle }).text)
  } else {
    lines.push(nodeText(node))
  }
  if (node.childrenIds.length > 0) {
    lines.push(`[Children] ${node.childrenIds.length}`)
    for (const id of node.childrenIds) {
      const child = childInfo(env.index.nodes.get(id)!)
      lines.push(`  ${child.id} | ${span(child.timeRange)} | ${cutTerminalText(child.summary, 120)}`)
    }
  }
  const appendix = entityAppendix(node, env.index.entities)
  if (appendix.entities.length > 0) lines.push(`[Entities] ${appendix.entities.join("; ")}`)
  if (appendix.visibleText.length > 0) lines.push(`[On-screen text] ${appendix.visibleText.join("; ")}`)
  return lines.filter((line) => line !== "").join("\n")
})

/** A card's summary on one terminal line: whitespace (line breaks too) folded, control characters shown, cut. */
const oneLine = (text: string, width: number) => cutTerminalText(text.replace(/\s+/g, " ").trim(), width, "…")

/**
 * The report of `vtree tree show DIR`: a header (video, duration, domain, counts), then each scene and
 * each of its events with its time span, frame count and summary, one line apiece.
 */
export const showOutline = Effect.fn("TreeCommand.outline")(function*(input: string) {
  const { index } = yield* readTreeIndex(input)
  const counts = { 1: 0, 2: 0, 3: 0 }
  for (const node of index.nodes.values()) counts[node.level] += 1
  const about = [
    index.durationCategory,
    index.durationSeconds === null ? null : videoTime(index.durationSeconds),
    index.domain
  ].filter((part) => part !== null)
  const lines = [
    [
      oneLine(index.videoId, 80),
      ...about.map((part) => oneLine(part, 40)),
      `${counts[1]} scenes, ${counts[2]} events, ${counts[3]} frames`
    ].join(" · ")
  ]
  for (const sceneId of index.rootIds) {
    const scene = index.nodes.get(sceneId)!
    lines.push(`Scene ${oneLine(scene.id, 60)} | ${span(scene.timeRange)} | ${oneLine(nodeSummary(scene), 100)}`)
    for (const eventId of scene.childrenIds) {
      const event = index.nodes.get(eventId)!
      const frames = event.childrenIds.length
      lines.push(
        `  Event ${oneLine(event.id, 60)} | ${span(event.timeRange)} | ${frames} frame${frames === 1 ? "" : "s"} | ${
          oneLine(nodeSummary(event), 90)
        }`
      )
    }
  }
  return lines.join("\n")
})

/** The report of `vtree tree search` (BM25: embedding endpoints are configured by the provider layers). */
export const searchTree = Effect.fn("TreeCommand.search")(function*(input: string, query: string, k: number) {
  const env = yield* loadTreeEnvironment(input)
  const hits = yield* env.search(query, k)
  const lines = [`[Search results] query "${query}" → ${hits.length} nodes`]
  hits.forEach((hit, i) => {
    const summary = childInfo(env.index.nodes.get(hit.nodeId)!).summary
    lines.push(
      `${i + 1}. ${hit.nodeId} | L${hit.level} score=${hit.score.toFixed(3)} | ${span(hit.timeRange)}`
    )
    lines.push(`   ${cutTerminalText(summary, 120)}`)
  })
  return lines.join("\n")
})

/** The report of `vtree tree frames`: the frames observe_frame would get, each found or missing. */
export const listFrames = Effect.fn("TreeCommand.frames")(function*(input: string, ids: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const { dir, index } = yield* readTreeIndex(input)
  const nodes = yield* Either.match(selectFrameNodes(index, ids, cliFinding(input)), {
    onLeft: Effect.fail,
    onRight: Effect.succeed
  })
  return (yield* Effect.forEach(nodes, (node) => {
    const file = path.resolve(dir, frameRelativePath(index, node))
    return fs.exists(file).pipe(
      Effect.orElseSucceed(() => false),
      Effect.map((exists) => `${node.id} ${file} ${exists ? "exists" : "missing"}`)
    )
  })).join("\n")
})

const treeArg = Args.text({ name: "tree" }).pipe(Args.withDescription("a tree directory, or its tree.json"))
// Failures stay in the error channel: bin prints their message as one line and exits 1.
const printing = <E, R>(report: Effect.Effect<string, E, R>) => Effect.flatMap(report, Console.log)

const validate = Command.make(
  "validate",
  {
    tree: treeArg,
    allowMissingFrames: Options.boolean("allow-missing-frames").pipe(
      Options.withDescription("exit 0 even when frame images of L3 nodes are missing")
    )
  },
  ({ allowMissingFrames, tree }) => validateCommand(tree, allowMissingFrames)
).pipe(
  Command.withDescription(
    "Decode tree.json and check its structure; counts per level, time span, frames found and missing (exit 1 when any is missing)."
  )
)

const show = Command.make(
  "show",
  {
    tree: treeArg,
    nodeId: Args.text({ name: "node-id" }).pipe(
      Args.withDescription("the node to print; without it, the outline of scenes and events"),
      Args.optional
    ),
    anchor: Options.boolean("anchor").pipe(
      Options.withDescription("number card lines [c1]… and subtitle sentences [s1]…")
    )
  },
  ({ anchor, nodeId, tree }) =>
    printing(Option.match(nodeId, { onNone: () => showOutline(tree), onSome: (id) => showNode(tree, id, anchor) }))
).pipe(
  Command.withDescription(
    "Print the outline (scenes and events with times and summaries), or a node's text, children and entity appendix."
  )
)

const search = Command.make(
  "search",
  {
    tree: treeArg,
    query: Args.text({ name: "query" }),
    k: wholeNumber("k", 1).pipe(Options.withDescription("how many nodes to return"), withShownDefault(5))
  },
  ({ k, query, tree }) => printing(searchTree(tree, query, k))
).pipe(
  Command.withDescription(
    "Retrieve the nodes best matching a query as search_similar does: BM25, or hybrid with VTREE_EMBED_* set; ancestors and descendants of kept hits are skipped."
  ),
  Command.provide(Tree.embeddings)
)

const frames = Command.make(
  "frames",
  { tree: treeArg, ids: Args.text({ name: "node-id" }).pipe(Args.atLeast(1)) },
  ({ ids, tree }) => printing(listFrames(tree, ids))
).pipe(Command.withDescription("Resolve frame files as observe_frame would: 1–4 L3 ids, or one L2 id."))

/**
 * `vtree tree html`: the page of a tree or a trees folder, to `--out` (never over or inside the trees it
 * reads: cli/OutputFile.ts) or to stdout.
 */
export const writeTreePage = Effect.fn("TreeCommand.html")(function*(
  input: string,
  options: { readonly out: Option.Option<string>; readonly frames: "embed" | "link" }
) {
  const path = yield* Path.Path
  const pageDir = Option.match(options.out, {
    onNone: () => path.resolve("."),
    onSome: (out) => path.dirname(path.resolve(out))
  })
  const { page, trees } = yield* treePage(input, { mode: options.frames, pageDir })
  yield* writeResult({
    body: page,
    out: options.out,
    // A tree's folder, whichever way it was named: the page never lands in it or over its tree.json.
    inputs: [input, ...trees.map((tree) => (tree.toLowerCase().endsWith(".json") ? path.dirname(tree) : tree))],
    data: true,
    what: `the page of ${trees.length === 1 ? "tree" : `${trees.length} trees in`} ${input}`
  })
})

const html = Command.make(
  "html",
  {
    tree: Args.text({ name: "tree" }).pipe(
      Args.withDescription("a tree directory (or its tree.json), or a trees folder holding one per video")
    ),
    // Text, not Options.file: OutputFile refuses a path that is not a regular file, in our words.
    out: Options.text("out").pipe(
      Options.withDescription("Write the page to this file instead of stdout (never inside the trees it shows)"),
      Options.optional
    ),
    frames: Options.choice("frames", ["embed", "link"]).pipe(
      Options.withDescription(
        "embed: thumbnails at most 320 px wide in the page; link: relative links to the frame files (small pages for big trees)"
      ),
      withShownDefault("embed")
    )
  },
  ({ frames, out, tree }) => writeTreePage(tree, { out, frames })
).pipe(
  Command.withDescription(
    "One self-contained html page of a tree (an index for a trees folder): timeline, cards, subtitles, thumbnails, " +
      "an anchor per node id, search."
  ),
  Command.provide(Media.thumbnails)
)

export const treeCommand = Command.make("tree").pipe(
  Command.withDescription(
    "Inspect a video tree: validate, show its outline or a node, search, resolve frames, write an html page."
  ),
  Command.withSubcommands([validate, show, search, frames, html, treeImportCommand, ...treePackCommands])
)
