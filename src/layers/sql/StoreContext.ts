// What every part of the SQL store shares: its client (which translates column names), what the
// opened database holds, the name messages give it, and how a failure becomes one line for people.
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type { ParseResult, Scope } from "effect"
import { Context, Effect, Layer, Option, String as Str } from "effect"
import { storedRowProblem } from "../../domain/DecodeIssue.js"
import { RunStoreError } from "../../services/RunStore.js"
import type { RideOut } from "./OutageRetry.js"
import type { SchemaFacts } from "./SchemaFacts.js"

/** Column names are snake_case in SQL and camelCase in the row models (Rows.ts); the client translates. */
export const nameTransforms = {
  transformResultNames: Str.snakeToCamel,
  transformQueryNames: Str.camelToSnake
} as const

/** The store's client: the dialect's connection, built with `nameTransforms`. */
export class StoreClient extends Context.Tag("vtree/sql/StoreClient")<StoreClient, SqlClient.SqlClient>() {}

/**
 * Both clients over the one connection (pool) that `client` opens: the store's, which translates
 * names, and the plain SqlClient that migrations run on and that the layer also exposes for ad-hoc
 * queries (raw column names, as ever). Transactions of either are the same transactions.
 */
export const layerClients = <E>(
  client: Effect.Effect<SqlClient.SqlClient, E, Scope.Scope | Reactivity.Reactivity>
): Layer.Layer<StoreClient | SqlClient.SqlClient, E> =>
  Layer.scopedContext(
    Effect.map(client, (sql) =>
      Context.make(StoreClient, sql).pipe(Context.add(SqlClient.SqlClient, sql.withoutTransforms())))
  ).pipe(Layer.provide(Reactivity.layer))

export type Guard = (
  what: string
) => <A, R>(
  effect: Effect.Effect<A, RunStoreError | SqlError | ParseResult.ParseError, R>
) => Effect.Effect<A, RunStoreError, R>

export interface StoreContext {
  readonly sql: SqlClient.SqlClient
  readonly facts: SchemaFacts["Type"]
  /** Names the database in messages: a path, or a URL without its password. */
  readonly name: string
  /** How many live claims a run may have: see RunStoreShape.owners. */
  readonly owners: "one" | "many"
  /** Ends every failure of `what` (an operation: "saving question q1 of run r") as one RunStoreError. */
  readonly guarded: Guard
  /**
   * Asks `what` again while the database is unreachable, up to the outage bound (VTREE_DB_OUTAGE_SECONDS);
   * past it, the failure names `runId`'s `--resume`. Goes outside `guarded`, whose failures it reads.
   */
  readonly rideOut: RideOut
  /** How the database is no longer the one opened (see StoreOptions.fileChange); undefined while it is. */
  readonly fileChange: () => FileChange | undefined
}

/** What became of a database file under the process that opened it. */
export type FileChange = "replaced" | "deleted"

/**
 * Every failure ends as one RunStoreError a person reads: `failure` says what the engine's error
 * means; a row that does not decode was written by something other than this store.
 */
export const makeGuard =
  (name: string, failure: (what: string, cause: unknown) => RunStoreError): Guard => (what) => (effect) =>
    effect.pipe(
      Effect.catchTags({
        SqlError: (error: SqlError) => Effect.fail(failure(what, error)),
        ParseError: (error: ParseResult.ParseError) =>
          Effect.fail(
            new RunStoreError({
              reason: "Sql",
              message:
                `${name}: ${what} failed: ${storedRowProblem(error)} — the row was changed outside vtree or is ` +
                `damaged: fix or delete it, or restore the database from a copy`
            })
          )
      }),
      // @effect/sql turns a failed COMMIT or ROLLBACK into a defect; on a full disk or a read-only file
      // that is exactly where SQLite reports it, so those defects end as the same one line.
      Effect.catchSomeDefect((defect) =>
        defect instanceof SqlError ? Option.some(Effect.fail(failure(what, defect))) : Option.none()
      )
    )
