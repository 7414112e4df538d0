/**
 * tree.json from the finished cards, as a plain function: the flat form (domain/Tree.ts) with nested ids,
 * subtitles attached by time overlap, and the `build` record, typed by the Schema the reader decodes
 * it with (`BuiltTree`, written as its `Schema.encode` would write it). Nodes are listed depth first (a scene, then
 * each of its events followed by its frames), so the file reads in video order.
 */
import { Schema } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import { BuiltTree, FlatNode, type TreeEntity } from "../../domain/Tree.js"
import type { Card } from "./Cards.js"
import { durationCategory, eventId, frameFile, frameId, sceneId } from "./NodeIds.js"
import { subtitleFor } from "./Subtitles.js"

/** Cues overlapping [start, end): what an event call is told was said during it. */
export const cuesIn = (cues: ReadonlyArray<SubtitleCue>, start: number, end: number): ReadonlyArray<SubtitleCue> =>
  cues.filter((cue) => cue.start < end && cue.end > start)

/**
 * The span whose speech an L3 node carries: the frame's own slot on the grid, half an interval each
 * side, so every line spoken during an event lands on one of its frames.
 */
export const frameSlot = (
  time: number,
  interval: number
): readonly [number, number] => [time - interval / 2, time + interval / 2]

export interface AssembledFrame {
  readonly time: number
  readonly card: Card
  /** Where the extracted image is now. */
  readonly source: string
}

export interface AssembledEvent {
  readonly start: number
  readonly end: number
  readonly card: Card
  readonly frames: ReadonlyArray<AssembledFrame>
}

export interface AssembledScene {
  readonly start: number
  readonly end: number
  readonly card: Card
  readonly events: ReadonlyArray<AssembledEvent>
}

/** The tree and where each L3 node's frame file comes from (relative target → extracted source). */
export const assembleTree = (input: {
  readonly videoId: string
  readonly durationSeconds: number
  readonly domain: string | undefined
  /** A benchmark's own band; undefined → `durationCategory(durationSeconds)`. */
  readonly durationCategory?: string | undefined
  readonly frameInterval: number
  readonly scenes: ReadonlyArray<AssembledScene>
  readonly cues: ReadonlyArray<SubtitleCue>
  readonly build: Readonly<Record<string, unknown>>
  /** The entity registry the build wrote (RegistryCall.ts); none or empty → no `entities`, as before. */
  readonly entities?: ReadonlyArray<TreeEntity>
}): {
  readonly tree: BuiltTree
  readonly frameFiles: ReadonlyArray<{ readonly target: string; readonly source: string }>
} => {
  const nodes: Record<string, FlatNode> = {}
  const frameFiles: Array<{ target: string; source: string }> = []
  const subtitle = (start: number, end: number) => subtitleFor(input.cues, [start, end])
  input.scenes.forEach((scene, s) => {
    const id = sceneId(input.videoId, s)
    nodes[id] = {
      level: 1,
      time_range: [scene.start, scene.end],
      card: scene.card,
      subtitle: subtitle(scene.start, scene.end),
      children_ids: scene.events.map((_, e) => eventId(input.videoId, s, e))
    }
    scene.events.forEach((event, e) => {
      const eid = eventId(input.videoId, s, e)
      nodes[eid] = {
        level: 2,
        time_range: [event.start, event.end],
        card: event.card,
        subtitle: subtitle(event.start, event.end),
        children_ids: event.frames.map((_, f) => frameId(input.videoId, s, e, f))
      }
      event.frames.forEach((frame, f) => {
        const fid = frameId(input.videoId, s, e, f)
        const [from, to] = frameSlot(frame.time, input.frameInterval)
        nodes[fid] = {
          level: 3,
          time_range: [frame.time, frame.time],
          card: frame.card,
          subtitle: subtitle(from, to),
          children_ids: []
        }
        frameFiles.push({ target: frameFile(input.videoId, fid), source: frame.source })
      })
    })
  })
  return {
    tree: {
      videoID: input.videoId,
      duration_category: input.durationCategory ?? durationCategory(input.durationSeconds),
      duration_seconds: Math.round(input.durationSeconds * 1000) / 1000,
      ...(input.domain === undefined ? {} : { domain: input.domain }),
      ...(input.entities === undefined || input.entities.length === 0 ? {} : { entities: input.entities }),
      build: input.build,
      nodes
    },
    frameFiles
  }
}

const { nodes: _nodes, ...envelopeFields } = BuiltTree.fields
const encodeEnvelope = Schema.encodeSync(Schema.Struct(envelopeFields))
// The rules of a node its TypeScript type cannot hold (a level of 1–3, finite times ≥ 0, start ≤ end);
// checking the typed card and id lists again per node cost more than writing them.
const hasNodeRules = Schema.is(FlatNode.pick("level", "time_range", "timestamp"))
const flatNodeKeys = Object.keys(FlatNode.fields) as ReadonlyArray<keyof FlatNode>
const utf8 = new TextEncoder()

// Nodes are written this many at a time: each piece's text stays small.
const nodesPerPiece = 32
// `JSON.stringify({ nodes }, null, 1)` around its nodes, which it has already indented as the whole file is.
const pieceHead = "{\n \"nodes\": {"
const pieceTail = "\n }\n}"

/**
 * tree.json's bytes: the tree as the Schema it is read with encodes it (its fields in the Schema's order,
 * nothing the reader would refuse), one space of indent, a final newline. Written a few nodes at a time:
 * a whole tree as one string is a large two-byte string when any text is not ASCII, and turning that
 * into UTF-8 cost more than everything else an import does, while small pieces encode fast. The envelope
 * goes through the Schema's encode; each node through the rules its type cannot hold. A tree the Schema
 * refuses throws the Schema's own error (a defect: builders make typed trees).
 */
export const treeJsonBytes = (tree: BuiltTree): Uint8Array => {
  const envelope = JSON.stringify(encodeEnvelope(tree), null, 1)
  const texts = [`${envelope.slice(0, -2)},\n "nodes": {`]
  const entries = Object.entries(tree.nodes)
  for (let start = 0; start < entries.length; start += nodesPerPiece) {
    const piece: Record<string, Record<string, unknown>> = Object.create(null)
    for (const [id, node] of entries.slice(start, start + nodesPerPiece)) {
      if (!hasNodeRules(node)) Schema.encodeSync(BuiltTree)(tree)
      const ordered: Record<string, unknown> = {}
      for (const key of flatNodeKeys) if (node[key] !== undefined) ordered[key] = node[key]
      piece[id] = ordered
    }
    const text = JSON.stringify({ nodes: piece }, null, 1)
    texts.push(`${start === 0 ? "" : ","}${text.slice(pieceHead.length, -pieceTail.length)}`)
  }
  texts.push(entries.length === 0 ? "}\n}\n" : "\n }\n}\n")
  // At most three UTF-8 bytes per UTF-16 unit; one buffer, each piece encoded straight into it.
  const bytes = Buffer.allocUnsafe(texts.reduce((size, text) => size + text.length * 3, 0))
  let used = 0
  for (const text of texts) used += utf8.encodeInto(text, bytes.subarray(used)).written
  return bytes.subarray(0, used)
}
