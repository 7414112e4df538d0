import { assert, describe, it } from "@effect/vitest"
import { storageError } from "../../../src/layers/sql/sqlite/SqliteFile.js"
import { storageError as neutralStorageError } from "../../../src/layers/sql/StorageError.js"

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("storageError", () => {
  it("names what SQLite reported in one line a person can act on", () => {
    const cases: ReadonlyArray<[unknown, string, RegExp]> = [
      [
        { cause: sqliteError("SQLITE_FULL", "database or disk is full") },
        "DiskFull",
        /disk full while saving .* free space/
      ],
      [
        sqliteError("SQLITE_READONLY", "attempt to write a readonly database"),
        "DbReadOnly",
        /read-only location .* writable path/
      ],
      [
        sqliteError("SQLITE_CORRUPT", "database disk image is malformed"),
        "DbCorrupt",
        /damaged or truncated .* restore it from a copy/
      ],
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

describe("storageError, engine-neutral", () => {
  it("reads PostgreSQL's failures by their text, naming the database as given", () => {
    const pgError = (code: string, message: string) => ({ cause: Object.assign(new Error(message), { code }) })
    const full = neutralStorageError(
      "postgres://vtree:***@db/vtree",
      "saving",
      pgError("53100", "could not extend file \"base/1/2\": No space left on device")
    )
    assert.strictEqual(full.reason, "DiskFull")
    assert.match(full.message, /^postgres:\/\/vtree:\*\*\*@db\/vtree: disk full while saving/)
    const readOnly = neutralStorageError(
      "postgres://db/vtree",
      "saving",
      pgError("25006", "cannot execute INSERT in a read-only transaction")
    )
    assert.strictEqual(readOnly.reason, "DbReadOnly")
    const other = neutralStorageError(
      "postgres://db/vtree",
      "saving",
      pgError("23505", "duplicate key value violates unique constraint")
    )
    assert.deepStrictEqual([other.reason, other.message.includes("\n")], ["Sql", false])
  })
})
