// Opening an SQLite file as vtree's run database: is it there, is it vtree's at all, how new is its
// schema, and what a failure of SQLite means in words a person can act on (disk full, read-only,
// damaged). SqliteRunStore opens the engine-neutral store (../SqlRunStore.ts) on top.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { RunStoreError } from "../../../services/RunStore.js"
import { latestMigrationId, migrate, vtreeApplicationId } from "../Migrations.js"
import { tooNew } from "../SchemaFacts.js"
import { errorCode, storageError as describeFailure } from "../StorageError.js"
import type { FileChange } from "../StoreContext.js"

export interface CheckFileOptions {
  readonly filename: string
  readonly mustExist?: boolean
}

// better-sqlite3 throws (a defect, not an error) from inside the client's constructor for a missing
// directory or a file that is not SQLite, so those are checked first, with a message that says why.
export const checkFile = (options: CheckFileOptions) =>
  Effect.suspend(() => {
    const { filename } = options
    const fail = (reason: RunStoreError["reason"], message: string) =>
      Effect.fail(new RunStoreError({ reason, message }))
    if (!fs.existsSync(filename)) {
      if (options.mustExist === true) {
        return fail(
          "DbMissing",
          `${filename}: no such database — run \`vtree infer\` first, or pass --db with the right path`
        )
      }
      const dir = nodePath.dirname(nodePath.resolve(filename))
      if (!fs.existsSync(dir)) {
        return fail(
          "DbUnreadable",
          `${filename}: the directory ${dir} does not exist — create it or pass another --db path`
        )
      }
      return Effect.void
    }
    const stat = fs.statSync(filename)
    if (!stat.isFile()) {
      return fail("DbUnreadable", `${filename}: not a file — pass --db with the path of a database file`)
    }
    if (stat.size > 0 && !hasSqliteHeader(filename)) {
      return fail("DbUnreadable", `${filename}: not an SQLite database — pass --db with a vtree database file`)
    }
    return Effect.void
  })

/**
 * What becomes of `filename` from now on: `replaced` once another file has its path (moved or restored
 * over it), `deleted` once none has. An open connection goes on writing to the file it opened, where
 * nobody will read it. A copy written into the file itself (`cp` onto it) keeps its identity and is not
 * seen here; SQLite then reads whatever the two files' pages make.
 */
export const watchFile = (filename: string): () => FileChange | undefined => {
  const identity = (stats: fs.BigIntStats) => `${stats.dev}:${stats.ino}`
  const opened = fs.statSync(filename, { bigint: true, throwIfNoEntry: false })
  if (opened === undefined) return () => undefined
  const original = identity(opened)
  return () => {
    try {
      const now = fs.statSync(filename, { bigint: true, throwIfNoEntry: false })
      return now === undefined ? "deleted" : identity(now) === original ? undefined : "replaced"
    } catch {
      // Not allowed to look (the folder's permissions changed): nothing can be said either way.
      return undefined
    }
  }
}

const sqliteMagic = Buffer.from("SQLite format 3\u0000", "latin1")

const hasSqliteHeader = (filename: string): boolean => {
  const fd = fs.openSync(filename, "r")
  try {
    const head = Buffer.alloc(sqliteMagic.length)
    const read = fs.readSync(fd, head, 0, head.length, 0)
    return read === head.length && head.equals(sqliteMagic)
  } finally {
    fs.closeSync(fd)
  }
}

const TableNames = Schema.Array(Schema.Struct({ name: Schema.String }))
const AppId = Schema.Array(Schema.Struct({ application_id: Schema.Number }))
const MigrationIds = Schema.Array(Schema.Struct({ migration_id: Schema.Number, name: Schema.String }))

/**
 * Whose database this is and how new: never migrate a file another program wrote (it may well have a
 * `runs` table of its own), nor one a newer vtree wrote.
 */
