// Synthetic video trees in both tree.json forms, for tests and the tree benchmark.
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"

export type Json = Record<string, unknown>

export interface SyntheticTreeOptions {
  readonly videoId?: string
  readonly scenes: number
  readonly eventsPerScene: number
  /** A number, or a function of (scene, event) for uneven trees. */
  readonly framesPerEvent: number | ((scene: number, event: number) => number)
  readonly sceneSeconds?: number
  /** Card of a node; defaults to generated filler text from a seeded vocabulary. */
  readonly card?: (id: string, level: 1 | 2 | 3, random: () => number) => Json
  readonly subtitle?: (id: string, level: 1 | 2 | 3, random: () => number) => string
  readonly seed?: number
}

const pad = (n: number) => String(n).padStart(3, "0")

// A small deterministic PRNG (mulberry32): the same options always give the same tree.
export const seededRandom = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const vocabulary = (
  "person man woman child dog cat car truck bicycle street kitchen table chair window door river bridge " +
  "mountain forest beach boat ship plane train station market shop screen laptop phone book paper board " +
  "teacher student chef doctor player ball goal field stage guitar piano singer crowd camera light red blue " +
  "green yellow black white small large walks runs talks holds opens closes cooks writes reads plays drives " +
  "looks points smiles waves jumps sits stands enters leaves morning evening night rain snow sun cloud"
).split(" ")

export const fillerWords = (random: () => number, count: number): string =>
  Array.from({ length: count }, () => vocabulary[Math.floor(random() * vocabulary.length)]!).join(" ")

const defaultCard = (_id: string, level: 1 | 2 | 3, random: () => number): Json => {
  switch (level) {
    case 1:
      return {
        scene_summary: fillerWords(random, 40),
        main_setting: fillerWords(random, 8),
        key_entities: [fillerWords(random, 2), fillerWords(random, 2)],
        main_actions: [fillerWords(random, 3)],
        topic_keywords: [fillerWords(random, 1)],
        temporal_flow: fillerWords(random, 12),
        visible_text: []
      }
    case 2:
      return {
        event_description: fillerWords(random, 30),
        entities: [fillerWords(random, 2)],
        actions: [fillerWords(random, 3)],
        action_subjects: [fillerWords(random, 1)],
        spatial_relations: fillerWords(random, 8),
        state_changes: fillerWords(random, 6),
        visible_text: []
      }
    case 3:
      return {
        frame_summary: fillerWords(random, 20),
        visible_entities: [fillerWords(random, 2)],
        ongoing_actions: [fillerWords(random, 2)],
        spatial_layout: fillerWords(random, 6),
        visual_attributes: { lighting: fillerWords(random, 1) },
        visible_text: []
      }
  }
}

/** The flat form: `{ videoID, …, nodes: { id: { level, time_range, card, subtitle, children_ids } } }`. */
export const syntheticTree = (options: SyntheticTreeOptions): Json => {
  const videoId = options.videoId ?? "VID"
  const sceneSeconds = options.sceneSeconds ?? 300
  const random = seededRandom(options.seed ?? 7)
  const card = options.card ?? defaultCard
  const subtitle = options.subtitle ??
    ((_id, level, rnd) => (level === 3 ? "" : `${fillerWords(rnd, 12)}. ${fillerWords(rnd, 10)}.`))
  const nodes: Record<string, Json> = {}
  for (let s = 0; s < options.scenes; s++) {
    const sceneId = `${videoId}_L1_${pad(s)}`
    const start = s * sceneSeconds
    const eventSeconds = sceneSeconds / options.eventsPerScene
    const events: Array<string> = []
    nodes[sceneId] = {
      level: 1,
      time_range: [start, start + sceneSeconds],
      card: card(sceneId, 1, random),
      subtitle: subtitle(sceneId, 1, random),
      children_ids: events
    }
    for (let e = 0; e < options.eventsPerScene; e++) {
      const eventId = `${sceneId}_L2_${pad(e)}`
      events.push(eventId)
      const eventStart = start + e * eventSeconds
      const frameCount = typeof options.framesPerEvent === "number"
        ? options.framesPerEvent
        : options.framesPerEvent(s, e)
      const frames: Array<string> = []
      nodes[eventId] = {
        level: 2,
        time_range: [eventStart, eventStart + eventSeconds],
        card: card(eventId, 2, random),
        subtitle: subtitle(eventId, 2, random),
        children_ids: frames
      }
      for (let f = 0; f < frameCount; f++) {
        const frameId = `${eventId}_L3_${pad(f)}`
        frames.push(frameId)
        const t = Math.round((eventStart + ((f + 0.5) * eventSeconds) / frameCount) * 10) / 10
        nodes[frameId] = {
          level: 3,
          time_range: [t, t],
          card: card(frameId, 3, random),
          subtitle: subtitle(frameId, 3, random)
        }
      }
    }
  }
  return {
    videoID: videoId,
    duration_category: "long",
    duration_seconds: options.scenes * sceneSeconds,
    domain: "Synthetic",
    nodes
  }
}

/**
 * The same tree in the nested form: `{ metadata, roots: [{ id, card, time_range, children }] }`, L3
 * nodes with `timestamp` instead of a zero-length time_range, no `level` fields (depth says it).
 */
export const toNestedForm = (flat: Json): Json => {
  const nodes = flat["nodes"] as Record<string, Json>
  const nest = (id: string): Json => {
    const node = nodes[id]!
    const [start, end] = node["time_range"] as [number, number]
    const children = (node["children_ids"] as Array<string> | undefined) ?? []
    const out: Json = { id, card: node["card"], subtitle: node["subtitle"] }
    if (node["level"] === 3 && start === end) out["timestamp"] = start
    else out["time_range"] = [start, end]
    if (node["frame_path"] !== undefined) out["frame_path"] = node["frame_path"]
    if (children.length > 0) out["children"] = children.map(nest)
    return out
  }
  const roots = Object.keys(nodes).filter((id) => nodes[id]!["level"] === 1).map(nest)
  return {
    metadata: {
      videoID: flat["videoID"],
      duration_category: flat["duration_category"],
      duration_seconds: flat["duration_seconds"],
      domain: flat["domain"]
    },
    roots
  }
}

/** Writes tree.json and, unless told otherwise, a placeholder frame file for every L3 node. */
export const writeTree = (
  dir: string,
  tree: Json,
  options: { readonly frames?: boolean | ((id: string) => boolean) } = {}
): void => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "tree.json"), JSON.stringify(tree))
  const frames = options.frames ?? true
  if (frames === false) return
  const videoId = tree["videoID"] as string
  for (const [id, node] of Object.entries(tree["nodes"] as Record<string, Json>)) {
    if (node["level"] !== 3 || (typeof frames === "function" && !frames(id))) continue
    const relative = (node["frame_path"] as string | undefined) ?? `frames/${id.slice(videoId.length + 1)}.jpg`
    mkdirSync(dirname(join(dir, relative)), { recursive: true })
    // Retrieval and frame resolution only check that the file exists; the bytes are a JPEG SOI/EOI pair.
    writeFileSync(join(dir, relative), Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]))
  }
}
