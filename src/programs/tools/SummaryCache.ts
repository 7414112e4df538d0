import { Deferred, Effect, Exit, FiberId } from "effect"
import { createHash } from "node:crypto"

/**
 * Per-run memo of question-conditioned summaries. A revisited node (same node, question and prompt)
 * costs no model call; two fibers asking for the same key at once share the first one's work.
 */
export interface SummaryCache {
  readonly getOrCompute: <A, E, R>(
    key: string,
    compute: Effect.Effect<A, E, R>,
    options?: CacheOptions<A>
  ) => Effect.Effect<A, E, R>
  /** Keys currently held (completed or in flight). */
  readonly size: () => number
}

export interface CacheOptions<A> {
  /** Called when the request is served from the cache (or joins a computation in flight). */
  readonly onHit?: () => void
  /** Whether a computed value is worth keeping; degraded results are not, so a later visit retries. */
  readonly keep?: (value: A) => boolean
}

/** A stable key for (node, question, prompt); the rendered prompt already holds the node text. */
export const summaryKey = (parts: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part).update("\u0000")
  return hash.digest("hex")
}

export const makeSummaryCache = (): SummaryCache => {
  // Deferred rather than a value: the entry exists from the first request on, so concurrent requests
  // wait for that computation instead of starting their own.
  const entries = new Map<string, Deferred.Deferred<unknown, unknown>>()
  const getOrCompute = <A, E, R>(key: string, compute: Effect.Effect<A, E, R>, options?: CacheOptions<A>) =>
    Effect.suspend((): Effect.Effect<A, E, R> => {
      // Check and insert happen in one synchronous block, so no two fibers can both miss.
      const existing = entries.get(key)
      if (existing !== undefined) {
        options?.onHit?.()
        return Deferred.await(existing as Deferred.Deferred<A, E>)
      }
      const deferred = Deferred.unsafeMake<A, E>(FiberId.none)
      entries.set(key, deferred as Deferred.Deferred<unknown, unknown>)
      return Effect.uninterruptibleMask((restore) =>
        restore(compute).pipe(
          Effect.exit,
          Effect.tap((exit) => {
            // Failures are not memoised: a later request deserves a fresh attempt.
            const keep = Exit.isSuccess(exit) && (options?.keep === undefined || options.keep(exit.value))
            if (!keep) entries.delete(key)
            return Deferred.done(deferred, exit)
          }),
          Effect.flatten
        )
      )
    })
  return { getOrCompute, size: () => entries.size }
}
