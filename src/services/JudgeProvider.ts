// The judge port: the models that score open-ended answers against their reference (VTREE_JUDGE_*). Each
// judge is a text model asked once per answer; its calls are reported under the role "judge".
import { Context, type Effect } from "effect"
import type { ProviderError } from "../domain/ProviderError.js"
import type { ChatMessage, ChatResponse } from "./LLMProvider.js"

export interface Judge {
  /** The model name: what verdicts, cache keys and reports name the judge by. */
  readonly model: string
  readonly ask: (messages: ReadonlyArray<ChatMessage>) => Effect.Effect<ChatResponse, ProviderError>
}

export class JudgeProvider extends Context.Tag("vtree/JudgeProvider")<JudgeProvider, {
  /** Every configured judge, in the order configured; their majority decides. */
  readonly judges: ReadonlyArray<Judge>
}>() {}
