import { Clock, Duration, Effect, Option, Ref } from "effect"
import { isRetryable, type ProviderError } from "../../domain/ProviderError.js"
import type { CallRole } from "../../services/CallLog.js"
import { isUnreachable, reportAttempt } from "../../services/EndpointBreaker.js"
import { retryOnFailure } from "../../services/RetryOnFailure.js"
import { type ProviderPolicy, retrySchedule, timeoutError } from "../shared/Reliability.js"

/**
 * Several base URLs serving one role (`VTREE_LLM_BASE_URL=http://a/v1,http://b/v1`): each request goes
 * to the replica with the fewest requests in flight, under that replica's own cap; a replica that fails
 * with a connection error or a 5xx is ejected for a back-off and probed before it takes traffic again;
 * a failed attempt is retried, on another replica when there is one, under the usual retry Schedule.
 */

/** What is known of one replica (one base URL); shared by every role sending to that URL. */
export interface ReplicaHealth {
  /** Requests sent to it or waiting for its cap. */
  inFlight: number
  /** Consecutive ejections without a success in between; sets the back-off. */
  failures: number
  /** Epoch ms until which it gets no traffic; null while in service. */
  ejectedUntil: number | null
  /** A probe is out: nobody else probes it meanwhile. */
  probing: boolean
  /** When it was last chosen (a counter), so that idle replicas take turns. */
  lastPicked: number
  /** Its last attempt or probe could not reach it (refused, reset, DNS, TLS, timeout): the run's breaker reads it. */
  unreachable: boolean
}

export type Choice = { readonly use: number } | { readonly probe: number }

const inService = (health: ReplicaHealth) => health.ejectedUntil === null && !health.probing

const leastBusy = (replicas: ReadonlyArray<ReplicaHealth>, candidates: ReadonlyArray<number>): number =>
  candidates.reduce((best, i) => {
    const a = replicas[i]!
    const b = replicas[best]!
    return a.inFlight < b.inFlight || (a.inFlight === b.inFlight && a.lastPicked < b.lastPicked) ? i : best
  })

/**
 * Where the next attempt goes. A replica whose back-off has run out is probed first; otherwise the
 * least busy replica in service, preferring ones this request has not tried yet. When every replica is
 * out, the one due back soonest takes the request: failing it costs a retry, refusing it the whole call.
 */
export const choose = (replicas: ReadonlyArray<ReplicaHealth>, now: number, tried: ReadonlySet<number>): Choice => {
  const due = replicas.findIndex((health) =>
    health.ejectedUntil !== null && health.ejectedUntil <= now && !health.probing
  )
  if (due >= 0) return { probe: due }
  const all = replicas.map((_, i) => i)
  const serving = all.filter((i) => inService(replicas[i]!))
  const untried = serving.filter((i) => !tried.has(i))
  if (untried.length > 0) return { use: leastBusy(replicas, untried) }
  if (serving.length > 0) return { use: leastBusy(replicas, serving) }
  return {
    use: all.reduce((best, i) => (replicas[i]!.ejectedUntil ?? 0) < (replicas[best]!.ejectedUntil ?? 0) ? i : best)
  }
}

/** The server or the path to it is down (not the request's fault, not a slow model): take it out. */
export const ejects = (error: ProviderError): boolean => error.reason === "Transport" || error.reason === "Server"

export const maxEjection = Duration.minutes(1)

/** How long the `failures`-th ejection in a row lasts: doubling from `base`, at most a minute. */
export const ejectionDelay = (failures: number, base: Duration.Duration): Duration.Duration =>
  Duration.min(Duration.times(base, 2 ** Math.max(0, Math.min(failures - 1, 16))), maxEjection)

