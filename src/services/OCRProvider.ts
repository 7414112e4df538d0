import { Context, type Effect } from "effect"
import type { ProviderError } from "../domain/ProviderError.js"

export class OCRProvider extends Context.Tag("vtree/OCRProvider")<
  OCRProvider,
  {
    /** A transcript of the text visible in the frames, each frame labelled. */
    readonly transcribeFrames: (paths: ReadonlyArray<string>) => Effect.Effect<string, ProviderError>
  }
>() {}
