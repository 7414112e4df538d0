// The run store over SQL, whichever engine: its statements are portable (SQLite and PostgreSQL; the
// schema's differences are declared in Migrations.ts), so each dialect (sqlite/, postgres/) opens its
// connection, checks what the database holds, and builds this store on top.
import { Effect } from "effect"
import { RunStore, type RunStoreError } from "../../services/RunStore.js"
import { defaultOutageSeconds } from "../../services/StoreOutage.js"
import { answerRepository } from "./AnswerRepository.js"
import { rideOutOutage, storeFailure } from "./OutageRetry.js"
import { questionWork } from "./QuestionWork.js"
import { queueRepository } from "./QueueRepository.js"
import { runFailures } from "./RunFailures.js"
import { runLifecycle } from "./RunLifecycle.js"
import { runReads } from "./RunReads.js"
import { runRepository } from "./RunRepository.js"
import { SchemaFacts } from "./SchemaFacts.js"
import { type FileChange, makeGuard, StoreClient } from "./StoreContext.js"

export interface StoreOptions {
  /** How many live claims a run may have: see RunStoreShape.owners. */
  readonly owners: "one" | "many"
  /** What a failed statement means, in one line a person can act on: the dialect knows its engine. */
  readonly failure: (what: string, cause: unknown) => RunStoreError
  /**
   * A database that is one file (SQLite): whether another file now has its path, or none does. The
   * connection still writes to the file it opened, which nobody will read again (or, through the -wal
   * file beside it, into the new one): a run then stops rather than write on. None: a server's database.
   */
  readonly fileChange?: () => FileChange | undefined
  /**
   * How long claims, heartbeats and saves keep asking through a lost connection (PostgreSQL) or a write
   * lock held past the busy timeout (SQLite) before they fail; default 120 s, 0: never ask again.
   */
  readonly outageSeconds?: number
}

/**
 * The store over the StoreClient provided (see StoreContext.layerClients), for a database whose
 * SchemaFacts the dialect found. `name` names the database in messages (a path, or a URL without
 * its password).
 */
export const make = (name: string, options: StoreOptions) =>
  Effect.gen(function*() {
    const sql = yield* StoreClient
    // A lost connection is its own failure, whatever else the engine's message would have said.
    const failure = storeFailure(sql, name, options.failure)
    const ctx = {
      sql,
      facts: yield* SchemaFacts,
      name,
      owners: options.owners,
      guarded: makeGuard(name, failure),
      rideOut: rideOutOutage(name, `${options.outageSeconds ?? defaultOutageSeconds} seconds`),
      fileChange: options.fileChange ?? (() => undefined)
    }
    const runs = runRepository(ctx)
    const queue = queueRepository(ctx)
    const answers = answerRepository(ctx)
    const failures = runFailures(ctx, runs)
    const { readRun, ...reads } = runReads(ctx, runs, queue, answers, failures)
    return RunStore.of({
      owners: options.owners,
      ...runLifecycle(ctx, runs, queue, failures, readRun),
      ...questionWork(ctx, runs, queue, answers, failures),
      ...reads
    })
  })
