import type * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either } from "effect"
import * as Path from "node:path"
import { ProviderError } from "../../domain/ProviderError.js"
import { countOf } from "../../text/Format.js"

/** `[Frame 2/3] frame_L3_004.jpg` then the text; frames that failed are left out, not guessed at. */
export const formatTranscript = (
  frames: ReadonlyArray<{ readonly index: number; readonly path: string; readonly text: string }>,
  total: number
): string =>
  frames
    .map((frame) =>
      `[Frame ${frame.index + 1}/${total}] ${Path.basename(frame.path)}\n${
        frame.text.trim() === "" ? "(no text)" : frame.text.trim()
      }`
    )
    .join("\n\n")

/** A frame's bytes, as every OCR engine reads them: a missing or unreadable file is a BadRequest naming it. */
export const readFrame = (fs: FileSystem.FileSystem, provider: string, path: string) =>
  fs.readFile(path).pipe(
    Effect.mapError((error) =>
      new ProviderError({
        provider,
        reason: "BadRequest",
        message: `${provider}: ${
          error._tag === "SystemError" && error.reason === "NotFound"
            ? `frame not found: ${path}`
            : `cannot read ${path}: ${error.message}`
        }`
      })
    )
  )

/**
 * The transcript of several frames read one by one, the same for every OCR engine: a frame that fails
 * is left out (with a warning); only when every frame failed does the call fail, so observe_frame can
 * count `ocr_failed` and go on without OCR.
 */
export const transcribeEach = Effect.fnUntraced(function*(
  provider: string,
  paths: ReadonlyArray<string>,
  frame: (path: string) => Effect.Effect<string, ProviderError>
) {
  if (paths.length === 0) return ""
  const results = yield* Effect.forEach(paths, (path) => Effect.either(frame(path)), { concurrency: "unbounded" })
  const done = results.flatMap((
    result,
    index
  ) => (Either.isRight(result) ? [{ index, path: paths[index]!, text: result.right }] : []))
  const failures = results.flatMap((result) => (Either.isLeft(result) ? [result.left] : []))
  if (done.length === 0) {
    const first = failures[0]!
    return yield* new ProviderError({
      provider,
      reason: first.reason,
      message: `${provider}: none of ${countOf(paths.length, "frame")} could be read (${first.message})`
    })
  }
  if (failures.length > 0) {
    yield* Effect.logWarning("OCR left frames out").pipe(
      Effect.annotateLogs({ failed: failures.length, of: paths.length })
    )
  }
  return formatTranscript(done, paths.length)
})
