// A run store that lost its database and is asking again: what the store tells whoever listens (the
// harness shows it on the progress line), and how long it keeps asking unless told otherwise.
import { Effect, FiberRef } from "effect"

/** How long a worker rides out an unreachable database before it stops (VTREE_DB_OUTAGE_SECONDS). */
export const defaultOutageSeconds = 120

/** One failed attempt to reach the database, while the store keeps trying. */
export interface StoreOutageNotice {
  /** The database as messages name it (a URL without its password, or a path). */
  readonly database: string
  /** What was being done ("saving question q1 of run r"). */
  readonly what: string
}

/**
 * Told of every failed attempt while the store retries; nothing by default. A FiberRef, so a program sets
 * it once (`Effect.locally`) for every fiber it forks, and the store needs no handle on the program.
 */
export const storeOutageListener: FiberRef.FiberRef<(notice: StoreOutageNotice) => Effect.Effect<void>> = FiberRef
  .unsafeMake<(notice: StoreOutageNotice) => Effect.Effect<void>>(() => Effect.void)
