import { Context, type Effect } from "effect"
import type { ProviderError } from "../domain/ProviderError.js"

export class EmbeddingProvider extends Context.Tag("vtree/EmbeddingProvider")<
  EmbeddingProvider,
  {
    /** Names the vectors: caches are keyed by it, so two models never share a cache. */
    readonly model: string
    /** Known up front when configured; otherwise learned from the first reply. */
    readonly dimensions: number | undefined
    /** One vector per text, in order. Adapters batch internally. */
    readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, ProviderError>
  }
>() {}
