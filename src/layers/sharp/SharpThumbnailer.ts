// Thumbnails with sharp: libvips decodes a JPEG already shrunk by a power of two (shrink-on-load), so a
// 640-pixel frame becomes a 320-pixel thumbnail in milliseconds. jpeg-js, the pure-JavaScript codec the
// tests use, took about 200 ms per frame here (its encoder rebuilds its tables on every call), which a
// run with thousands of observed frames cannot afford. sharp is imported on first use: commands that
// draw no page never load libvips.
import { Effect, Layer } from "effect"
import type { SharpConstructor } from "sharp"
import { MediaError } from "../../domain/Media.js"
import { Thumbnailer } from "../../services/Thumbnailer.js"

let loaded: Promise<SharpConstructor> | undefined
const loadSharp = () => (loaded ??= import("sharp").then((module) => module.default))

// A frame is a few hundred kilopixels; a 50-megapixel "frame" is a mistake or an attack, refused.
const maxInputPixels = 50_000_000

export const make = Thumbnailer.of({
  thumbnail: (path, maxWidth, maxHeight) =>
    Effect.tryPromise({
      try: async () => {
        const sharp = await loadSharp()
        const { data, info } = await sharp(path, { limitInputPixels: maxInputPixels, failOn: "error" })
          .rotate()
          .resize({
            width: Math.max(1, Math.floor(maxWidth)),
            ...(maxHeight === undefined ? {} : { height: Math.max(1, Math.floor(maxHeight)), fit: "inside" as const }),
            withoutEnlargement: true
          })
          .jpeg({ quality: 72 })
          .toBuffer({ resolveWithObject: true })
        return {
          jpeg: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
          width: info.width,
          height: info.height
        }
      },
      catch: (error) => {
        const text = error instanceof Error ? error.message : String(error)
        const missing = /no such file|ENOENT|Input file is missing/i.test(text)
        return new MediaError({
          reason: missing ? "Unreadable" : "NotMedia",
          path,
          message: missing
            ? `${path}: not found — the frame is not on disk; re-run \`vtree build\` or check the trees folder`
            : `${path}: not an image vtree can read (${text.split("\n")[0]}) — replace the frame file`
        })
      }
    }).pipe(Effect.withSpan("SharpThumbnailer.thumbnail"))
})

export const layer = Layer.succeed(Thumbnailer, make)
