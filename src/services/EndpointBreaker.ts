// The run's circuit breaker for dead endpoints. A closed port or a wrong host fails every call the same
// way, and each question would burn its provider retries and the agent's 20 s / 40 s step retries before
// ending in `error`: hours of nothing at benchmark scale. Provider adapters report every attempt here
// (retries included, so the breaker trips within seconds, not after each question's retries); the
// harness installs a breaker around a run with `withBreaker` and stops the run when it trips. Outside a
// run (doctor, build, an embedding app's own calls) no breaker is installed and reports go nowhere.
import { Deferred, Effect, FiberRef, Option, Ref } from "effect"
import type { ProviderError, ProviderErrorReason } from "../domain/ProviderError.js"
import type { CallRole } from "./CallLog.js"

/** Calls in a row that must fail to reach a role's endpoints before a run stops (`VTREE_BREAKER_CALLS`). */
export const defaultBreakerCalls = 8

// The endpoint could not be reached or did not answer in time: connection refused or reset, DNS, TLS,
// timeouts. Any reply at all (a 5xx, a 429, a 400) shows a server that is there.
const unreachableReasons: ReadonlySet<ProviderErrorReason> = new Set(["Transport", "Timeout"])

/** Whether a failed attempt says the endpoint is unreachable, as opposed to a server that answered. */
export const isUnreachable = (error: ProviderError): boolean => unreachableReasons.has(error.reason)

/** One attempt of a provider call, as its adapter saw it. */
export interface AttemptOutcome {
  readonly role: CallRole
  /** The hosts of every endpoint serving the role (`host:port`, never credentials). */
  readonly hosts: ReadonlyArray<string>
  /** Null when the endpoint answered (even with an error status). */
  readonly failure: ProviderError | null
  /** After this attempt, every endpoint of the role is known unreachable (none answered since it last failed). */
  readonly allDown: boolean
}

/** Why the breaker stopped the run. */
export interface EndpointOutage {
  readonly role: CallRole
  readonly hosts: ReadonlyArray<string>
  /** Unreachable attempts in a row. */
  readonly failures: number
  /** The last failure's message (already free of keys: adapters scrub them). */
  readonly lastError: string
}

/** Unreachable attempts in a row, per role. */
export type BreakerCounts = Readonly<Partial<Record<CallRole, number>>>

/**
 * Counts one attempt: an unreachable one adds to its role's run, anything else resets it. The breaker
 * trips when a role reaches `threshold` in a row while every endpoint of the role is down (with
 * several replicas, one that still answers keeps the run going). A threshold of 0 never trips.
 */
export const countAttempt = (
  counts: BreakerCounts,
  outcome: AttemptOutcome,
  threshold: number
): { readonly counts: BreakerCounts; readonly outage: EndpointOutage | undefined } => {
  if (outcome.failure === null || !isUnreachable(outcome.failure)) {
    return { counts: { ...counts, [outcome.role]: 0 }, outage: undefined }
  }
  const failures = (counts[outcome.role] ?? 0) + 1
  const next = { ...counts, [outcome.role]: failures }
  return threshold > 0 && failures >= threshold && outcome.allDown
    ? {
      counts: next,
      outage: { role: outcome.role, hosts: outcome.hosts, failures, lastError: outcome.failure.message }
    }
    : { counts: next, outage: undefined }
}

export interface Breaker {
  readonly record: (outcome: AttemptOutcome) => Effect.Effect<void>
  /** Completes with the first outage; never, while the endpoints answer. */
  readonly tripped: Effect.Effect<EndpointOutage>
}

/** A breaker that trips after `threshold` unreachable attempts in a row of one role (0: never). */
export const makeBreaker = (threshold: number): Effect.Effect<Breaker> =>
  Effect.gen(function*() {
    const counts = yield* Ref.make<BreakerCounts>({})
    const outage = yield* Deferred.make<EndpointOutage>()
    return {
      record: (outcome) =>
        Effect.flatMap(
          Ref.modify(counts, (current) => {
            const step = countAttempt(current, outcome, threshold)
            return [step.outage, step.counts]
          }),
          (tripped) => (tripped === undefined ? Effect.void : Deferred.succeed(outage, tripped))
        ),
      tripped: Deferred.await(outage)
    }
  })

/** The breaker of the run this fiber works for; forked fibers inherit it. */
export const currentBreaker: FiberRef.FiberRef<Option.Option<Breaker>> = FiberRef.unsafeMake(Option.none<Breaker>())

/** Runs `effect` with its provider attempts counted by `breaker`. */
export const withBreaker = (breaker: Breaker) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, currentBreaker, Option.some(breaker))

/** What adapters call after each attempt; nothing happens outside a run. */
export const reportAttempt = (outcome: AttemptOutcome): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) =>
    Option.match(fiber.getFiberRef(currentBreaker), {
      onNone: () => Effect.void,
      onSome: (breaker) => breaker.record(outcome)
    })
  )
