// Degrade, don't fail: a search whose embedding call failed or timed out answers with keyword (BM25)
// hits and says why, rather than failing the tool call and, with it, the agent's question.
import { Effect } from "effect"
import type { SearchHit } from "../../domain/TreeIndex.js"
import { withRetrievalSpan } from "../../services/Telemetry.js"
import type { TreeEnvironment } from "./TreeEnvironment.js"

/** What a search found; `fallback` is why they are keyword hits where embeddings were configured. */
export interface FoundNodes {
  readonly hits: ReadonlyArray<SearchHit>
  readonly fallback: string | null
}

const notePrefix = "semantic search unavailable ("

/** The line a tool output starts with when its hits are keyword hits (the report counts these). */
export const keywordNote = (reason: string): string =>
  `${notePrefix}${reason.replace(/\s+/g, " ").trim()}); keyword results`

/** Whether a stored tool output is a search answered by keywords after its embedding failed. */
export const isKeywordFallback = (output: string): boolean => output.startsWith(notePrefix)

/**
 * The environment's search (hybrid when it has embeddings), or its keyword search when that fails; one GenAI
 * `retrieval` span either way.
 */
export const searchOrKeywords = Effect.fnUntraced(function*(
  tree: TreeEnvironment,
  query: string,
  k: number
) {
  return yield* tree.search(query, k).pipe(
    Effect.map((hits): FoundNodes => ({ hits, fallback: null })),
    Effect.catchAll((error) =>
      Effect.map(tree.keywordSearch(query, k), (hits): FoundNodes => ({ hits, fallback: error.message }))
    )
  )
}, (effect, tree, _query, k) => withRetrievalSpan(tree.index.videoId, k)(effect))
