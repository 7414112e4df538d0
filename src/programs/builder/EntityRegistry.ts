/**
 * The entity registry a build writes, as plain functions: the scene and event cards of a video cut into
 * parts of at most an hour, the text of each part's registry call, its reply read leniently (repaired JSON,
 * unknown node ids dropped, repeated entries merged), and the parts merged into tree.json's `entities` — the
 * shape an imported DVD subject registry has (domain/Tree.ts `TreeEntity`), plus aliases, a description and
 * the nodes each entity appears in. The calls themselves are RegistryCall.ts.
 */
import { Either } from "effect"
import type { TreeEntity } from "../../domain/Tree.js"
import { parseJson } from "../agent/Parse.js"
import type { Card } from "./Cards.js"
import { eventId, sceneId } from "./NodeIds.js"
import type { AssembledScene } from "./TreeAssembly.js"

/** A scene or event node as the registry call reads it. */
export interface RegistryNode {
  readonly id: string
  readonly level: 1 | 2
  readonly start: number
  readonly end: number
  readonly card: Card
  /** The scene an event belongs to (a scene's own id for a scene). */
  readonly scene: string
}

/** One entry as read from a reply (and as a checkpoint keeps it). */
export interface RegistryEntry {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  readonly description: string
  readonly nodes: ReadonlyArray<string>
}

/** Video seconds one registry call covers: an hour of cards is ~15k tokens at the default settings. */
export const registryPartSeconds = 3600
export const registryMaxTokens = 4096
const maxAliases = 12
const maxDescription = 600
const maxCardText = 400

/** The scene and event nodes of a video's tree, in video order, with the ids the tree will give them. */
export const registryNodes = (videoId: string, scenes: ReadonlyArray<AssembledScene>): Array<RegistryNode> =>
  scenes.flatMap((scene, s) => {
    const id = sceneId(videoId, s)
    return [
      { id, level: 1 as const, start: scene.start, end: scene.end, card: scene.card, scene: id },
      ...scene.events.map((event, e) => ({
        id: eventId(videoId, s, e),
        level: 2 as const,
        start: event.start,
        end: event.end,
        card: event.card,
        scene: id
      }))
    ]
  })

/** The nodes cut into parts of `seconds` of video, a scene in the part where it starts; none without nodes. */
export const registryParts = (
  nodes: ReadonlyArray<RegistryNode>,
  seconds: number = registryPartSeconds
): Array<Array<RegistryNode>> => {
  const parts = new Map<number, Array<RegistryNode>>()
  const sceneStart = new Map(nodes.filter((node) => node.level === 1).map((node) => [node.id, node.start]))
  for (const node of nodes) {
    const part = Math.floor((sceneStart.get(node.scene) ?? node.start) / seconds)
    parts.set(part, [...(parts.get(part) ?? []), node])
  }
  return [...parts.keys()].sort((a, b) => a - b).map((part) => parts.get(part)!)
}

const seconds = (t: number) => `${(Math.round(t * 10) / 10).toFixed(1)} s`
const oneLine = (value: unknown): string => {
  const text =
    (Array.isArray(value) ? value.filter((item) => typeof item === "string").join("; ") : String(value ?? ""))
      .replace(/\s+/g, " ").trim()
  return text.length > maxCardText ? `${text.slice(0, maxCardText)}…` : text
}

const cardLines = (node: RegistryNode): Array<string> => {
  const fields: ReadonlyArray<readonly [string, string]> = node.level === 1
    ? [["entities", "key_entities"], ["on-screen text", "visible_text"]]
    : [["entities", "entities"], ["who acts", "action_subjects"], ["on-screen text", "visible_text"]]
  return fields.flatMap(([label, field]) => {
    const value = oneLine(node.card[field])
    return value === "" ? [] : [`  ${label}: ${value}`]
  })
}

/** The user text of one part's registry call: every scene card, then its events, each headed by its node id. */
export const registryText = (part: ReadonlyArray<RegistryNode>, index: number, total: number): string => {
  const start = part[0]?.start ?? 0
  const end = part.reduce((latest, node) => Math.max(latest, node.end), start)
  const scenes = part.filter((node) => node.level === 1).length
  return [
    `Part ${index + 1} of ${total}: ${seconds(start)} – ${seconds(end)}, ${scenes} scenes, ${
      part.length - scenes
    } events`,
    ...part.flatMap((node) => [
      ...(node.level === 1 ? [""] : []),
      `${node.level === 1 ? "Scene" : "Event"} ${node.id} (${seconds(node.start)} – ${seconds(node.end)}): ${
        oneLine(node.card[node.level === 1 ? "scene_summary" : "event_description"])
      }`,
      ...cardLines(node)
    ])
  ].join("\n")
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const texts = (value: unknown): Array<string> =>
  (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === "string" && item.trim() !== "" ? [item.replace(/\s+/g, " ").trim()] : []
  )

/** A name as compared: case, punctuation, spacing and a leading article ignored. */
export const nameKey = (name: string): string =>
  name.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim().replace(/^(the|a|an) /, "")

/**
 * One entry of a reply (or of a checkpoint), or undefined when it has no name. Node ids are kept when the
 * part holds them, written whole or without the video's prefix; any other is dropped.
 */
export const registryEntry = (
  value: unknown,
  known: ReadonlySet<string>,
  videoId: string
): RegistryEntry | undefined => {
  if (!isRecord(value)) return undefined
  const named = texts(value["name"])
  const aliases = texts(value["aliases"] ?? value["alias"])
  const name = named[0] ?? aliases[0]
  if (name === undefined || nameKey(name) === "") return undefined
  const nodes: Array<string> = []
  for (const id of texts(value["nodes"] ?? value["node_ids"])) {
    const full = known.has(id) ? id : `${videoId}_${id}`
    if (known.has(full) && !nodes.includes(full)) nodes.push(full)
  }
  const seen = new Set([nameKey(name)])
  const others = [...named.slice(1), ...aliases].filter((alias) => {
    const key = nameKey(alias)
    if (key === "" || seen.has(key)) return false
    seen.add(key)
    return true
  })
  return {
    name,
    aliases: others.slice(0, maxAliases),
    description: texts(value["description"]).join(" ").slice(0, maxDescription),
    nodes
  }
}

/** The list a reply holds: `{"entities": [...]}`, a bare list, or DVD's `{id: {name, …}}`. */
const entriesOf = (reply: unknown): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(reply)) return reply
  if (!isRecord(reply)) return undefined
  for (const key of ["entities", "registry", "subjects", "subject_registry"]) {
    const inner = reply[key]
    if (Array.isArray(inner)) return inner
    if (isRecord(inner)) {
      return Object.entries(inner).map(([id, entry]) => isRecord(entry) ? { name: id, ...entry } : entry)
    }
  }
  return undefined
}

