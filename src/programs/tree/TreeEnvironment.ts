import type { Effect } from "effect"
import type { ProviderError } from "../../domain/ProviderError.js"
import type {
  AnchoredText,
  ChildInfo,
  EntityAppendix,
  FrameSelection,
  FrameSelectionError,
  NodeNotFound,
  SearchHit,
  TreeIndex,
  TreeNode
} from "../../domain/TreeIndex.js"

/**
 * One loaded video tree and the questions the agent's tools ask of it. A plain value rather than a
 * Context tag: a benchmark run holds one per video at once and hands each question its own, through
 * ToolContext. `loadTreeEnvironment` (TreeLoader.ts) builds the real one; tests build in-memory ones.
 */
export interface TreeEnvironment {
  readonly dir: string
  readonly index: TreeIndex
  readonly getNode: (id: string) => Effect.Effect<TreeNode, NodeNotFound>
  /** Card lines + subtitle, the text summarizers read. */
  readonly nodeText: (id: string) => Effect.Effect<string, NodeNotFound>
  readonly anchoredText: (id: string) => Effect.Effect<AnchoredText, NodeNotFound>
  readonly children: (id: string) => Effect.Effect<ReadonlyArray<ChildInfo>, NodeNotFound>
  readonly entityAppendix: (id: string) => Effect.Effect<EntityAppendix, NodeNotFound>
  readonly subtitle: (id: string) => Effect.Effect<string, NodeNotFound>
  /** 1–4 L3 ids, or exactly one L2 id (its L3 children, at most 8, evenly sampled). */
  readonly resolveFrames: (ids: ReadonlyArray<string>) => Effect.Effect<FrameSelection, FrameSelectionError>
  /** BM25, embedding or hybrid retrieval (whichever the environment was loaded with); k defaults to 5. */
  readonly search: (query: string, k?: number) => Effect.Effect<ReadonlyArray<SearchHit>, ProviderError>
  /** BM25 alone: what `search` falls back to when its embeddings fail (KeywordFallback.ts). */
  readonly keywordSearch: (query: string, k?: number) => Effect.Effect<ReadonlyArray<SearchHit>>
}