/** A base URL as logs and the call log show it: no credentials, no query. */
export const endpointLabel = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`
  } catch {
    return url
  }
}

/** A base URL's `host:port` alone, as the breaker's message names it; never a path, a query or credentials. */
export const endpointHost = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return "(unparseable URL)"
  }
}

export interface Replica {
  readonly url: string
  readonly semaphore: Effect.Semaphore
  readonly health: ReplicaHealth
}

/**
 * The replicas of one provider, by URL: roles that name the same URL (agent and tool, usually) share
 * its cap and its health, as they share the server.
 */
export interface ReplicaSet {
  readonly replica: (url: string) => Replica
  /** Next value of the pick counter. */
  readonly pick: () => number
}

export const makeReplicaSet = (concurrency: number): Effect.Effect<ReplicaSet> =>
  Effect.sync(() => {
    const byUrl = new Map<string, Replica>()
    let picks = 0
    return {
      replica: (url) => {
        const known = byUrl.get(url)
        if (known !== undefined) return known
        const created: Replica = {
          url,
          semaphore: Effect.unsafeMakeSemaphore(concurrency),
          health: { inFlight: 0, failures: 0, ejectedUntil: null, probing: false, lastPicked: 0, unreachable: false }
        }
        byUrl.set(url, created)
        return created
      },
      pick: () => ++picks
    }
  })

/** One role's replicas, each with the client that talks to it. */
export interface EndpointPool<C> {
  readonly members: ReadonlyArray<{ readonly replica: Replica; readonly client: C }>
  readonly set: ReplicaSet
  /** A cheap request that succeeds when the server is up (`GET /models`). */
  readonly probe: (client: C) => Effect.Effect<unknown, ProviderError>
  /** First ejection; later ones double. */
  readonly ejectFor: Duration.Duration
}

export type PoolPolicy = Omit<ProviderPolicy, "semaphore">

/** What a call tells beyond its result: its role (for the run's breaker) and how many attempts it made. */
export interface CallTracking {
  readonly role: CallRole
  readonly attempts?: Ref.Ref<number>
}

const probeTimeout = Duration.seconds(10)

/** One call's view of its pool: the replicas' health, their hosts (for the breaker), and where it reports. */
interface PoolCall<C> {
  readonly pool: EndpointPool<C>
  readonly policy: PoolPolicy
  readonly servedBy: Ref.Ref<Option.Option<string>>
  readonly tracking: CallTracking | undefined
  readonly healths: ReadonlyArray<ReplicaHealth>
  readonly hosts: ReadonlyArray<string>
  /** Each replica's `endpointLabel`, as `servedBy` records it. */
  readonly labels: ReadonlyArray<string>
}

// A failure that is a reply (5xx, 4xx) shows the server is there as much as a success does.
const reached = (health: ReplicaHealth, error: ProviderError | null) => {
  health.unreachable = error !== null && isUnreachable(error)
}

/** Records whether the replica was reached and, with tracking, reports the attempt to the run's breaker. */
const attempted = <C>(call: PoolCall<C>, health: ReplicaHealth, error: ProviderError | null) =>
  Effect.suspend(() => {
    reached(health, error)
    return call.tracking === undefined
      ? Effect.void
      : reportAttempt({
        role: call.tracking.role,
        hosts: call.hosts,
        failure: error,
        allDown: call.healths.every((h) => h.unreachable)
      })
  })

const eject = <C>({ policy, pool }: PoolCall<C>, replica: Replica, now: number) => {
  const { health } = replica
  health.failures += 1
  health.ejectedUntil = now + Duration.toMillis(ejectionDelay(health.failures, pool.ejectFor))
  return Effect.logWarning("endpoint ejected").pipe(
    Effect.annotateLogs({
      provider: policy.provider,
      endpoint: endpointLabel(replica.url),
      for: Duration.format(ejectionDelay(health.failures, pool.ejectFor))
    })
  )
}

const restore = (health: ReplicaHealth) => {
  health.failures = 0
  health.ejectedUntil = null
}

// Choosing and counting the request in happen in one step, so concurrent callers spread out.
const reserve = <C>({ healths, pool }: PoolCall<C>, tried: ReadonlySet<number>) =>
  Effect.clockWith((clock) =>
    Effect.sync(() => {
      const choice = choose(healths, clock.unsafeCurrentTimeMillis(), tried)
      if ("probe" in choice) {
        healths[choice.probe]!.probing = true
      } else {
        healths[choice.use]!.inFlight += 1
        healths[choice.use]!.lastPicked = pool.set.pick()
      }
      return choice
    })
  )

/** Probes an ejected replica whose back-off ran out: restored when it answers, ejected for longer when not. */
const probeReplica = <C>(call: PoolCall<C>, index: number) => {
  const { policy, pool } = call
  const { client, replica } = pool.members[index]!
  return pool.probe(client).pipe(
    Effect.timeoutFail({
      duration: probeTimeout,
      onTimeout: () => timeoutError({ ...policy, timeout: probeTimeout })
    }),
    Effect.either,
    Effect.tap((outcome) => Effect.sync(() => reached(replica.health, outcome._tag === "Right" ? null : outcome.left))),
    Effect.flatMap((outcome) =>
      // Any answer but a 5xx means the server is up: a 404 for /models is still a server.
      outcome._tag === "Right" || (!ejects(outcome.left) && outcome.left.reason !== "Timeout")
        ? Effect.sync(() => restore(replica.health))
        : Effect.flatMap(Clock.currentTimeMillis, (now) => eject(call, replica, now))
    )
  )
}

/** One attempt on the replica at `index`: under its cap and the attempt's timeout, its health updated after. */
const sendTo = <C, A>(
  call: PoolCall<C>,
  attempt: (client: C) => Effect.Effect<A, ProviderError>,
  index: number
): Effect.Effect<A, ProviderError> => {
  const { policy, pool, servedBy, tracking } = call
  const pooled = pool.members.length > 1
  const { client, replica } = pool.members[index]!
  return Ref.set(servedBy, Option.some(call.labels[index]!)).pipe(
    Effect.zipRight(tracking?.attempts === undefined ? Effect.void : Ref.update(tracking.attempts, (n) => n + 1)),
    Effect.zipRight(attempt(client)),
    Effect.timeoutFail({ duration: policy.timeout, onTimeout: () => timeoutError(policy) }),
    replica.semaphore.withPermits(1),
    Effect.tapBoth({
      onSuccess: () =>
        Effect.suspend(() => {
          restore(replica.health)
          return attempted(call, replica.health, null)
        }),
      onFailure: (error) =>
        Effect.zipRight(
          pooled && ejects(error) && replica.health.ejectedUntil === null
            ? Effect.flatMap(Clock.currentTimeMillis, (now) => eject(call, replica, now))
            : Effect.void,
          attempted(call, replica.health, error)
        )
    })
  )
}

/** A failed attempt that will be retried is logged with the replica it went to. */
const logRetriedFailure = <C>({ policy, servedBy }: PoolCall<C>, error: ProviderError) =>
  isRetryable(error) && policy.retries > 0
    ? Effect.flatMap(Ref.get(servedBy), (served) =>
      Effect.logWarning("provider attempt failed").pipe(
        Effect.annotateLogs({
          provider: policy.provider,
          endpoint: Option.getOrElse(served, () => "-"),
          reason: error.reason,
          status: error.status ?? "-"
        })
      ))
    : Effect.void

/** How one call sends through a pool: where it records the replica that served it, and what it reports. */
export type PoolSender<C> = (
  servedBy: Ref.Ref<Option.Option<string>>,
  tracking?: CallTracking
) => <A>(attempt: (client: C) => Effect.Effect<A, ProviderError>) => Effect.Effect<A, ProviderError>

/**
 * Runs provider calls across the pool under the policy: each attempt picks a replica, holds a
 * permit of that replica's cap, and has its own timeout; transient failures are retried by
 * `retrySchedule`. `servedBy` ends holding the last replica tried (its `endpointLabel`). With one replica, this
 * is `withPolicy`: nothing is ever ejected, since there is nowhere else to go. With `tracking`, every
 * attempt is counted in `attempts` and reported to the run's breaker (services/EndpointBreaker.ts),
 * with whether every replica of the pool is unreachable by now. The schedule, the replicas' health and
 * their hosts are the pool's, worked out once here rather than at every call.
 */
export const poolSender = <C>(pool: EndpointPool<C>, policy: PoolPolicy): PoolSender<C> => {
  const schedule = retrySchedule(policy.retries, policy.baseDelay)
  const healths = pool.members.map((member) => member.replica.health)
  const hosts = pool.members.map((member) => endpointHost(member.replica.url))
  const labels = pool.members.map((member) => endpointLabel(member.replica.url))
  return (servedBy, tracking) => {
    const call: PoolCall<C> = { pool, policy, servedBy, tracking, healths, hosts, labels }
    return <A>(attempt: (client: C) => Effect.Effect<A, ProviderError>): Effect.Effect<A, ProviderError> =>
      Effect.suspend(() => {
        const tried = new Set<number>()
        const send = (index: number): Effect.Effect<A, ProviderError> => {
          tried.add(index)
          return sendTo(call, attempt, index)
        }
        const once: Effect.Effect<A, ProviderError> = Effect.uninterruptibleMask((restoreInterrupt) =>
          Effect.flatMap(reserve(call, tried), (choice) =>
            "probe" in choice
              ? restoreInterrupt(probeReplica(call, choice.probe)).pipe(
                Effect.ensuring(Effect.sync(() => (healths[choice.probe]!.probing = false))),
                Effect.zipRight(restoreInterrupt(Effect.suspend(() => once)))
              )
              : restoreInterrupt(send(choice.use)).pipe(
                Effect.ensuring(Effect.sync(() => (healths[choice.use]!.inFlight -= 1)))
              ))
        )
        return retryOnFailure(once.pipe(Effect.tapError((error) => logRetriedFailure(call, error))), schedule)
      })
  }
}

/** One provider call across the pool under the policy (`poolSender`, for a single call). */
export const withPool = <C>(
  pool: EndpointPool<C>,
  policy: PoolPolicy,
  servedBy: Ref.Ref<Option.Option<string>>,
  tracking?: CallTracking
) => poolSender(pool, policy)(servedBy, tracking)
