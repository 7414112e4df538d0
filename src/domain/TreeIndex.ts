// A tree once loaded: the in-memory index every tree program reads, what its queries return, and the
// errors a lookup can end in. tree.json's on-disk forms are in Tree.ts.
import { Schema } from "effect"
import type { TreeEntity } from "./Tree.js"

export type Level = 1 | 2 | 3

export interface TreeNode {
  readonly id: string
  readonly level: Level
  /** [start, end] seconds; an L3 node with only `timestamp` has start = end. */
  readonly timeRange: readonly [number, number]
  /** The card as written; unknown fields kept, missing list fields default to []. */
  readonly card: Readonly<Record<string, unknown>>
  readonly subtitle: string
  readonly childrenIds: ReadonlyArray<string>
  readonly parentId: string | null
  /** `frame_path` from the file (relative to the tree dir), when given. */
  readonly framePath: string | null
}

export interface TreeIndex {
  readonly videoId: string
  readonly durationCategory: string | null
  readonly durationSeconds: number | null
  readonly domain: string | null
  readonly nodes: ReadonlyMap<string, TreeNode>
  /** L1 ids, sorted. */
  readonly rootIds: ReadonlyArray<string>
  /** The entity registry (tree.json `entities`); absent when the tree has none. */
  readonly entities?: ReadonlyArray<TreeEntity>
  /** `false` when the tree has no frame images by design (`has_frames: false`); absent means it should. */
  readonly hasFrames?: boolean
}

/** `[c1]…` card lines and `[s1]…` subtitle sentences, and what each anchor stands for. */
export interface AnchoredText {
  readonly text: string
  readonly anchors: ReadonlyMap<string, string>
}

export interface ChildInfo {
  readonly id: string
  readonly level: Level
  readonly timeRange: readonly [number, number]
  /** The level's summary field, or the first 120 characters of the card text. */
  readonly summary: string
}

/** Raw card values, trimmed, de-duplicated in order; an empty list means "omit the line". */
export interface EntityAppendix {
  readonly entities: ReadonlyArray<string>
  readonly visibleText: ReadonlyArray<string>
}

export interface FrameSelection {
  /** The L3 node ids the frames belong to, in order. */
  readonly nodeIds: ReadonlyArray<string>
  /** Absolute paths of the frame files, same order. */
  readonly paths: ReadonlyArray<string>
}

export interface SearchHit {
  readonly nodeId: string
  readonly level: Level
  readonly score: number
  readonly timeRange: readonly [number, number]
}

/** A node id that names no node of this tree (the only way to miss one; the tag says it all). */
export const NodeNotFoundReason = Schema.Literal("UnknownId")
export type NodeNotFoundReason = typeof NodeNotFoundReason.Type

export class NodeNotFound extends Schema.TaggedError<NodeNotFound>()("NodeNotFound", {
  reason: NodeNotFoundReason,
  nodeId: Schema.String,
  message: Schema.String
}) {}

/** Which of observe_frame's selection rules was broken. */
export const FrameSelectionErrorReason = Schema.Literal(
  "NoIds",
  "UnknownId",
  // a scene (L1) node has no single frame
  "SceneNode",
  "MixedLevels",
  "TooManyIds",
  // an event (L2) node without frame (L3) children
  "NoFrames",
  // the tree names a frame image that is not on disk
  "MissingImage",
  // the tree was made without frame images (imported from captions without the videos)
  "TreeWithoutFrames",
  // a node id or frame_path that would read a file outside the tree's folder
  "OutsideTree"
)
export type FrameSelectionErrorReason = typeof FrameSelectionErrorReason.Type

/** observe_frame's selection rules were broken (L1 id, mixed levels, too many ids, missing frame file). */
export class FrameSelectionError extends Schema.TaggedError<FrameSelectionError>()("FrameSelectionError", {
  reason: FrameSelectionErrorReason,
  message: Schema.String
}) {}
