import { Context, type Effect } from "effect"
import type { ProviderError } from "../domain/ProviderError.js"
import type { ChatResponse } from "./LLMProvider.js"

export interface VisionRequest {
  readonly system: string
  readonly text: string
  /** Paths of image files on disk; adapters send them as data URLs with their real MIME type. */
  readonly images: ReadonlyArray<string>
  readonly maxTokens?: number
}

export class VLMProvider extends Context.Tag("vtree/VLMProvider")<
  VLMProvider,
  {
    readonly chatWithImages: (request: VisionRequest) => Effect.Effect<ChatResponse, ProviderError>
  }
>() {}
