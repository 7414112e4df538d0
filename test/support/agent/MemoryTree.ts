// A TreeEnvironment over a few nodes held in memory, for agent/tool unit tests: the real loader is
// exercised by the tree tests, here only the interface matters.
import { Effect } from "effect"
import {
  FrameSelectionError,
  type FrameSelectionErrorReason,
  type Level,
  NodeNotFound,
  type SearchHit,
  type TreeNode
} from "../../../src/domain/TreeIndex.js"
import type { TreeEnvironment } from "../../../src/programs/tree/TreeEnvironment.js"

export interface NodeSpec {
  readonly id: string
  readonly level: Level
  readonly timeRange: readonly [number, number]
  readonly card: Readonly<Record<string, unknown>>
  readonly subtitle?: string
  readonly children?: ReadonlyArray<string>
}

const entityField: Record<Level, string> = { 1: "key_entities", 2: "entities", 3: "visible_entities" }

const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

const uniqueTrimmed = (values: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set(values.map((value) => value.trim()).filter((value) => value !== ""))
]

const cardLines = (card: Readonly<Record<string, unknown>>): ReadonlyArray<string> =>
  Object.entries(card).map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)

export const makeMemoryTree = (
  specs: ReadonlyArray<NodeSpec>,
  options: { readonly dir?: string; readonly search?: (query: string, k: number) => ReadonlyArray<SearchHit> } = {}
): TreeEnvironment => {
  const dir = options.dir ?? "/trees/vid"
  const parents = new Map<string, string>()
  for (const spec of specs) for (const child of spec.children ?? []) parents.set(child, spec.id)
  const nodes = new Map<string, TreeNode>(specs.map((spec) => [spec.id, {
    id: spec.id,
    level: spec.level,
    timeRange: spec.timeRange,
    card: spec.card,
    subtitle: spec.subtitle ?? "",
    childrenIds: spec.children ?? [],
    parentId: parents.get(spec.id) ?? null,
    framePath: null
  }]))
  const getNode = (id: string) => {
    const node = nodes.get(id)
    return node === undefined
      ? Effect.fail(new NodeNotFound({ reason: "UnknownId", nodeId: id, message: `no node "${id}" in this tree` }))
      : Effect.succeed(node)
  }
  const text = (node: TreeNode) =>
    [...cardLines(node.card), ...(node.subtitle === "" ? [] : [`subtitle: ${node.subtitle}`])].join("\n")
  const firstField = (node: TreeNode) => String(Object.values(node.card)[0] ?? "")
  const naiveSearch = (query: string, k: number): ReadonlyArray<SearchHit> => {
    const terms = query.toLowerCase().split(/\s+/).filter((term) => term !== "")
    return [...nodes.values()]
      .map((node) => {
        const body = text(node).toLowerCase()
        return { node, score: terms.filter((term) => body.includes(term)).length / Math.max(1, terms.length) }
      })
      .filter((scored) => scored.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map(({ node, score }) => ({ nodeId: node.id, level: node.level, score, timeRange: node.timeRange }))
  }
  return {
    dir,
    index: {
      videoId: "vid",
      durationCategory: null,
      durationSeconds: null,
      domain: null,
      nodes,
      rootIds: [...nodes.values()].filter((node) => node.level === 1).map((node) => node.id).sort()
    },
    getNode,
    nodeText: (id) => Effect.map(getNode(id), text),
    anchoredText: (id) =>
      Effect.map(getNode(id), (node) => {
        const anchors = new Map<string, string>()
        const lines: Array<string> = []
        cardLines(node.card).forEach((line, i) => {
          anchors.set(`c${i + 1}`, line)
          lines.push(`[c${i + 1}] ${line}`)
        })
        node.subtitle.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "").forEach((sentence, i) => {
          anchors.set(`s${i + 1}`, sentence)
          lines.push(`[s${i + 1}] ${sentence}`)
        })
        return { text: lines.join("\n"), anchors }
      }),
    children: (id) =>
      Effect.map(getNode(id), (node) =>
        node.childrenIds.map((childId) => {
          const child = nodes.get(childId)!
          return { id: child.id, level: child.level, timeRange: child.timeRange, summary: firstField(child) }
        })),
    entityAppendix: (id) =>
      Effect.map(getNode(id), (node) => ({
        entities: uniqueTrimmed(strings(node.card[entityField[node.level]])),
        visibleText: uniqueTrimmed(strings(node.card["visible_text"]))
      })),
    subtitle: (id) => Effect.map(getNode(id), (node) => node.subtitle),
    resolveFrames: (ids) =>
      Effect.suspend(() => {
        const fail = (reason: FrameSelectionErrorReason, message: string) =>
          Effect.fail(new FrameSelectionError({ reason, message }))
        const found = ids.map((id) => nodes.get(id))
        const missing = ids.find((_, i) => found[i] === undefined)
        if (missing !== undefined) return fail("UnknownId", `no node "${missing}" in this tree`)
        const levels = new Set(found.map((node) => node!.level))
        if (levels.size > 1) return fail("MixedLevels", "observe_frame takes L3 ids or one L2 id, not a mix of levels")
        if (levels.has(1)) {
          return fail("SceneNode", "observe_frame does not take L1 (scene) ids; pass L3 frame ids or one L2 id")
        }
        let frameIds: ReadonlyArray<string>
        if (levels.has(2)) {
          if (ids.length !== 1) {
            return fail("TooManyIds", "observe_frame takes exactly one L2 id")
          }
          frameIds = found[0]!.childrenIds.slice(0, 8)
        } else {
          if (ids.length < 1 || ids.length > 4) return fail("TooManyIds", "observe_frame takes 1 to 4 L3 ids")
          frameIds = ids
        }
        return Effect.succeed({ nodeIds: frameIds, paths: frameIds.map((id) => `${dir}/frames/${id}.jpg`) })
      }),
    search: (query, k = 5) => Effect.succeed((options.search ?? naiveSearch)(query, k)),
    keywordSearch: (query, k = 5) => Effect.succeed((options.search ?? naiveSearch)(query, k))
  }
}

