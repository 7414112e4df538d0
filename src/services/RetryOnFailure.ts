import { Effect, type Schedule } from "effect"

/**
 * `Effect.retry(effect, { schedule, while })` that sets its schedule up only once the first run has failed.
 * Nearly every model call succeeds at once, and `Effect.retry` builds its schedule's state before the first
 * run: dozens of effect steps at every call, for nothing. Here the first failure is handed to the same
 * schedule as its first input, so delays, limits and the `while` test see what `Effect.retry` would.
 */
export const retryOnFailure = <A, E, R, Out, R2>(
  effect: Effect.Effect<A, E, R>,
  schedule: Schedule.Schedule<Out, E, R2>,
  shouldRetry: (error: E) => boolean = () => true
): Effect.Effect<A, E, R | R2> =>
  Effect.catchAll(effect, (first) => {
    if (!shouldRetry(first)) return Effect.fail(first)
    let replayed = false
    // The retry's first run is the failure already met; the runs after it are the effect again.
    const again = Effect.suspend(() => {
      if (replayed) return effect
      replayed = true
      return Effect.fail(first)
    })
    return Effect.retry(again, { schedule, while: shouldRetry })
  })
