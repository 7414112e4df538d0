/**
 * Captions into the tree's shape, by time alone: each caption an L3 node, captions grouped into L2
 * events on a grid of `eventSeconds` (by start time) and events into L1 scenes on a grid of
 * `sceneSeconds`. A node spans its children exactly, so every child lies inside its parent; empty
 * grid cells make no node. Plus the deterministic cards an import writes when no model is asked.
 */
import { completeCard } from "../builder/Cards.js"
import type { ImportedCaption } from "./ImportedVideo.js"

export interface ImportedEvent {
  readonly start: number
  readonly end: number
  readonly captions: ReadonlyArray<ImportedCaption>
}

export interface ImportedScene {
  readonly start: number
  readonly end: number
  readonly events: ReadonlyArray<ImportedEvent>
}

const span = <A extends { readonly start: number; readonly end: number }>(items: ReadonlyArray<A>) => {
  let start = Infinity
  let end = -Infinity
  for (const item of items) {
    if (item.start < start) start = item.start
    if (item.end > end) end = item.end
  }
  return { start, end }
}

/** Consecutive items sharing a grid cell (`key`), in order. */
const runs = <A>(items: ReadonlyArray<A>, key: (item: A) => number): Array<Array<A>> => {
  const out: Array<Array<A>> = []
  let current: Array<A> = []
  let currentKey: number | undefined
  for (const item of items) {
    const k = key(item)
    if (currentKey !== undefined && k !== currentKey) {
      out.push(current)
      current = []
    }
    current.push(item)
    currentKey = k
  }
  if (current.length > 0) out.push(current)
  return out
}

/** Captions (sorted by start) → scenes → events → captions. */
export const groupCaptions = (
  captions: ReadonlyArray<ImportedCaption>,
  eventSeconds: number,
  sceneSeconds: number
): ReadonlyArray<ImportedScene> => {
  const events = runs(captions, (c) => Math.floor(c.start / eventSeconds)).map((group): ImportedEvent => ({
    ...span(group),
    captions: group
  }))
  return runs(events, (e) => Math.floor(e.start / sceneSeconds)).map((group): ImportedScene => ({
    ...span(group),
    events: group
  }))
}

const clock = (t: number): string => {
  const rounded = Math.round(t * 10) / 10
  return Number.isInteger(rounded) ? `${rounded}` : rounded.toFixed(1)
}

/**
 * `[12–13 s] text` a caption, one a line; consecutive captions with the same text are one line over
 * their joint span (per-second sets repeat a caption for as long as the action lasts).
 */
export const captionLines = (captions: ReadonlyArray<ImportedCaption>): string => {
  const lines: Array<string> = []
  let open: { start: number; end: number; text: string } | undefined
  const flush = () => {
    if (open !== undefined) lines.push(`[${clock(open.start)}–${clock(open.end)} s] ${open.text}`)
  }
  for (const c of captions) {
    if (open !== undefined && open.text === c.text && c.start <= open.end + 1e-6) {
      open.end = Math.max(open.end, c.end)
      continue
    }
    flush()
    open = { start: c.start, end: c.end, text: c.text }
  }
  flush()
  return lines.join("\n")
}

/** Says on every deterministic card that no model wrote it. */
export const importedMark = "captions as released, joined by vtree tree import; no model wrote this card"

/** An L3 card: the caption itself. */
export const frameCard = (c: ImportedCaption) => completeCard(3, { frame_summary: c.text })

/** An L2 card made without a model: its captions, one a line, marked imported. */
export const deterministicEventCard = (event: ImportedEvent) => ({
  ...completeCard(2, { event_description: captionLines(event.captions) }),
  source: importedMark
})

/** An L1 card made without a model: every caption of the scene, one a line, marked imported. */
export const deterministicSceneCard = (scene: ImportedScene) => ({
  ...completeCard(1, { scene_summary: captionLines(scene.events.flatMap((event) => event.captions)) }),
  source: importedMark
})
