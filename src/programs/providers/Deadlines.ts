import { type Clock, Duration, Effect, type Fiber, FiberId } from "effect"

/**
 * Per-attempt timeouts for promise-based requests (the openai SDK's), kept on one queue per provider.
 *
 * `Effect.timeoutFail` forks two fibers per attempt and interrupts one of them afterwards; at hundreds
 * of calls a second that was the largest cost vtree added to a model call (bench/providers.ts). Every
 * attempt of a provider has the same timeout, so deadlines fall due in the order attempts start: a FIFO
 * queue, watched by a single fiber that sleeps on the Clock until the oldest deadline that is still
 * open, suffices. An attempt costs a queue entry and an AbortController; reaching its deadline aborts
 * the request. The watcher runs only while some attempt is open, so an idle process holds no timer,
 * and it sleeps on the Effect Clock, so TestClock drives it like any other timeout.
 */
export interface Deadlines {
  /**
   * Runs `run` with a signal that aborts when the fiber is interrupted or the timeout passes. A
   * rejection is `onError(cause)`, or `onTimeout()` when the deadline aborted the request.
   */
  readonly run: <A, E>(
    run: (signal: AbortSignal) => PromiseLike<A>,
    onError: (cause: unknown) => E,
    onTimeout: () => E
  ) => Effect.Effect<A, E>
  /** Attempts not yet settled (for tests and diagnostics). */
  readonly open: () => number
  /** Whether the watcher fiber is running (it stops when nothing is open). */
  readonly watching: () => boolean
}

interface Entry {
  readonly at: number
  readonly controller: AbortController
  settled: boolean
  timedOut: boolean
}

/**
 * Milliseconds on the Clock's monotonic reading (hrtime for the live clock): a wall-clock step (NTP, a
 * resumed VM) must not time out every request in flight at once.
 */
const monotonicMillis = (clock: Clock.Clock): number => Number(clock.unsafeCurrentTimeNanos() / 1_000_000n)

export const make = (timeout: Duration.DurationInput): Deadlines => {
  const timeoutMs = Duration.toMillis(Duration.decode(timeout))
  // The queue is an array with a moving head; it is compacted when the dead prefix grows large.
  let queue: Array<Entry> = []
  let head = 0
  let open = 0
  let running = false
  let watcher: Fiber.RuntimeFiber<void> | undefined
  // Each watcher has a generation; one that was stopped but has not yet seen its interruption finds
  // itself superseded and leaves the state alone, so two watchers never fight over it.
  let generation = 0

  const stopped = () => {
    running = false
    watcher = undefined
    generation += 1
  }

  const settle = (entry: Entry) => {
    if (entry.settled) return
    entry.settled = true
    open -= 1
    if (open === 0 && watcher !== undefined) {
      // Nothing left to watch: stop the watcher now rather than leave its timer holding the process.
      watcher.unsafeInterruptAsFork(FiberId.none)
      stopped()
      queue = []
      head = 0
    }
  }

  /** Fires every open entry that is due, drops settled ones off the front; the next deadline or none. */
  const sweep = (now: number): number | undefined => {
    while (head < queue.length) {
      const entry = queue[head]!
      if (!entry.settled && entry.at > now) break
      head += 1
      if (!entry.settled) {
        // Settled here without settle(): the watcher is the caller and stops by itself below.
        entry.settled = true
        entry.timedOut = true
        open -= 1
        entry.controller.abort()
      }
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head)
      head = 0
    }
    return head < queue.length ? queue[head]!.at : undefined
  }

  const watch = (clock: Clock.Clock, mine: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (mine !== generation) return Effect.void
      const now = monotonicMillis(clock)
      const next = sweep(now)
      if (next === undefined) {
        stopped()
        return Effect.void
      }
      return Effect.flatMap(clock.sleep(Duration.millis(next - now)), () => watch(clock, mine))
    })

  const startWatcher = (clock: Clock.Clock) => {
    running = true
    const mine = generation
    return Effect.uninterruptible(
      // The fork must not inherit the uninterruptible region, or stopping the watcher would not work.
      Effect.map(Effect.forkDaemon(Effect.interruptible(watch(clock, mine))), (fiber) => {
        // It may already have found nothing open and stopped; only a live watcher is kept.
        if (mine === generation && fiber.unsafePoll() === null) watcher = fiber
      })
    )
  }

  const run = <A, E>(
    request: (signal: AbortSignal) => PromiseLike<A>,
    onError: (cause: unknown) => E,
    onTimeout: () => E
  ): Effect.Effect<A, E> =>
    Effect.clockWith((clock) =>
      Effect.suspend(() => {
        // Registered before anything can yield, so a watcher deciding to stop can never miss it.
        const entry: Entry = { at: monotonicMillis(clock) + timeoutMs, controller: new AbortController(), settled: false, timedOut: false }
        queue.push(entry)
        open += 1
        const request$ = Effect.async<A, E>((resume) => {
          request(entry.controller.signal).then(
            (value) => {
              settle(entry)
              resume(Effect.succeed(value))
            },
            (cause: unknown) => {
              settle(entry)
              resume(Effect.fail(entry.timedOut ? onTimeout() : onError(cause)))
            }
          )
          return Effect.sync(() => {
            settle(entry)
            entry.controller.abort()
          })
        })
        return running ? request$ : Effect.zipRight(startWatcher(clock), request$)
      })
    )

  return { run, open: () => open, watching: () => running }
}
