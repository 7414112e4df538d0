// What an opened database holds, as each dialect finds it before the store reads or writes a row.
import { Context } from "effect"
import { RunStoreError } from "../../services/RunStore.js"
import { latestMigrationId } from "./Migrations.js"

/** What the opened database holds, so reads of an older schema ask only for what exists. */
export class SchemaFacts extends Context.Tag("vtree/sql/SchemaFacts")<SchemaFacts, {
  /** run_claims, runs.selection_json and llm_calls.superseded (migration 0004) exist. */
  readonly ownership: boolean
  /** run_questions and predictions.worker (migration 0007) exist. */
  readonly queue: boolean
  /** run_queues, predictions.save_token (migration 0013) exist. */
  readonly counts: boolean
  /** The database holds no table at all (only possible read-only: writers migrate it). */
  readonly empty: boolean
}>() {}

/** A database whose schema has migrations this vtree does not know: never read as ours, never migrated. */
export const tooNew = (shown: string, newest: number, what: "file" | "database"): RunStoreError =>
  new RunStoreError({
    reason: "DbTooNew",
    message: `${shown}: written by a newer vtree (schema ${newest}; this vtree knows up to ${latestMigrationId}) — ` +
      `upgrade vtree to read or continue its runs, or pass --db with another ${what}`
  })
