// Judging open-ended answers: a judge model's verdict on one answer against its reference, as stored per
// (run, question, judge model), and what several judges' verdicts amount to. Pure; the judge program
// (programs/judge) asks the models, the store (services/JudgementStore.ts) keeps the rows.
import { Schema } from "effect"

export const Verdict = Schema.Literal("correct", "incorrect")
export type Verdict = typeof Verdict.Type

/** A row of `judgements`. Times are epoch milliseconds. */
export const JudgementRow = Schema.Struct({
  questionId: Schema.String,
  judgeModel: Schema.String,
  /** Null: the judge failed (its call failed, or its reply held no verdict even repaired); counted apart. */
  verdict: Schema.NullOr(Verdict),
  /** The judge's reason, or what went wrong when it failed. */
  reason: Schema.String,
  promptTokens: Schema.Number,
  completionTokens: Schema.Number,
  /** USD at the prices given when it was judged; null when unknown; 0 when it came from the cache. */
  costUsd: Schema.NullOr(Schema.Number),
  /** sha256 of (question, answer, reference, judge model, judge prompt hash): see judgementKey. */
  cacheKey: Schema.String,
  /** The verdict was found in the cache: no call was made. */
  cached: Schema.Boolean,
  judgedAt: Schema.Number
})
export type JudgementRow = typeof JudgementRow.Type

/** A verdict kept in the judge cache, reused for any run that asks the same thing of the same judge. */
export const CachedVerdict = Schema.Struct({
  cacheKey: Schema.String,
  judgeModel: Schema.String,
  verdict: Verdict,
  reason: Schema.String,
  promptTokens: Schema.Number,
  completionTokens: Schema.Number
})
export type CachedVerdict = typeof CachedVerdict.Type

/** What a question's judges decided: a majority either way, a tie (stated, never scored) or nothing. */
export type Majority = "correct" | "incorrect" | "tie" | "none"

/** Majority of the verdicts given (failed judges do not vote); an even split is a tie. */
export const majorityOf = (verdicts: Iterable<Verdict | null>): Majority => {
  let correct = 0
  let incorrect = 0
  for (const verdict of verdicts) {
    if (verdict === "correct") correct += 1
    else if (verdict === "incorrect") incorrect += 1
  }
  if (correct + incorrect === 0) return "none"
  return correct > incorrect ? "correct" : incorrect > correct ? "incorrect" : "tie"
}

/** An open-ended question is one without options: its `answer` is the reference text, scored by judges only. */
export const isOpenEnded = (p: { readonly options: ReadonlyArray<string> }): boolean => p.options.length === 0

/**
 * The answer a judge reads: the agent's submitted text, whole; absent on rows written before it was kept,
 * where the stored prediction stands in.
 */
export const answerTextOf = (
  p: { readonly answerText?: string | null; readonly prediction: string | null }
): string | null => {
  const text = p.answerText ?? p.prediction
  return text === null || text.trim() === "" ? null : text
}
