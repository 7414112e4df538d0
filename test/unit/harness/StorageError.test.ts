import { assert, describe, it } from "@effect/vitest"
import { storageError } from "../../../src/layers/sql/sqlite/SqliteFile.js"

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("storageError", () => {
  it("names what SQLite reported in one line a person can act on", () => {
    const cases: ReadonlyArray<[unknown, string, RegExp]> = [
      [{ cause: sqliteError("SQLITE_FULL", "database or disk is full") }, "DiskFull", /disk full while saving .* free space/],
      [sqliteError("SQLITE_READONLY", "attempt to write a readonly database"), "DbReadOnly", /read-only location .* writable path/],
      [sqliteError("SQLITE_CORRUPT", "database disk image is malformed"), "DbCorrupt", /damaged or truncated .* restore it from a copy/],
      [sqliteError("SQLITE_NOTADB", "file is not a database"), "DbCorrupt", /damaged or truncated/],
      [sqliteError("SQLITE_MISMATCH", "datatype mismatch"), "Sql", /saving failed \(datatype mismatch\)/]
    ]
    for (const [cause, reason, message] of cases) {
      const error = storageError("/data/vtree.db", "saving", cause)
      assert.strictEqual(error.reason, reason)
      assert.match(error.message, message)
      assert.match(error.message, /^\/data\/vtree\.db: /)
      assert.notInclude(error.message, "\n")
    }
  })
})