const inspect = (filename: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const decode = <A, I>(schema: Schema.Schema<A, I>) => (rows: unknown) => Schema.decodeUnknown(schema)(rows)
    const tables = (yield* Effect.flatMap(
      sql`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`,
      decode(TableNames)
    ))
      .map((row) => row.name)
    const appId = (yield* Effect.flatMap(sql`PRAGMA application_id`, decode(AppId)))[0]?.application_id ?? 0
    if (tables.length === 0 && appId === 0) return { tables, newest: 0 }
    const has = (name: string) => tables.includes(name)
    const applied = has("effect_sql_migrations")
      ? yield* Effect.flatMap(
        sql`SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`,
        decode(MigrationIds)
      )
      : []
    // Databases from before migration 0004 carry no application id: they are ours when they hold
    // vtree's first migration and its tables.
    const legacy = appId === 0 && applied.some((m) => m.migration_id === 1 && m.name === "initial") &&
      has("runs") && has("predictions") && has("llm_calls")
    if (appId !== vtreeApplicationId && !legacy) {
      const shown = tables.slice(0, 5).join(", ") + (tables.length > 5 ? ", …" : "")
      return yield* new RunStoreError({
        reason: "DbForeign",
        message:
          `${filename}: not a vtree database (it holds ${tables.length === 0 ? "no tables" : `tables ${shown}`}) — ` +
          `vtree never changes a database it did not create; pass --db with a vtree database or a new file`
      })
    }
    const newest = applied.reduce((max, m) => Math.max(max, m.migration_id), 0)
    if (newest > latestMigrationId) {
      return yield* tooNew(filename, newest, "file")
    }
    return { tables, newest }
  })

export const prepare = (filename: string, readOnly: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Foreign keys guard the links between rows; NORMAL sync under WAL survives a killed process (only
    // power loss can drop the last commits) at a fraction of FULL's cost. Neither writes the file.
    yield* sql`PRAGMA foreign_keys = ON`
    if (!readOnly) yield* sql`PRAGMA synchronous = NORMAL`
    yield* sql`PRAGMA busy_timeout = 5000`
    const found = yield* inspect(filename)
    if (readOnly) {
      return {
        ownership: found.tables.includes("run_claims"),
        queue: found.tables.includes("run_questions"),
        counts: found.tables.includes("run_queues"),
        empty: found.tables.length === 0
      }
    }
    yield* sql`PRAGMA journal_mode = WAL`
    // A migration that rebuilds a table (0005) must not cascade deletes: foreign keys on only after.
    yield* sql`PRAGMA foreign_keys = OFF`
    yield* migrate
    yield* sql`PRAGMA foreign_keys = ON`
    return { ownership: true, queue: true, counts: true, empty: false }
  }).pipe(
    Effect.catchTags({
      SqlError: (error) =>
        Effect.fail(storageError(filename, "opening the database", error, "cannot open the run database")),
      ParseError: (error) =>
        Effect.fail(storageError(filename, "opening the database", error, "cannot open the run database")),
      MigrationError: (error) =>
        Effect.fail(storageError(filename, "updating the database schema", error, "cannot update the database schema"))
    })
  )

/** EROFS / EACCES when the file (or, for a new one, its folder) cannot be written; undefined otherwise. */
const unwritable = (filename: string): string | undefined => {
  const target = fs.existsSync(filename) ? filename : nodePath.dirname(nodePath.resolve(filename))
  for (const path of [target, nodePath.dirname(nodePath.resolve(filename))]) {
    try {
      fs.accessSync(path, fs.constants.W_OK)
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (typeof code === "string") return code
    }
  }
  return undefined
}

/**
 * What SQLite's failure means for `filename` (see StorageError.ts). SQLite says only "unable to open
 * database file" where it may not create the file or its -wal/-shm: the file system says why.
 */
export const storageError = (filename: string, what: string, cause: unknown, generic?: string): RunStoreError => {
  const raw = errorCode(cause) ?? ""
  const code = raw.startsWith("SQLITE_CANTOPEN") ? (unwritable(filename) ?? raw) : raw
  return describeFailure(filename, what, cause, generic, code)
}
