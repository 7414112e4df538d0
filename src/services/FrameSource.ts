import { Context, type Effect } from "effect"
import type { DamagedSpan, ExtractedFrame, MediaError } from "../domain/Media.js"

export interface FrameRequest {
  readonly path: string
  /** A frame is taken at 0, interval, 2·interval, … seconds (the source frame shown at that time). */
  readonly intervalSeconds: number
  /** Output width in pixels; height keeps the aspect ratio. */
  readonly width: number
  /** Folder the JPEG files are written to; the names are the adapter's, the times are in the result. */
  readonly outDir: string
}

export interface FrameExtraction {
  /** In time order, each with the real time of the source frame it shows. */
  readonly frames: ReadonlyArray<ExtractedFrame>
  /** Times (seconds) where a shot changes, from the decoder's scene score, in order. */
  readonly shotChanges: ReadonlyArray<number>
  /** Stretches the decoder lost to damaged data (no frame there), in order; empty for a sound file. */
  readonly damaged: ReadonlyArray<DamagedSpan>
}

/** Samples a video on a time grid and finds its shot changes, in as few decode passes as it can. */
export class FrameSource extends Context.Tag("vtree/FrameSource")<
  FrameSource,
  {
    readonly extract: (request: FrameRequest) => Effect.Effect<FrameExtraction, MediaError>
  }
>() {}
