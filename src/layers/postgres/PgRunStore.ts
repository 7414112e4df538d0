import type * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted } from "effect"
import * as Pg from "pg"
import { RunStore, RunStoreError } from "../../services/RunStore.js"
import { migrate } from "../sqlite/Migrations.js"
import { SchemaFacts } from "../sqlite/SqliteFile.js"
import { make } from "../sqlite/SqliteRunStore.js"

/** `--db` values that name a PostgreSQL server rather than an SQLite file. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/** The URL as messages show it: the password never. */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return "the PostgreSQL URL"
  }
}

// node-postgres returns BIGINT (epoch milliseconds, call ids, counts) as text so as not to lose
// precision past 2^53; ours stay far below, and the row schemas read numbers.
const bigintAsNumber: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === Pg.types.builtins.INT8 ? Number : Pg.types.getTypeParser(oid, format)) as Pg.CustomTypesConfig["getTypeParser"]
}

const describeCause = (cause: unknown): string => {
  const inner = typeof cause === "object" && cause !== null ? (cause as { cause?: unknown }).cause : undefined
  if (inner instanceof Error && inner.message !== "") return inner.message
  if (inner instanceof AggregateError) return inner.errors.map(String).join("; ")
  return cause instanceof Error ? cause.message : String(cause)
}

/**
 * The migrator locks its own table while it applies migrations, but creating that table races between
 * workers starting together on a fresh database ("relation already exists"); whoever loses tries again,
 * finds the table, and waits on its lock.
 */
const migrateOnce = migrate.pipe(Effect.retry({ times: 3, while: (error) => error._tag === "SqlError" }))

export interface PgRunStoreOptions {
  /** `postgres://user:password@host:5432/database` (or `?host=/socket/dir`). */
  readonly url: Redacted.Redacted<string>
  /** Connections in the pool; a worker writes one question at a time per fiber. */
  readonly maxConnections?: number
}

/**
 * The run store on a PostgreSQL server: the same port, schema and migrations as the SQLite store
 * (applied on open, once, under the migrator's lock), many processes may share it.
 */
export const layer = (options: PgRunStoreOptions): Layer.Layer<RunStore | SqlClient.SqlClient, RunStoreError> => {
  const shown = displayUrl(Redacted.value(options.url))
  const client = PgClient.layer({
    url: options.url,
    types: bigintAsNumber,
    maxConnections: options.maxConnections ?? 10,
    connectTimeout: "10 seconds",
    applicationName: "vtree"
  })
  // Always migrated to this vtree's schema on open, so every table and column the store reads exists.
  const ready = Layer.effect(SchemaFacts, Effect.as(migrateOnce, { ownership: true, empty: false })).pipe(Layer.provideMerge(client))
  const store = Layer.effect(RunStore, make(shown)).pipe(Layer.provideMerge(ready))
  return Layer.mapError(store, (cause) =>
    cause instanceof RunStoreError ? cause : new RunStoreError({
      reason: "DbUnreadable",
      message: `${shown}: cannot open the run database (${describeCause(cause)}) — ` +
        "check that the server is up and the URL (--db / VTREE_DB_URL) is right"
    }))
}

/** Sugar for tests and embedding apps holding a plain string. */
export const layerUrl = (url: string) => layer({ url: Redacted.make(url) })

