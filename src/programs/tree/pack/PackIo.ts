/**
 * What pack, unpack and verify share to touch files: a file's size and sha256 read as a stream, a promise of
 * node's fs run as one step that interruption waits for (so nothing is still writing when a failed or
 * interrupted run removes its temporary files), and the short error text a message quotes.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Stream } from "effect"
import { createHash } from "node:crypto"

/** An fs error as a message quotes it: its code (EACCES, ENOSPC) when it has one. */
export const errnoText = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "SystemError") {
    const cause = (error as { readonly cause?: unknown }).cause
    if (cause !== undefined) return errnoText(cause)
  }
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message
  return String(error)
}

/** `run()` as one uninterruptible step; a rejection becomes `onError(cause)`. */
export const fsStep = <A, E>(run: () => Promise<A>, onError: (error: unknown) => E): Effect.Effect<A, E> =>
  Effect.uninterruptible(Effect.tryPromise({ try: run, catch: onError }))

/** Every chunk of `file`, read through the FileSystem service (tests swap in one that stalls). */
export const fileChunks = (file: string) => Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => fs.stream(file)))

/** `file`'s size and sha256, read as a stream. */
export const hashFile = (file: string) =>
  Effect.suspend(() => {
    const hash = createHash("sha256")
    let size = 0
    return fileChunks(file).pipe(
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          size += chunk.length
          hash.update(chunk)
        })
      ),
      Effect.map(() => ({ size, sha256: hash.digest("hex") }))
    )
  })

/** Writes `chunk` to a node stream, waiting for "drain" when its buffer is full (interruptible while it waits). */
export const writeChunk = (stream: NodeJS.WritableStream, chunk: Uint8Array): Effect.Effect<void> =>
  stream.write(chunk) ? Effect.void : Effect.async<void>((resume) => {
    const drained = () => resume(Effect.void)
    stream.once("drain", drained)
    return Effect.sync(() => stream.off("drain", drained))
  })
