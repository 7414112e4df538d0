/**
 * What pack, unpack and verify share to touch files: how a file is opened for reading (a service with node's
 * read stream as its default, so a test can swap in one that stalls), a file's size and sha256, a promise of
 * node's fs run as one step that interruption waits for (so nothing is still writing when a failed or
 * interrupted run removes its temporary files), and the short error text a message quotes.
 */
import { Context, Effect } from "effect"
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import type { Readable } from "node:stream"

/** Opens a file to read as a node stream. Node streams, not an Effect Stream: thousands of frames are read. */
export class PackFiles extends Context.Reference<PackFiles>()("vtree/tree/pack/PackFiles", {
  defaultValue: () => ({ read: (file: string): Readable => createReadStream(file) })
}) {}

/** An fs error as a message quotes it: its code (EACCES, ENOSPC) when it has one. */
export const errnoText = (error: unknown): string =>
  error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error)

/** `run()` as one uninterruptible step; a rejection becomes `onError(cause)`. */
export const fsStep = <A, E>(run: () => Promise<A>, onError: (error: unknown) => E): Effect.Effect<A, E> =>
  Effect.uninterruptible(Effect.tryPromise({ try: run, catch: onError }))

/**
 * Runs `f` on each chunk of `file`, in order; an interruption destroys the stream. `f` is plain and may
 * return a promise (to wait for a drain): this loop runs once per chunk of every frame.
 */
export const forEachChunkOf = <E>(
  file: string,
  f: (chunk: Buffer) => void | Promise<void>,
  onError: (error: unknown) => E
) =>
  Effect.flatMap(PackFiles, (files) =>
    Effect.tryPromise({
      try: async (signal) => {
        const stream = files.read(file)
        const stop = () => stream.destroy()
        signal.addEventListener("abort", stop, { once: true })
        try {
          for await (const chunk of stream) await f(chunk as Buffer)
        } finally {
          signal.removeEventListener("abort", stop)
          stream.destroy()
        }
      },
      catch: onError
    }))

/** `file`'s size and sha256. */
export const hashFile = <E>(file: string, onError: (error: unknown) => E) =>
  Effect.suspend(() => {
    const hash = createHash("sha256")
    let size = 0
    const add = (chunk: Buffer) => {
      size += chunk.length
      hash.update(chunk)
    }
    return Effect.map(forEachChunkOf(file, add, onError), () => ({ size, sha256: hash.digest("hex") }))
  })

/** Writes `chunk` to a node stream; resolves at once, or when its full buffer drains or it is closed. */
export const writeChunk = (stream: NodeJS.WritableStream, chunk: Uint8Array): void | Promise<void> => {
  if (stream.write(chunk)) return
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.off("drain", done)
      stream.off("close", done)
      resolve()
    }
    stream.once("drain", done)
    stream.once("close", done)
  })
}
