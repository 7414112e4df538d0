// The PostgreSQL dialect of the run store: a connection pool on a server many workers share, its
// schema checked (and migrated, once, under the migrator's lock) before the store is built on it.
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Layer, Redacted, Schema } from "effect"
import * as Pg from "pg"
import { displayUrl as maskUrl } from "../../../domain/Secret.js"
import { RunStore, RunStoreError } from "../../../services/RunStore.js"
import { latestMigrationId, migrate } from "../Migrations.js"
import { SchemaFacts, tooNew } from "../SchemaFacts.js"
import { make } from "../SqlRunStore.js"
import { storageError } from "../StorageError.js"
import { layerClients, nameTransforms } from "../StoreContext.js"

/** `--db` values that name a PostgreSQL server rather than an SQLite file. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/** The URL as messages show it: no password, whether in `user:pw@` or in `?password=` (domain/Secret.ts). */
export const displayUrl = (url: string): string => maskUrl(url, "the PostgreSQL URL")

// node-postgres returns BIGINT (epoch milliseconds, call ids, counts) as text so as not to lose
// precision past 2^53; ours stay far below, and the row schemas read numbers.
const bigintAsNumber: Pg.CustomTypesConfig = {
  getTypeParser:
    ((oid: number, format?: "text" | "binary") =>
      oid === Pg.types.builtins.INT8 ? Number : Pg.types.getTypeParser(oid, format)) as Pg.CustomTypesConfig[
        "getTypeParser"
      ]
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
  /**
   * How many live claims a run may have. Default `many`: workers on several machines share a run.
   * `one` gives the SQLite store's single-owner lease.
   */
  readonly owners?: "one" | "many"
  /** Readers (`vtree report`): a database without vtree's tables is refused, not set up. */
  readonly mustExist?: boolean
  /** Never write, migrations included: a database of an older schema reads as it is. Implies mustExist. */
  readonly readOnly?: boolean
  /** How long claims, heartbeats and saves keep asking through a lost connection; default 120 s (StoreOutage). */
  readonly outageSeconds?: number
}

/**
 * What the database holds, checked before anything is written: a reader must not create vtree's
 * tables in a database named by mistake, and nobody may migrate one a newer vtree wrote.
 */
const prepare = (shown: string, options: PgRunStoreOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const readOnly = options.readOnly === true
    const tables = (yield* SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ table_name: Schema.String }),
      execute: () => sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
    })(undefined)).map((row) => row.table_name)
    if (tables.includes("effect_sql_migrations")) {
      const { newest } = yield* SqlSchema.single({
        Request: Schema.Void,
        Result: Schema.Struct({ newest: Schema.NullOr(Schema.Number) }),
        execute: () => sql`SELECT MAX(migration_id) AS newest FROM effect_sql_migrations`
      })(undefined)
      if (newest !== null && newest > latestMigrationId) {
        return yield* tooNew(shown, newest, "database")
      }
    } else if (readOnly || options.mustExist === true) {
      return yield* new RunStoreError({
        reason: "DbMissing",
        message: `${shown}: holds no vtree runs (the database has none of vtree's tables) — check the database name ` +
          "in the URL, or run `vtree infer` with it first"
      })
    }
    if (readOnly) {
      return {
        ownership: tables.includes("run_claims"),
        queue: tables.includes("run_questions"),
        counts: tables.includes("run_queues"),
        empty: false
      }
    }
    // Migrated to this vtree's schema on open, so every table and column the store reads exists.
    yield* migrateOnce
    return { ownership: true, queue: true, counts: true, empty: false }
  })

/**
 * The run store on a PostgreSQL server: the same port, schema and migrations as the SQLite store
 * (applied on open, once, under the migrator's lock), many processes may share it.
 */
export const layer = (options: PgRunStoreOptions): Layer.Layer<RunStore | SqlClient.SqlClient, RunStoreError> => {
  const shown = displayUrl(Redacted.value(options.url))
  const client = layerClients(PgClient.make({
    url: options.url,
    types: bigintAsNumber,
    maxConnections: options.maxConnections ?? 10,
    connectTimeout: "10 seconds",
    applicationName: "vtree",
    ...nameTransforms
  }))
  const ready = Layer.effect(SchemaFacts, prepare(shown, options)).pipe(Layer.provideMerge(client))
  const failure = (what: string, cause: unknown) => storageError(shown, what, cause)
  const store = Layer.effect(
    RunStore,
    make(shown, {
      owners: options.owners ?? "many",
      failure,
      ...(options.outageSeconds === undefined ? {} : { outageSeconds: options.outageSeconds })
    })
  ).pipe(
    Layer.provideMerge(ready)
  )
  return Layer.mapError(store, (cause) =>
    cause instanceof RunStoreError ? cause : new RunStoreError({
      reason: "DbUnreadable",
      message: `${shown}: cannot open the run database (${describeCause(cause)}) — ` +
        "check that the server is up and the URL (--db / VTREE_DB_URL) is right"
    }))
}
