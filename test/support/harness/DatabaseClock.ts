// Time passing at the database, for tests: leases are timed by the database's clock (the store's SQL reads
// it), which no TestClock moves. Moving every lease time back by `ms` is the database's clock moving on.
import * as SqlClient from "@effect/sql/SqlClient"
import type { Context } from "effect"
import { Effect } from "effect"

/** As if `ms` passed at the database: claims' times (and the questions' claim times) move back by `ms`. */
export const advanceDatabaseClock = (sql: SqlClient.SqlClient, ms: number) =>
  Effect.gen(function*() {
    yield* sql`UPDATE run_claims SET claimed_at = claimed_at - ${ms}, heartbeat_at = heartbeat_at - ${ms},
      expires_at = expires_at - ${ms}`
    yield* sql`UPDATE run_questions SET claimed_at = claimed_at - ${ms} WHERE claimed_at IS NOT NULL`
  }).pipe(Effect.orDie)

/** The plain SqlClient a store's layer exposes beside its RunStore. */
export const sqlOf = (context: Context.Context<never>): SqlClient.SqlClient =>
  context.unsafeMap.get(SqlClient.SqlClient.key) as SqlClient.SqlClient
