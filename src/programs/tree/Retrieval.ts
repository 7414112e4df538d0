import type { SearchHit, TreeIndex } from "../../domain/TreeIndex.js"
import { type Bm25Index, buildBm25, scoreBm25 } from "./Bm25.js"
import { chunkText } from "./Chunking.js"
import { dotAll, type EmbeddingMatrix } from "./EmbeddingIndex.js"
import { registryNames, retrievalText } from "./NodeText.js"

export const defaultK = 5
/** The usual reciprocal-rank-fusion constant: damps the weight of the very first ranks. */
export const fusionK = 60

/** Everything a query needs, in flat arrays indexed by node number and chunk number. */
export interface RetrievalIndex {
  readonly tree: TreeIndex
  /** Node ids, sorted; a node's number is its position here. */
  readonly nodeIds: ReadonlyArray<string>
  /** Parent node number, -1 for roots. */
  readonly parent: Int32Array
  /** Chunks of one node are contiguous, nodes in order. */
  readonly chunkTexts: ReadonlyArray<string>
  readonly chunkNode: Int32Array
  readonly bm25: Bm25Index
}

export const buildRetrieval = (tree: TreeIndex): RetrievalIndex => {
  const nodeIds = [...tree.nodes.keys()].sort()
  const numberOf = new Map(nodeIds.map((id, i) => [id, i]))
  const parent = new Int32Array(nodeIds.length)
  const chunkTexts: Array<string> = []
  const chunkNode: Array<number> = []
  nodeIds.forEach((id, i) => {
    const node = tree.nodes.get(id)!
    parent[i] = node.parentId === null ? -1 : numberOf.get(node.parentId)!
    for (const chunk of chunkText(retrievalText(node))) {
      chunkTexts.push(chunk)
      chunkNode.push(i)
    }
    // A chunk of its own: a node's card chunks (and their cached embeddings) stay as they were.
    const names = registryNames(id, tree.entities ?? [])
    for (const chunk of names === "" ? [] : chunkText(names)) {
      chunkTexts.push(chunk)
      chunkNode.push(i)
    }
  })
  return { tree, nodeIds, parent, chunkTexts, chunkNode: Int32Array.from(chunkNode), bm25: buildBm25(chunkTexts) }
}

/** A node scores as its best chunk. */
export const nodeScores = (index: RetrievalIndex, chunkScores: ArrayLike<number>): Float64Array => {
  const scores = new Float64Array(index.nodeIds.length).fill(-Infinity)
  const chunkNode = index.chunkNode
  for (let chunk = 0; chunk < chunkNode.length; chunk++) {
    const node = chunkNode[chunk]!
    if (chunkScores[chunk]! > scores[node]!) scores[node] = chunkScores[chunk]!
  }
  return scores
}

/**
 * Positions of the `limit` highest scores above `floor`, best first, ties by position. One pass that
 * keeps a short sorted list: sorting all 20,000 node scores would cost a third of an embedding query
 * (BENCHMARKS.md, tree section).
 */
export const topIndices = (scores: ArrayLike<number>, limit: number, floor = -Infinity): Array<number> => {
  const top: Array<number> = []
  if (limit <= 0) return top
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i]!
    if (!(score > floor) || (top.length === limit && !(score > scores[top[limit - 1]!]!))) continue
    // Binary search for the first kept score below this one: equal scores keep their earlier position.
    let lo = 0
    let hi = top.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (scores[top[mid]!]! >= score) lo = mid + 1
      else hi = mid
    }
    top.splice(lo, 0, i)
    if (top.length > limit) top.pop()
  }
  return top
}

/** Walks candidates best first and keeps a node only when no kept node is its ancestor or descendant. */
export const keepUnrelated = (index: RetrievalIndex, candidates: Iterable<number>, k: number): Array<number> => {
  const kept: Array<number> = []
  const keptSet = new Set<number>()
  const keptAncestors = new Set<number>()
  for (const node of candidates) {
    if (kept.length >= k) break
    if (keptSet.has(node) || keptAncestors.has(node)) continue
    let related = false
    for (let up = index.parent[node]!; up >= 0; up = index.parent[up]!) {
      if (keptSet.has(up)) {
        related = true
        break
      }
    }
    if (related) continue
    kept.push(node)
    keptSet.add(node)
    for (let up = index.parent[node]!; up >= 0; up = index.parent[up]!) keptAncestors.add(up)
  }
  return kept
}

const toHits = (
  index: RetrievalIndex,
  nodes: ReadonlyArray<number>,
  score: (node: number) => number
): Array<SearchHit> =>
  nodes.map((n) => {
    const node = index.tree.nodes.get(index.nodeIds[n]!)!
    return { nodeId: node.id, level: node.level, score: score(n), timeRange: node.timeRange }
  })

// De-duplication can discard many candidates (a matching scene and all its events); widen the
// candidate list until k survive or none are left.
const rankAndKeep = (index: RetrievalIndex, scores: ArrayLike<number>, k: number, floor: number): Array<number> => {
  for (let limit = Math.max(4 * k, 32);; limit *= 4) {
    const candidates = topIndices(scores, limit, floor)
    const kept = keepUnrelated(index, candidates, k)
    if (kept.length >= k || candidates.length < limit) return kept
  }
}

export const searchBm25 = (index: RetrievalIndex, query: string, k = defaultK): Array<SearchHit> => {
  const scores = nodeScores(index, scoreBm25(index.bm25, query))
  return toHits(index, rankAndKeep(index, scores, k, 0), (n) => scores[n]!)
}

/** Cosine node scores for a query vector (normalized here, so any length works). */
export const embeddingNodeScores = (
  index: RetrievalIndex,
  matrix: EmbeddingMatrix,
  query: Float32Array
): Float64Array => {
  const normalized = normalizeQuery(query)
  return nodeScores(index, dotAll(matrix, normalized, new Float32Array(matrix.count)))
}

const normalizeQuery = (query: Float32Array): Float32Array => {
  let sum = 0
  for (let i = 0; i < query.length; i++) sum += query[i]! * query[i]!
  const scale = sum === 0 ? 0 : 1 / Math.sqrt(sum)
  return query.map((value) => value * scale)
}

export const searchEmbedding = (
  index: RetrievalIndex,
  matrix: EmbeddingMatrix,
  query: Float32Array,
  k = defaultK
): Array<SearchHit> => {
  const scores = embeddingNodeScores(index, matrix, query)
  return toHits(index, rankAndKeep(index, scores, k, -Infinity), (n) => scores[n]!)
}

/**
 * Reciprocal rank fusion of the BM25 and cosine node rankings: score = Σ 1 / (60 + rank). Rank-based,
 * so BM25's unbounded scores and cosine's [-1, 1] need no calibration against each other.
 */
export const searchHybrid = (
  index: RetrievalIndex,
  matrix: EmbeddingMatrix,
  query: string,
  queryVector: Float32Array,
  k = defaultK
): Array<SearchHit> => {
  const lexical = nodeScores(index, scoreBm25(index.bm25, query))
  const semantic = embeddingNodeScores(index, matrix, queryVector)
  const depth = Math.max(20 * k, 200)
  const fused = new Float64Array(index.nodeIds.length)
  topIndices(lexical, depth, 0).forEach((node, rank) => (fused[node] += 1 / (fusionK + rank + 1)))
  topIndices(semantic, depth).forEach((node, rank) => (fused[node] += 1 / (fusionK + rank + 1)))
  return toHits(index, rankAndKeep(index, fused, k, 0), (n) => fused[n]!)
}
