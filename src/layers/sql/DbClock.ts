// The database's clock: leases, heartbeats and takeovers are timed by it, never by a worker's own, so a
// worker whose clock is minutes off neither takes live questions nor loses its own early.
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { Effect, Schema } from "effect"

/**
 * The database's time in epoch milliseconds, as an SQL expression. PostgreSQL: the transaction's start
 * (`now()`, one value for every row a statement looks at, so lease tests can use an index); SQLite: the
 * clock of the host that has the file open, which is every writer's (one machine holds the lock).
 */
export const databaseNow = (sql: SqlClient.SqlClient): Statement.Fragment =>
  sql.onDialectOrElse({
    pg: () => sql.literal("(EXTRACT(EPOCH FROM now()) * 1000)::bigint"),
    orElse: () => sql.literal("CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)")
  })

/** Reads the database's time (epoch ms): what a live claim is measured against when a run is read. */
export const readDatabaseNow = (sql: SqlClient.SqlClient) => {
  const read = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ now: Schema.Number }),
    execute: () => sql`SELECT ${databaseNow(sql)} AS now`
  })
  // A SELECT without FROM always gives one row.
  return Effect.flatMap(
    read(undefined),
    (rows) => rows[0] === undefined ? Effect.die("no time") : Effect.succeed(rows[0].now)
  )
}
