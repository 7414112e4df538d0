// Riding out a database that went away: which failures are a lost connection (worth asking again) and
// which are not, and the one retry policy claims, heartbeats and saves share while it lasts.
import type * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, FiberRef, Schedule } from "effect"
import { retryOnFailure } from "../../services/RetryOnFailure.js"
import { RunStoreError } from "../../services/RunStore.js"
import { storeOutageListener } from "../../services/StoreOutage.js"
import { describeCause } from "./StorageError.js"

/** The system's codes for a connection refused, reset or cut off on its way. */
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN"
])

/**
 * PostgreSQL's SQLSTATEs for a server going away or not there yet: class 08 (connection exception),
 * 57P01 admin shutdown (pg_ctl stop), 57P02 crash shutdown, 57P03 cannot connect now (starting up).
 */
const pgStates = /^(08...|57P0[123])$/

/** node-postgres' own words for a socket that closed under a query (it sets no code on these). */
const pgClosed = /Connection terminated|connection timeout|Client has encountered a connection error|Connection ended/i

/** Every `code` along a cause chain (driver error, its cause, an AggregateError's members). */
const codesOf = (cause: unknown, depth = 0): ReadonlyArray<string> => {
  if (depth > 8 || typeof cause !== "object" || cause === null) return []
  const own = (cause as { code?: unknown }).code
  const errors = cause instanceof AggregateError ? cause.errors : []
  return [
    ...(typeof own === "string" ? [own] : []),
    ...codesOf((cause as { cause?: unknown }).cause, depth + 1),
    ...errors.flatMap((error) => codesOf(error, depth + 1))
  ]
}

/**
 * Whether a failed statement lost its database rather than failed in it: worth asking again once it
 * is back. PostgreSQL: a socket refused or reset, the server shutting down or starting up. SQLite:
 * only SQLITE_BUSY (another process holds the write lock past the busy timeout); a full disk, a
 * read-only file or a constraint never mends by asking again.
 */
export const connectionLost = (dialect: "pg" | "sqlite", cause: unknown): boolean => {
  const codes = codesOf(cause)
  if (dialect === "sqlite") return codes.some((code) => code === "SQLITE_BUSY")
  return codes.some((code) => socketCodes.has(code) || pgStates.test(code)) || pgClosed.test(describeCause(cause))
}

/**
 * A failed statement as the store reports it: `DbUnreachable` when it lost its database (the outage policy
 * asks again), `otherwise` for anything else. The run store and the build queue share it.
 */
export const storeFailure = (
  sql: SqlClient.SqlClient,
  name: string,
  otherwise: (what: string, cause: unknown) => RunStoreError
) => {
  const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, orElse: () => "sqlite" as const })
  return (what: string, cause: unknown): RunStoreError =>
    connectionLost(dialect, cause) ? unreachable(name, what, cause) : otherwise(what, cause)
}

/** `DbUnreachable`: one attempt lost the database (the retry policy decides whether that is the end). */
export const unreachable = (shown: string, what: string, cause: unknown): RunStoreError =>
  new RunStoreError({
    reason: "DbUnreachable",
    message: `${shown}: the database is unreachable (${describeCause(cause)}) while ${what}`
  })

/**
 * Asking again while the database is away: quickly at first (a blip), then every 5 s at most, jittered
 * so a fleet of workers does not reconnect in step; given up once `bound` has passed since the first
 * failure.
 */
const outageSchedule = (bound: Duration.DurationInput) =>
  Schedule.exponential("250 millis").pipe(
    Schedule.union(Schedule.spaced("5 seconds")),
    Schedule.jittered,
    Schedule.upTo(bound)
  )

/** How a run goes on once its database is back: `vtree infer --resume`. */
const resumeInfer = (runId: string | undefined) =>
  `continue with vtree infer --resume${runId === undefined ? "" : ` --run-id ${runId}`} (finished questions are saved)`

/** The last failure past the bound, said so that a person knows what stopped and how to go on. */
const gaveUp = (
  error: RunStoreError,
  bound: Duration.Duration,
  runId: string | undefined,
  next: (runId: string | undefined) => string
): RunStoreError =>
  new RunStoreError({
    reason: "DbUnreachable",
    message: `${error.message}; still unreachable after ${
      Math.round(Duration.toSeconds(bound))
    } s (VTREE_DB_OUTAGE_SECONDS) — this worker stopped; once the database is back, ${next(runId)}`
  })

/**
 * Runs `effect`, asking again through `DbUnreachable` failures for up to `bound` (telling the outage
 * listener of each); any other failure, and the last one past the bound, ends it, with `next` saying how
 * to go on (a run's `--resume` by default).
 */
export const rideOutOutage = (
  shown: string,
  bound: Duration.DurationInput,
  next: (id: string | undefined) => string = resumeInfer
) => {
  const limit = Duration.decode(bound)
  const schedule = outageSchedule(limit)
  const isOutage = (error: RunStoreError) => error.reason === "DbUnreachable"
  return (what: string, runId?: string) =>
  <A, R>(effect: Effect.Effect<A, RunStoreError, R>): Effect.Effect<A, RunStoreError, R> => {
    const stopped = (error: RunStoreError) =>
      error.reason === "DbUnreachable" ? gaveUp(error, limit, runId, next) : error
    if (Duration.toMillis(limit) <= 0) return Effect.mapError(effect, stopped)
    const attempt = effect.pipe(
      Effect.tapError((error) =>
        error.reason === "DbUnreachable"
          ? Effect.flatMap(FiberRef.get(storeOutageListener), (listen) => listen({ database: shown, what }))
          : Effect.void
      )
    )
    // Every store call of a run passes here: the retry is set up only once one has failed.
    return Effect.mapError(retryOnFailure(attempt, schedule, isOutage), stopped)
  }
}

export type RideOut = ReturnType<typeof rideOutOutage>
