// Searches the agent got keyword (BM25) hits for because their embedding call failed or timed out
// (tree/KeywordFallback.ts), counted from the stored search_similar steps: a run whose embedding endpoint
// was slow or down says so, rather than reading as a hybrid-search run.
import type { StepRow } from "../../domain/RunRecord.js"
import { formatCount } from "../../text/Format.js"
import { isKeywordFallback } from "../tree/KeywordFallback.js"

export interface KeywordFallbacks {
  readonly searches: number
  readonly questions: number
}

/** The fallbacks of a run's steps; null when none fell back or the steps were not loaded. */
export const keywordFallbacks = (steps: ReadonlyArray<StepRow> | undefined): KeywordFallbacks | null => {
  const fell = (steps ?? []).filter((s) => s.tool === "search_similar" && isKeywordFallback(s.output))
  if (fell.length === 0) return null
  return { searches: fell.length, questions: new Set(fell.map((s) => s.questionId)).size }
}

const plural = (count: number, word: string) => `${formatCount(count)} ${word}${count === 1 ? "" : "es"}`

/** The text report's line, or nothing. */
export const keywordFallbacksText = (fallbacks: KeywordFallbacks | null | undefined): ReadonlyArray<string> =>
  fallbacks === null || fallbacks === undefined ? [] : [
    `Keyword fallbacks: ${plural(fallbacks.searches, "search")} in ${formatCount(fallbacks.questions)} question${
      fallbacks.questions === 1 ? "" : "s"
    } answered by keywords (BM25) because semantic search was unavailable (see the embed role's errors)`
  ]
