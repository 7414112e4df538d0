import { Schema } from "effect"
import type { TreeIndex, TreeNode } from "../../domain/TreeIndex.js"
import { maxResultSizeKey } from "./ResultCaps.js"
import { brief, Clock, clock, NodeBrief } from "./VideoToolKit.js"

/**
 * video_overview a page at a time. The tool declares this many characters (`anthropic/maxResultSizeChars`):
 * the outline of a 2-hour tree at the build's defaults (about 30 scenes and 360 events) fits in one page,
 * under Claude Code's 25,000-token cap (JSON with node ids runs near 3 characters a token); a longer tree
 * continues from `next_cursor`.
 */
export const overviewMaxChars = 80_000

/** An outline's summaries: a scene's and an event's first words (video_view_node has the whole card). */
export const outlineChars = { scene: 200, event: 80 } as const

export const overviewMeta = { [maxResultSizeKey]: overviewMaxChars } as const

/** Room kept for the reply's own fields (video id, duration, cursor) around the scenes. */
const envelopeChars = 1_000

export const EntityEntry = Schema.Struct({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  appearance: Schema.NullOr(Schema.String),
  identity: Schema.NullOr(Schema.String),
  first_seen: Schema.NullOr(Clock),
  // A built registry's; left out for an imported one, which has none of them.
  aliases: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  description: Schema.optionalWith(Schema.String, { exact: true }),
  nodes: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }).annotations({
    description: "Scene and event ids it appears in, for view_node"
  })
})

export const SceneEntry = Schema.Struct({ ...NodeBrief.fields, events: Schema.Array(NodeBrief) })

export const OverviewOutput = Schema.Struct({
  video_id: Schema.String,
  duration: Schema.NullOr(Clock),
  entities: Schema.Array(EntityEntry).annotations({
    description:
      "The tree's entity registry (people and things tracked across the video), when it has one; on the first page"
  }),
  scenes: Schema.Array(SceneEntry).annotations({
    description: "A scene continued from the previous page is repeated with its remaining events"
  }),
  truncated: Schema.Boolean.annotations({
    description: "Something is not on this page: more scenes (see next_cursor) or more entities than fit"
  }),
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "Pass as cursor for the next page; null on the last"
  })
})
export type OverviewOutput = typeof OverviewOutput.Type

type SceneEntry = typeof SceneEntry.Type

/** Where a page starts: a scene and the first of its events to show. */
const parseCursor = (cursor: string | undefined, index: TreeIndex) => {
  if (cursor === undefined) return { scene: 0, event: 0 }
  const match = /^(0|[1-9]\d{0,6})\.(0|[1-9]\d{0,6})$/.exec(cursor)
  if (match === null) return undefined
  const scene = Number(match[1])
  const event = Number(match[2])
  const root = index.nodes.get(index.rootIds[scene] ?? "")
  return root === undefined || event > root.childrenIds.length ? undefined : { scene, event }
}

const size = (value: unknown): number => JSON.stringify(value).length + 1

/** `text` cut at a word boundary to at most `max` characters, an ellipsis saying it was cut. */
export const firstWords = (text: string, max: number): string => {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(" ")
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

const outline = (node: TreeNode) => {
  const entry = brief(node)
  return { ...entry, summary: firstWords(entry.summary, node.level === 1 ? outlineChars.scene : outlineChars.event) }
}

/** The registry's entries within `budget` characters; whether some did not fit. */
const entitiesWithin = (index: TreeIndex, budget: number) => {
  const entities: Array<typeof EntityEntry.Type> = []
  for (const entity of index.entities ?? []) {
    const entry = {
      id: entity.id,
      name: entity.name ?? null,
      appearance: entity.appearance ?? null,
      identity: entity.identity ?? null,
      first_seen: entity.first_seen === undefined ? null : clock(entity.first_seen),
      ...(entity.aliases === undefined ? {} : { aliases: entity.aliases }),
      ...(entity.description === undefined ? {} : { description: entity.description }),
      ...(entity.nodes === undefined ? {} : { nodes: entity.nodes })
    }
    budget -= size(entry)
    if (budget < 0) return { entities, cut: true }
    entities.push(entry)
  }
  return { entities, cut: false }
}

/**
 * One page of the overview from `cursor` (a next_cursor this function gave; undefined for the first),
 * its JSON within `maxChars`: the entity registry first (at most a quarter of the page), then scenes
 * with their events in order. Undefined when the cursor is not one it gave.
 */
export const overviewPage = (
  videoId: string,
  index: TreeIndex,
  cursor: string | undefined,
  maxChars: number = overviewMaxChars
): OverviewOutput | undefined => {
  const start = parseCursor(cursor, index)
  if (start === undefined) return undefined
  const first = cursor === undefined
  const registry = first ? entitiesWithin(index, maxChars / 4) : { entities: [], cut: false }
  let budget = maxChars - envelopeChars - size(registry.entities)
  const scenes: Array<SceneEntry> = []
  let next: string | null = null
  pages: for (let s = start.scene; s < index.rootIds.length; s++) {
    const scene = index.nodes.get(index.rootIds[s]!)!
    const entry: SceneEntry = { ...outline(scene), events: [] }
    budget -= size(entry)
    // A page holds at least one scene, so a cursor always moves on.
    if (budget < 0 && scenes.length > 0) {
      next = `${s}.0`
      break
    }
    const events: Array<typeof NodeBrief.Type> = []
    scenes.push({ ...entry, events })
    const from = s === start.scene ? start.event : 0
    for (let e = from; e < scene.childrenIds.length; e++) {
      const child = index.nodes.get(scene.childrenIds[e]!)
      if (child === undefined || child.level !== 2) continue
      const item = outline(child)
      budget -= size(item)
      if (budget < 0 && (events.length > 0 || scenes.length > 1)) {
        // A scene none of whose events fit starts the next page instead.
        if (events.length === 0) scenes.pop()
        next = `${s}.${e}`
        break pages
      }
      events.push(item)
    }
  }
  return {
    video_id: videoId,
    duration: index.durationSeconds === null ? null : clock(index.durationSeconds),
    entities: registry.entities,
    scenes,
    truncated: next !== null || registry.cut,
    next_cursor: next
  }
}
