// #21 point 10b: a hand-edited row read as "the database was not written by this version of vtree", which
// sends the user after the wrong problem. The message names the table's row and field, and the likely cause.
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("row")

describe("a stored row that does not decode", () => {
  it.scoped("names the row and the field and says the row was changed, not that vtree's version is wrong", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "x.db")
      const error = yield* Effect.gen(function*() {
        const store = yield* RunStore
        const sql = yield* SqlClient.SqlClient
        yield* store.startRun({ runId: "r1", config: {} })
        yield* sql.unsafe(`UPDATE runs SET selection_json = '{not json' WHERE run_id = 'r1'`)
        return yield* Effect.flip(store.loadRun("r1", { includeSteps: false }))
      }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))
      assert.notInclude(error.message, "not written by this version of vtree")
      assert.match(
        error.message,
        /^.*x\.db: loading the run failed: runs row run_id=r1: selection_json: .* — the row was changed outside vtree or is damaged: fix or delete it, or restore the database from a copy$/
      )
    }))
})