/**
 * A part's reply as entries: entries without a name or without any node of the part dropped, entries of one
 * name merged. A reply without a list of entries is the error the model is asked again with.
 */
export const decodeRegistryReply = (
  raw: string,
  known: ReadonlySet<string>,
  videoId: string
): Either.Either<Array<RegistryEntry>, string> => {
  let reply: unknown
  try {
    reply = parseJson(raw.trim().startsWith("[") ? `{"entities": ${raw}}` : raw)
  } catch (error) {
    return Either.left(`expected one JSON object: ${error instanceof Error ? error.message : String(error)}`)
  }
  const list = entriesOf(reply)
  if (list === undefined) return Either.left("missing \"entities\" list")
  const entries = list.flatMap((value) => {
    const entry = registryEntry(value, known, videoId)
    return entry === undefined || entry.nodes.length === 0 ? [] : [entry]
  })
  return Either.right(mergeEntries(entries, (a, b) => nameKey(a.name) === nameKey(b.name)))
}

/** Entries joined wherever `same` holds for a pair (transitively), each group as one entry, in first order. */
const mergeEntries = (
  entries: ReadonlyArray<RegistryEntry>,
  same: (a: RegistryEntry, b: RegistryEntry) => boolean
): Array<RegistryEntry> => {
  const group = entries.map((_, i) => i)
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i]!)))
  for (let i = 0; i < entries.length; i++) {
    for (let j = 0; j < i; j++) if (same(entries[i]!, entries[j]!)) group[root(i)] = root(j)
  }
  const members = new Map<number, Array<RegistryEntry>>()
  entries.forEach((entry, i) => members.set(root(i), [...(members.get(root(i)) ?? []), entry]))
  return [...members.values()].map(joinEntries)
}

/** One entry for a group: the name of the member seen in most nodes, every other wording an alias. */
const joinEntries = (group: ReadonlyArray<RegistryEntry>): RegistryEntry => {
  const lead = group.reduce((best, entry) => entry.nodes.length > best.nodes.length ? entry : best)
  const seen = new Set([nameKey(lead.name)])
  const aliases = group.flatMap((entry) => [entry.name, ...entry.aliases]).filter((alias) => {
    const key = nameKey(alias)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const descriptions = [...new Set(group.map((entry) => entry.description).filter((text) => text !== ""))]
  return {
    name: lead.name,
    aliases: aliases.slice(0, maxAliases),
    description: descriptions.join(" ").slice(0, maxDescription),
    nodes: [...new Set(group.flatMap((entry) => entry.nodes))]
  }
}

/**
 * The parts' entries as the tree's registry. Across parts, two entries are one entity when their names match
 * or one's name is the other's alias (never on two aliases alone: "a man" would join everyone). Each entity
 * lists its events' scenes too, in video order; `first_seen` is where its first node starts; ids are
 * `entity_1`, `entity_2`, … in order of first appearance.
 */
export const mergeRegistry = (
  parts: ReadonlyArray<ReadonlyArray<RegistryEntry>>,
  nodes: ReadonlyArray<RegistryNode>
): Array<TreeEntity> => {
  const byId = new Map(nodes.map((node, order) => [node.id, { node, order }]))
  const names = (entry: RegistryEntry) => new Set(entry.aliases.map(nameKey))
  const merged = mergeEntries(parts.flat(), (a, b) => {
    const [ka, kb] = [nameKey(a.name), nameKey(b.name)]
    return ka === kb || names(a).has(kb) || names(b).has(ka)
  })
  const placed = merged.flatMap((entry) => {
    const named = entry.nodes.filter((id) => byId.has(id)).map((id) => byId.get(id)!.node)
    if (named.length === 0) return []
    // Seen where its first event starts: a scene starts before most of what it holds.
    const events = named.filter((node) => node.level === 2)
    const firstSeen = Math.min(...(events.length > 0 ? events : named).map((node) => node.start))
    const ids = new Set(named.flatMap((node) => [node.id, node.scene]))
    const listed = [...ids].sort((a, b) => byId.get(a)!.order - byId.get(b)!.order)
    return [{ entry, listed, firstSeen, first: byId.get(listed[0]!)!.order }]
  })
  placed.sort((a, b) => a.firstSeen - b.firstSeen || a.first - b.first || a.entry.name.localeCompare(b.entry.name))
  return placed.map(({ entry, firstSeen, listed }, i) => ({
    id: `entity_${i + 1}`,
    name: entry.name,
    ...(entry.aliases.length === 0 ? {} : { aliases: entry.aliases }),
    ...(entry.description === "" ? {} : { description: entry.description }),
    first_seen: firstSeen,
    nodes: listed
  }))
}