/** A two-scene tree: scene 0 with two events (the second with three frames), scene 1 with one event. */
export const sampleTree = (options: Parameters<typeof makeMemoryTree>[1] = {}): TreeEnvironment =>
  makeMemoryTree([
    {
      id: "vid_L1_000",
      level: 1,
      timeRange: [0, 300],
      card: {
        scene_summary: "A cook prepares pasta in a small kitchen.",
        key_entities: ["cook", " pot ", "cook"],
        visible_text: ["PASTA NIGHT"]
      },
      subtitle: "Tonight we make pasta. First, boil the water.",
      children: ["vid_L1_000_L2_000", "vid_L1_000_L2_001"]
    },
    {
      id: "vid_L1_000_L2_000",
      level: 2,
      timeRange: [0, 120],
      card: { event_description: "The cook fills a pot with water.", entities: ["cook", "pot"] },
      subtitle: "Fill it up."
    },
    {
      id: "vid_L1_000_L2_001",
      level: 2,
      timeRange: [120, 300],
      card: { event_description: "The cook adds three tomatoes to the sauce.", entities: ["tomato"] },
      subtitle: "Three tomatoes. Stir well.",
      children: ["vid_L1_000_L2_001_L3_000", "vid_L1_000_L2_001_L3_001", "vid_L1_000_L2_001_L3_002"]
    },
    {
      id: "vid_L1_000_L2_001_L3_000",
      level: 3,
      timeRange: [130, 130],
      card: { frame_summary: "A hand holds a red tomato.", visible_entities: ["tomato", "hand"] },
      subtitle: "Three tomatoes."
    },
    {
      id: "vid_L1_000_L2_001_L3_001",
      level: 3,
      timeRange: [200, 200],
      card: { frame_summary: "Sauce simmers in a pan.", visible_entities: ["pan"] }
    },
    {
      id: "vid_L1_000_L2_001_L3_002",
      level: 3,
      timeRange: [280, 280],
      card: { frame_summary: "The cook tastes the sauce.", visible_text: ["SALT"] }
    },
    {
      id: "vid_L1_001",
      level: 1,
      timeRange: [300, 600],
      card: { scene_summary: "The family eats dinner at a table." },
      subtitle: "Dinner is served.",
      children: ["vid_L1_001_L2_000"]
    },
    {
      id: "vid_L1_001_L2_000",
      level: 2,
      timeRange: [300, 600],
      card: { event_description: "Four people share the pasta.", entities: ["family"] }
    }
  ], options)
