// Where verdicts are kept: per (run, question, judge model) with their reason, tokens and cost, and a
// cache of verdicts by judgement key that any run shares. Rows are domain/Judgement.ts's; the adapter is
// layers/sql/JudgementRepository.ts, over the run store's database.
import { Context, type Effect, type Option } from "effect"
import type { CachedVerdict, JudgementRow } from "../domain/Judgement.js"
import type { RunStoreError } from "./RunStore.js"

export interface JudgementStoreShape {
  /** The cached verdict of a judgement key, if any judge gave one before. */
  readonly cached: (cacheKey: string) => Effect.Effect<Option.Option<CachedVerdict>, RunStoreError>
  /**
   * Saves one judgement (replacing the judge's earlier one of the question) and, when given, its verdict
   * in the cache, in one transaction.
   */
  readonly save: (
    runId: string,
    row: JudgementRow,
    cache?: CachedVerdict
  ) => Effect.Effect<void, RunStoreError>
  /** A run's judgements, by question id then judge model; none for a database written before judging. */
  readonly judgements: (runId: string) => Effect.Effect<ReadonlyArray<JudgementRow>, RunStoreError>
}

export class JudgementStore extends Context.Tag("vtree/JudgementStore")<JudgementStore, JudgementStoreShape>() {}
