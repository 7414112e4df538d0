// Frames as a page shows them: a JPEG thumbnail embedded as a data URI (the page stays one file), or a
// relative link to the frame on disk (`--frames link`, for pages that would otherwise carry thousands of
// thumbnails). A frame that cannot be shown is a value saying why, never a failed page.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import { Thumbnailer } from "../../services/Thumbnailer.js"

/** Thumbnails are at most this wide; a page shows them at this size or less. */
export const thumbnailWidth = 320

export type FramesMode = "embed" | "link"

export type FrameImage =
  | { readonly _tag: "Embedded"; readonly src: string; readonly width: number; readonly height: number }
  | { readonly _tag: "Linked"; readonly src: string }
  | { readonly _tag: "Missing"; readonly message: string }

/** `to` relative to the folder `from`, as a URL path: `/` separators, each segment percent-encoded. */
export const relativeHref = (path: Path.Path, from: string, to: string): string =>
  path.relative(from, to).split(path.sep).map(encodeURIComponent).join("/")

/**
 * The image of each frame file (absolute paths; repeated ones are read once), for a page written to
 * `pageDir`: thumbnails made with the Thumbnailer (`embed`), or links relative to the page (`link`). A
 * frame that cannot be shown is named as `shown` gives it (relative to its tree's folder): a page is
 * shared, and the local path it was made on is nobody's business.
 */
export const frameImages = Effect.fn("FrameImages.load")(function*(
  files: Iterable<string>,
  options: { readonly mode: FramesMode; readonly pageDir: string; readonly shown: (file: string) => string }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const thumbnailer = yield* Thumbnailer
  const unique = [...new Set(files)]
  const images = yield* Effect.forEach(unique, (file): Effect.Effect<FrameImage> =>
    options.mode === "link"
      ? fs.exists(file).pipe(
        Effect.orElseSucceed(() => false),
        Effect.map((exists): FrameImage =>
          exists
            ? { _tag: "Linked", src: relativeHref(path, options.pageDir, file) }
            : { _tag: "Missing", message: `${options.shown(file)}: not found` }
        )
      )
      : thumbnailer.thumbnail(file, thumbnailWidth).pipe(
        Effect.map((thumb): FrameImage => ({
          _tag: "Embedded",
          src: `data:image/jpeg;base64,${Buffer.from(thumb.jpeg).toString("base64")}`,
          width: thumb.width,
          height: thumb.height
        })),
        Effect.catchAll((error) =>
          Effect.succeed<FrameImage>({
            _tag: "Missing",
            message: error.message.split(file).join(options.shown(file))
          })
        )
      ), { concurrency: 4 })
  return new Map(unique.map((file, i) => [file, images[i]!]))
})
