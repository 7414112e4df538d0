import { Either } from "effect"
import {
  FrameSelectionError,
  type FrameSelectionErrorReason,
  type TreeIndex,
  type TreeNode
} from "../../domain/TreeIndex.js"

/** observe_frame takes at most this many frame (L3) ids. */
export const maxFrameIds = 4
/** The frames an event (L2) id stands for, and the frames one call may show (agent and MCP alike). */
export const maxEventFrames = 8

/** `count` items spread over the list, first and last included. */
export const evenlySample = <A>(items: ReadonlyArray<A>, count: number): ReadonlyArray<A> => {
  if (items.length <= count) return items
  if (count === 1) return [items[0]!]
  return Array.from({ length: count }, (_, i) => items[Math.round((i * (items.length - 1)) / (count - 1))]!)
}

/**
 * The frames an event (L2) stands for: its frame (L3) children, evenly sampled to `cap` — the one rule
 * observe_frame and MCP video_frames share.
 */
export const eventFrames = (index: TreeIndex, event: TreeNode, cap: number = maxEventFrames): ReadonlyArray<TreeNode> =>
  evenlySample(
    event.childrenIds.flatMap((id) => {
      const child = index.nodes.get(id)
      return child?.level === 3 ? [child] : []
    }),
    cap
  )

/** How the reader of a message finds node ids: the agent has tools, a CLI user has commands. */
export interface IdFinding {
  readonly ids: string
  readonly children: string
}

export const agentFinding: IdFinding = {
  ids: "use ids shown by view_node or search_similar",
  children: "view_node lists them"
}

const fail = (reason: FrameSelectionErrorReason, message: string) =>
  Either.left(new FrameSelectionError({ reason, message }))

/**
 * The frame nodes observe_frame may look at: 1–4 L3 ids, or exactly one L2 id standing for its L3
 * children (at most 8, evenly sampled). Each message says what to send instead.
 */
export const selectFrameNodes = (
  index: TreeIndex,
  ids: ReadonlyArray<string>,
  finding: IdFinding = agentFinding
): Either.Either<ReadonlyArray<TreeNode>, FrameSelectionError> => {
  const unique = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ""))]
  if (unique.length === 0) {
    return fail("NoIds", "no node ids given — pass 1 to 4 frame (L3) ids, or one event (L2) id")
  }
  const unknown = unique.filter((id) => !index.nodes.has(id))
  if (unknown.length > 0) {
    return fail("UnknownId", `unknown node id${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} — ${finding.ids}`)
  }
  const nodes = unique.map((id) => index.nodes.get(id)!)
  const scenes = nodes.filter((node) => node.level === 1)
  if (scenes.length > 0) {
    return fail(
      "SceneNode",
      `${scenes.map((node) => node.id).join(", ")} ${
        scenes.length > 1 ? "are scene (L1) nodes" : "is a scene (L1) node"
      }, which has no single frame — ` +
        `pass one of its event (L2) children or 1 to 4 frame (L3) ids; ${finding.children}`
    )
  }
  const levels = new Set(nodes.map((node) => node.level))
  if (levels.size > 1) {
    return fail(
      "MixedLevels",
      "mixed event (L2) and frame (L3) ids — pass either 1 to 4 frame (L3) ids or exactly one event (L2) id"
    )
  }
  if (levels.has(2)) {
    if (nodes.length > 1) {
      return fail(
        "TooManyIds",
        `${nodes.length} event (L2) ids given — pass exactly one event id, or up to 4 frame (L3) ids`
      )
    }
    const event = nodes[0]!
    const frames = eventFrames(index, event)
    if (frames.length === 0) {
      return fail("NoFrames", `event ${event.id} has no frame (L3) children — choose another event`)
    }
    return Either.right(frames)
  }
  if (nodes.length > maxFrameIds) {
    return fail(
      "TooManyIds",
      `${nodes.length} frame ids given, at most ${maxFrameIds} — keep the ${maxFrameIds} most relevant, or pass their event (L2) id`
    )
  }
  return Either.right(nodes)
}
