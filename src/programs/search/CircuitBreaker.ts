// One breaker per search provider, shared by every session of a `vtree mcp --http` process: when SearXNG
// is down, a hundred agents should not each wait out a 10 s timeout to learn it. After `failures` provider
// failures in a row the breaker opens and requests are refused at once, naming it; after `cooldown` one
// request is let through as a probe, and its outcome closes the breaker or opens it again.
import { Cause, Clock, Duration, Effect, Exit, Option, SynchronizedRef } from "effect"
import { SearchError, type SearchErrorCode } from "../../domain/Search.js"
import { countOf } from "../../text/Format.js"

export type BreakerState =
  | { readonly _tag: "Closed"; readonly failures: number }
  | { readonly _tag: "Open"; readonly failures: number; readonly until: number }
  /** One probe is in flight; everyone else is refused until it settles. */
  | { readonly _tag: "HalfOpen"; readonly failures: number }

export const closed: BreakerState = { _tag: "Closed", failures: 0 }

export interface BreakerPolicy {
  readonly failures: number
  readonly cooldownMs: number
}

/** Whether a request may reach the provider now, and the state that follows. */
export type Admission =
  | { readonly _tag: "Admitted"; readonly probe: boolean }
  | { readonly _tag: "Refused"; readonly retryAfterMs: number; readonly failures: number }

export const admit = (state: BreakerState, now: number): readonly [Admission, BreakerState] => {
  switch (state._tag) {
    case "Closed":
      return [{ _tag: "Admitted", probe: false }, state]
    case "Open":
      return now >= state.until
        ? [{ _tag: "Admitted", probe: true }, { _tag: "HalfOpen", failures: state.failures }]
        : [{ _tag: "Refused", retryAfterMs: state.until - now, failures: state.failures }, state]
    case "HalfOpen":
      // The probe's own timeout bounds how long this lasts; a second of waiting is an honest hint.
      return [{ _tag: "Refused", retryAfterMs: 1000, failures: state.failures }, state]
  }
}

/**
 * How a call that was admitted ended: the provider answered (`ok`, even with a refusal such as a 404),
 * failed as a provider (`failed`: a timeout, a 5xx, a dropped connection, a 429), or was never really
 * tried (`abandoned`: cancelled, or it gave up waiting for the rate limiter).
 */
export type CallOutcome = "ok" | "failed" | "abandoned"

export const settle = (
  state: BreakerState,
  outcome: CallOutcome,
  probe: boolean,
  now: number,
  policy: BreakerPolicy
): BreakerState => {
  if (outcome === "abandoned") {
    // A probe that never reached the provider leaves the next request free to probe at once.
    return probe && state._tag === "HalfOpen" ? { _tag: "Open", failures: state.failures, until: now } : state
  }
  if (outcome === "ok") return closed
  const failures = state.failures + 1
  return probe || state._tag !== "Closed" || failures >= policy.failures
    ? { _tag: "Open", failures, until: now + policy.cooldownMs }
    : { _tag: "Closed", failures }
}

// What the provider did, as opposed to what the request or the page did: only these count against it.
const providerFailures: ReadonlySet<SearchErrorCode> = new Set([
  "PROVIDER_TIMEOUT",
  "PROVIDER_ERROR",
  "PROVIDER_RATE_LIMITED",
  "ALL_ENGINES_FAILED"
])

export const outcomeOf = (exit: Exit.Exit<unknown, SearchError>): CallOutcome => {
  if (Exit.isSuccess(exit)) return "ok"
  const failure = Cause.failureOption(exit.cause)
  return Option.isNone(failure) ? "abandoned" : providerFailures.has(failure.value.reason) ? "failed" : "ok"
}

export const openMessage = (provider: string, failures: number, retryAfterMs: number): string =>
  `the ${provider} circuit breaker is open after ${countOf(failures, "failure")} in a row; it lets a probe through in ${
    Duration.format(Duration.seconds(Math.ceil(retryAfterMs / 1000)))
  } — try again then`

export interface CircuitBreaker {
  readonly state: Effect.Effect<BreakerState>
  /**
   * Runs `call` if the breaker lets it through, else fails at once with PROVIDER_ERROR naming the
   * breaker. `admitted` runs between admission and the call (the rate limiter's wait): a failure there
   * (PROVIDER_RATE_LIMITED from the hub itself) is no verdict on the provider.
   */
  readonly guard: <A, R>(
    call: Effect.Effect<A, SearchError, R>,
    admitted?: Effect.Effect<void, SearchError>
  ) => Effect.Effect<A, SearchError, R>
}

export const makeCircuitBreaker = (provider: string, policy: BreakerPolicy): Effect.Effect<CircuitBreaker> =>
  Effect.gen(function*() {
    const ref = yield* SynchronizedRef.make<BreakerState>(closed)
    const settleWith = (probe: boolean, outcome: CallOutcome) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) => SynchronizedRef.update(ref, (state) => settle(state, outcome, probe, now, policy))
      )
    const guard = <A, R>(
      call: Effect.Effect<A, SearchError, R>,
      admitted: Effect.Effect<void, SearchError> = Effect.void
    ) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const admission = yield* SynchronizedRef.modify(ref, (state) => admit(state, now))
          if (admission._tag === "Refused") {
            return yield* new SearchError({
              reason: "PROVIDER_ERROR",
              message: openMessage(provider, admission.failures, admission.retryAfterMs),
              retryAfterMs: admission.retryAfterMs,
              retryable: true
            })
          }
          const waited = yield* Effect.exit(restore(admitted))
          if (Exit.isFailure(waited)) {
            yield* settleWith(admission.probe, "abandoned")
            return yield* Effect.failCause(waited.cause)
          }
          const exit = yield* Effect.exit(restore(call))
          yield* settleWith(admission.probe, outcomeOf(exit))
          return yield* exit
        })
      )
    return { state: SynchronizedRef.get(ref), guard }
  })
