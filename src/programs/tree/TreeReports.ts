// What `vtree tree validate`, `show`, `search` and `frames` report about a tree, as text a person reads at a terminal
// (data's control characters shown, never obeyed). The commands around them are cli/tree/TreeCommand.ts.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either } from "effect"
import { TreeDecodeError } from "../../domain/Tree.js"
import { FrameSelectionError, type Level, NodeNotFound, type TreeIndex } from "../../domain/TreeIndex.js"
import { countOf, formatCount, videoSpan, videoTime } from "../../text/Format.js"
import { cutTerminalText, terminalText } from "../../text/TerminalText.js"
import { resolveFramePath } from "./FramePath.js"
import { type IdFinding, selectFrameNodes } from "./FrameSelection.js"
import { keywordNote, searchOrKeywords } from "./KeywordFallback.js"
import { anchoredText, childInfo, entityAppendix, nodeSummary, nodeText } from "./NodeText.js"
import { loadTreeEnvironment, readTreeIndex } from "./TreeLoader.js"

const levelName: Record<Level, string> = { 1: "Scene", 2: "Event", 3: "Frame" }
// A person reads these: times as h:mm:ss (text/Format.ts). The agent's own view_node header keeps
// `<t0>-<t1>s`, the plain seconds its prompts are written for.
const span = videoSpan

/** Frame file of every L3 node, whether it is on disk; a frame path that leaves the tree fails the check. */
const frameReport = Effect.fn("TreeReports.frameReport")(function*(dir: string, file: string, index: TreeIndex) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const frames = yield* Effect.forEach(
    [...index.nodes.values()].filter((node) => node.level === 3),
    (node) =>
      resolveFramePath(dir, index, node).pipe(
        Effect.mapError((error) =>
          TreeDecodeError.at(file, `nodes.${node.id}`, error.problem, "fix or rebuild the tree")
        )
      ),
    { concurrency: 32 }
  )
  const present = yield* Effect.forEach(frames, (frame) => fs.exists(frame).pipe(Effect.orElseSucceed(() => false)), {
    concurrency: 32
  })
  return {
    found: present.filter(Boolean).length,
    missing: frames.flatMap((frame, i) => present[i] ? [] : [path.relative(dir, frame)])
  }
})

/** The report of `vtree tree validate` and the frames it misses; fails with TreeDecodeError on a bad tree. */
export const checkTree = Effect.fn("TreeReports.check")(function*(input: string) {
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
  const frames = index.hasFrames === false ? undefined : yield* frameReport(dir, file, index)
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

// Tree messages written for the agent name its tools; a person at the shell gets the commands.
const cliFinding = (input: string): IdFinding => ({
  ids: `list ids with \`vtree tree show ${input}\` (the outline) or \`vtree tree search ${input} <words>\``,
  children: `\`vtree tree show ${input} <scene id>\` lists them`
})

/** The report of `vtree tree show`: header, node text, children, entity appendix. */
export const showNode = Effect.fn("TreeReports.show")(function*(input: string, nodeId: string, anchor: boolean) {
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
export const showOutline = Effect.fn("TreeReports.outline")(function*(input: string) {
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
      `${countOf(counts[1], "scene")}, ${countOf(counts[2], "event")}, ${countOf(counts[3], "frame")}`
    ].join(" · ")
  ]
  for (const sceneId of index.rootIds) {
    const scene = index.nodes.get(sceneId)!
    lines.push(`Scene ${oneLine(scene.id, 60)} | ${span(scene.timeRange)} | ${oneLine(nodeSummary(scene), 100)}`)
    for (const eventId of scene.childrenIds) {
      const event = index.nodes.get(eventId)!
      const frames = event.childrenIds.length
      lines.push(
        `  Event ${oneLine(event.id, 60)} | ${span(event.timeRange)} | ${countOf(frames, "frame")} | ${
          oneLine(nodeSummary(event), 90)
        }`
      )
    }
  }
  return lines.join("\n")
})

/** The report of `vtree tree search` (BM25: embedding endpoints are configured by the provider layers). */
export const searchTree = Effect.fn("TreeReports.search")(function*(input: string, query: string, k: number) {
  const env = yield* loadTreeEnvironment(input)
  const { fallback, hits } = yield* searchOrKeywords(env, query, k)
  const lines = [
    ...(fallback === null ? [] : [keywordNote(fallback)]),
    `[Search results] query "${query}" → ${countOf(hits.length, "node")}`
  ]
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
export const listFrames = Effect.fn("TreeReports.frames")(function*(input: string, ids: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const { dir, index } = yield* readTreeIndex(input)
  const nodes = yield* Either.match(selectFrameNodes(index, ids, cliFinding(input)), {
    onLeft: Effect.fail,
    onRight: Effect.succeed
  })
  return (yield* Effect.forEach(nodes, (node) =>
    resolveFramePath(dir, index, node).pipe(
      Effect.mapError((error) => new FrameSelectionError({ reason: "OutsideTree", message: error.message })),
      Effect.flatMap((file) =>
        fs.exists(file).pipe(
          Effect.orElseSucceed(() => false),
          Effect.map((exists) => `${node.id} ${file} ${exists ? "exists" : "missing"}`)
        )
      )
    ))).join("\n")
})
