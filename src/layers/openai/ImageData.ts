import * as FileSystem from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { ProviderError } from "../../domain/ProviderError.js"

export type ImageMime = "image/jpeg" | "image/png" | "image/webp"

/**
 * The MIME type from the file's first bytes: frames are often named .jpg whatever they hold, and a
 * server that is told the wrong type may decode garbage without complaint.
 */
export const sniffImageMime = (bytes: Uint8Array): ImageMime | undefined => {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg"
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (bytes.length >= 8 && png.every((byte, i) => bytes[i] === byte)) return "image/png"
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp"
  return undefined
}

export const toDataUrl = (mime: ImageMime, bytes: Uint8Array): string =>
  `data:${mime};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`

const badRequest = (provider: string, message: string) =>
  new ProviderError({ provider, reason: "BadRequest", message: `${provider}: ${message}` })

/** Reads an image for upload: missing, oversized or non-image files fail before any request is sent. */
export const readImageAsDataUrl = Effect.fn("ImageData.readImageAsDataUrl")(function*(
  path: string,
  options: { readonly provider: string; readonly maxBytes: number }
) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(path).pipe(
    Effect.mapError((error) =>
      badRequest(
        options.provider,
        error._tag === "SystemError" && error.reason === "NotFound"
          ? `image not found: ${path} — check the path (frames live in the tree's frames/ folder)`
          : `cannot read image ${path}: ${error.message}`
      )
    )
  )
  if (info.type !== "File") return yield* badRequest(options.provider, `image path is not a file: ${path}`)
  if (Number(info.size) > options.maxBytes) {
    return yield* badRequest(
      options.provider,
      `image ${path} is ${
        Number(info.size)
      } bytes, over the ${options.maxBytes}-byte cap — shrink it or raise VTREE_VLM_MAX_IMAGE_BYTES`
    )
  }
  const bytes = yield* fs.readFile(path).pipe(
    Effect.mapError((error) => badRequest(options.provider, `cannot read image ${path}: ${error.message}`))
  )
  const mime = sniffImageMime(bytes)
  if (mime === undefined) {
    return yield* badRequest(options.provider, `${path} is not a JPEG, PNG or WebP image — convert the frame`)
  }
  return toDataUrl(mime, bytes)
})
