/**
 * tree.json from the finished cards, as a plain function: the flat form (domain/Tree.ts) with nested ids,
 * subtitles attached by time overlap, and the `build` record, typed by the Schema the reader decodes
 * it with (`BuiltTree`, written through `Schema.encode`). Nodes are listed depth first (a scene, then
 * each of its events followed by its frames), so the file reads in video order.
 */
import { Schema } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import { BuiltTree, type FlatNode } from "../../domain/Tree.js"
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
      build: input.build,
      nodes
    },
    frameFiles
  }
}

/** tree.json's text: the tree encoded by the Schema it is read with, one space of indent, a final newline. */
export const treeJsonText = (tree: BuiltTree): string =>
  `${JSON.stringify(Schema.encodeSync(BuiltTree)(tree), null, 1)}\n`
