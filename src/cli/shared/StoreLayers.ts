/** Run stores: the one `--db` names, or those `report`, `runs` and `infer` open by name as they need them. */
import { Context, Effect, Layer, Redacted } from "effect"
import * as path from "node:path"
import type { ConfigurationError } from "../../config/ConfigurationError.js"
import { loadDbOutageSeconds } from "../../config/StoreConfig.js"
import * as BuildQueueRepository from "../../layers/sql/BuildQueueRepository.js"
import * as JudgementRepository from "../../layers/sql/JudgementRepository.js"
import * as PgRunStore from "../../layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../../layers/sql/sqlite/SqliteRunStore.js"
import { BuildQueue, type BuildQueueShape } from "../../services/BuildQueue.js"
import { JudgementStore, type JudgementStoreShape } from "../../services/JudgementStore.js"
import { RunStore, type RunStoreError, type RunStoreShape } from "../../services/RunStore.js"

/**
 * The RunStore `--db` names: a `postgres://` URL or an SQLite file. `mustExist` refuses to create a
 * missing SQLite file (or to set up an empty PostgreSQL database), and `readOnly` (report, export)
 * opens it without writing anything, migrations included. A PostgreSQL run is shared: workers started
 * with one --run-id join it.
 */
export const runStore = (
  db: string,
  options: { readonly mustExist?: boolean; readonly readOnly?: boolean; readonly outageSeconds?: number } = {}
) =>
  PgRunStore.isPostgresUrl(db)
    ? PgRunStore.layer({ url: Redacted.make(db), ...options })
    : SqliteRunStore.layer({ filename: db, ...options })

/** Run stores a command opens by name when it needs one, each the first time it is named, for the command's scope. */
export class RunStores extends Context.Tag("vtree/cli/RunStores")<RunStores, {
  /** `mustExist`: refuse a database that is not there rather than create it. */
  readonly open: (
    db: string,
    options?: { readonly mustExist?: boolean }
  ) => Effect.Effect<RunStoreShape, RunStoreError>
  /** The verdicts of judges kept in the database `open` opened (or opens) for `db`. */
  readonly judgements: (
    db: string,
    options?: { readonly mustExist?: boolean }
  ) => Effect.Effect<JudgementStoreShape, RunStoreError>
  /** The build queue (`vtree build --db`) kept in the database `open` opened (or opens) for `db`. */
  readonly builds: (db: string) => Effect.Effect<BuildQueueShape, RunStoreError>
}>() {}

const stores = <E>(readOnly: boolean, outage: Effect.Effect<number | undefined, E>): Layer.Layer<RunStores, E> =>
  Layer.scoped(
    RunStores,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const outageSeconds = yield* outage
      const opened = new Map<string, RunStoreShape>()
      const judged = new Map<string, JudgementStoreShape>()
      const queues = new Map<string, BuildQueueShape>()
      const open = (db: string, options: { readonly mustExist?: boolean } = {}) => {
        const key = databaseKey(db)
        const known = opened.get(key)
        return known !== undefined ?
          Effect.succeed(known) :
          Layer.buildWithScope(
            Layer.provideMerge(
              Layer.merge(
                JudgementRepository.layer(displayDb(db)),
                BuildQueueRepository.layer(displayDb(db), outageSeconds)
              ),
              runStore(db, { ...options, readOnly, ...(outageSeconds === undefined ? {} : { outageSeconds }) })
            ),
            scope
          ).pipe(
            Effect.map((context) => {
              judged.set(key, Context.get(context, JudgementStore))
              queues.set(key, Context.get(context, BuildQueue))
              return Context.get(context, RunStore)
            }),
            Effect.tap((store) => Effect.sync(() => opened.set(key, store)))
          )
      }
      return RunStores.of({
        open,
        judgements: (db, options) => Effect.map(open(db, options), () => judged.get(databaseKey(db))!),
        builds: (db) => Effect.map(open(db), () => queues.get(databaseKey(db))!)
      })
    })
  )

/**
 * `report` (one run or two, from one database or two) and `runs`: a database is opened only when a run is
 * read from it, so `report --compare A.db#R B.db#S` never touches the default vtree.db. A name opened twice
 * (`vtree.db`, `./vtree.db`) is one store.
 */
export const readOnly: Layer.Layer<RunStores> = stores(true, Effect.succeed(undefined))

/**
 * `infer`: the store is opened once the run's inputs are checked, so a mistyped flag never leaves an
 * empty database behind (a resumed run's store first, as its inputs are stored there).
 */
export const writable: Layer.Layer<RunStores, ConfigurationError> = stores(false, loadDbOutageSeconds)

/** One name per database: an SQLite file by its absolute path, a PostgreSQL URL as given. */
export const databaseKey = (db: string): string => (PgRunStore.isPostgresUrl(db) ? db : path.resolve(db))

/** The database as messages name it: a URL without its password. */
export const displayDb = (db: string): string => (PgRunStore.isPostgresUrl(db) ? PgRunStore.displayUrl(db) : db)
