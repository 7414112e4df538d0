// The SQLite dialect of the run store: one file (WAL, an application id that marks it as vtree's,
// migrations on open), opened read-only through a private copy where SQLite cannot open it in place.
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { RunStore, RunStoreError } from "../../../services/RunStore.js"
import { SchemaFacts } from "../SchemaFacts.js"
import { make } from "../SqlRunStore.js"
import { layerClients, nameTransforms } from "../StoreContext.js"
import { checkFile, prepare, storageError, watchFile } from "./SqliteFile.js"

export interface SqliteRunStoreOptions {
  readonly filename: string
  /** Readers (`vtree report`) must not create an empty database where the user mistyped a path. */
  readonly mustExist?: boolean
  /**
   * Open read-only and never write: no migrations, no pragma that writes. A database of an older
   * schema still reads (what it lacks reads as absent). Implies `mustExist`.
   */
  readonly readOnly?: boolean
  /**
   * How many live claims a run may have: `one` (default, a lease: a second process on a live run is
   * refused) or `many` (processes on this machine share runs as workers, as on PostgreSQL).
   */
  readonly owners?: "one" | "many"
  /** How long claims, heartbeats and saves wait out a write lock another process holds (SQLITE_BUSY); 120 s. */
  readonly outageSeconds?: number
}

/**
 * The run store over one SQLite file (WAL, foreign keys on, migrations applied on open unless
 * read-only). Refuses a file that is not a vtree database, or was written by a newer vtree, before
 * anything is written. Also exposes the SqlClient, for callers that need an ad-hoc query against
 * the same connection.
 */
export const layer = (options: SqliteRunStoreOptions): Layer.Layer<RunStore | SqlClient.SqlClient, RunStoreError> => {
  const { filename } = options
  const readOnly = options.readOnly === true
  const owners = options.owners ?? "one"
  const direct = open(filename, filename, readOnly, owners, options.outageSeconds)
  // SQLite cannot open a WAL database read-only where it may not create the -shm file beside it (a
  // read-only mount): `vtree report` then reads a private copy of the file, which it never writes.
  const opened = readOnly
    ? Layer.catchAll(direct, (error) => error.reason === "DbReadOnly" ? readCopy(filename, owners) : Layer.fail(error))
    : direct
  return Layer.unwrapEffect(
    Effect.as(checkFile({ ...options, mustExist: options.mustExist === true || readOnly }), opened)
  )
}

/** The store over `file`; messages name `shown`, the path the user gave. */
const open = (file: string, shown: string, readOnly: boolean, owners: "one" | "many", outageSeconds?: number) => {
  // WAL is switched on by prepare, after the file has been found to be vtree's: setting it is a write.
  const client = layerClients(
    SqliteClient.make({ filename: file, readonly: readOnly, disableWAL: true, ...nameTransforms })
  )
  const ready = Layer.effect(SchemaFacts, prepare(shown, readOnly)).pipe(Layer.provideMerge(client))
  const failure = (what: string, cause: unknown) => storageError(shown, what, cause)
  // The file's identity is taken once it is open (and created): a run notices it replaced under it.
  const store = Layer.effect(
    RunStore,
    Effect.suspend(() =>
      make(shown, {
        owners,
        failure,
        fileChange: watchFile(file),
        ...(outageSeconds === undefined ? {} : { outageSeconds })
      })
    )
  ).pipe(Layer.provideMerge(ready))
  // better-sqlite3 throws from inside the client's constructor (a defect, not an error) for a file it
  // cannot open: every way of failing to open ends as one RunStoreError.
  return Layer.catchAllCause(store, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value instanceof RunStoreError) return Layer.fail(failure.value)
    const error = Option.isSome(failure) ? failure.value : Cause.squash(cause)
    return Layer.fail(storageError(shown, "opening the database", error, "cannot open the run database"))
  })
}

const readCopy = (filename: string, owners: "one" | "many") =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "vtree-report-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const copy = nodePath.join(dir, "copy.db")
    yield* Effect.try({
      try: () => {
        fs.copyFileSync(filename, copy)
        // Commits not yet checkpointed live in the -wal file: without it the copy would miss them.
        if (fs.existsSync(`${filename}-wal`)) fs.copyFileSync(`${filename}-wal`, `${copy}-wal`)
      },
      catch: (error) => storageError(filename, "copying the database to read it", error)
    })
    return open(copy, filename, true, owners)
  }))
