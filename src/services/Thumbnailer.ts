import { Context, type Effect } from "effect"
import type { MediaError } from "../domain/Media.js"

/** A small JPEG of a frame, for pages a person reads (the html report, `vtree tree html`). */
export interface Thumbnail {
  readonly jpeg: Uint8Array
  readonly width: number
  readonly height: number
}

/**
 * Downscales images. The live Layer uses sharp (libvips, shipped as prebuilt npm packages), loaded on the
 * first call; tests of the pages may swap in a fake.
 */
export class Thumbnailer extends Context.Tag("vtree/Thumbnailer")<
  Thumbnailer,
  {
    /**
     * The image at `path` as a JPEG at most `maxWidth` pixels wide and, when given, `maxHeight` high
     * (never enlarged), its aspect kept.
     */
    readonly thumbnail: (path: string, maxWidth: number, maxHeight?: number) => Effect.Effect<Thumbnail, MediaError>
  }
>() {}
