import { Options } from "@effect/cli"
import { Config, Redacted } from "effect"
import * as PgRunStore from "../layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../layers/sql/sqlite/SqliteRunStore.js"

/**
 * `--db`: an SQLite file, or a `postgres://` URL for a PostgreSQL server; falls back to VTREE_DB_URL
 * (a URL carrying a password is better kept out of shell history), then to vtree.db.
 */
export const dbOption = (description: string) =>
  Options.text("db").pipe(
    Options.withDescription(`${description}: an SQLite file, or postgres://user:password@host:5432/database; VTREE_DB_URL when not given. Default: vtree.db.`),
    Options.withFallbackConfig(Config.string("VTREE_DB_URL").pipe(Config.withDefault("vtree.db")))
  )

/** The database as messages name it: a URL without its password. */
export const displayDb = (db: string): string => (PgRunStore.isPostgresUrl(db) ? PgRunStore.displayUrl(db) : db)

/**
 * The RunStore `--db` names; `mustExist` refuses to create a missing SQLite file (or to set up an
 * empty PostgreSQL database), and `readOnly` (report, export) opens it without writing anything,
 * migrations included. A PostgreSQL run is shared: workers started with one --run-id join it.
 */
export const runStoreLayer = (db: string, options: { readonly mustExist?: boolean; readonly readOnly?: boolean } = {}) =>
  PgRunStore.isPostgresUrl(db)
    ? PgRunStore.layer({ url: Redacted.make(db), ...options })
    : SqliteRunStore.layer({ filename: db, ...options })
