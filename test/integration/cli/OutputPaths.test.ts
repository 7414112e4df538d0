// #21 point 6: `export --db x.db --out x.db` replaced the run database with a CSV file, and
// `report --format html --out x.db` did the same. An output never lands on an input (symlinks followed,
// the database's -wal/-shm included) nor on any SQLite database, and is written whole or not at all.
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeFailure } from "../../../src/cli/ErrorReport.js"
import { exportCommand } from "../../../src/cli/export/ExportCommand.js"
import { reportCommand } from "../../../src/cli/report/ReportCommand.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { capturedTerminal } from "../../support/cli/CapturedTerminal.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("out")

/** A database holding one (empty) run. */
const databaseWithRun = (file: string) =>
  Effect.flatMap(RunStore, (store) => store.startRun({ runId: "r1", config: {} })).pipe(
    Effect.provide(SqliteRunStore.layer({ filename: file }))
  )

const run = (command: typeof exportCommand | typeof reportCommand, ...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const err: Array<string> = []
    const cli = Command.run(command as typeof exportCommand, { name: "vtree", version: "test" })
    const exit = yield* Console.consoleWith((real) =>
      Effect.withConsole(cli(["node", "vtree", ...args]), {
        ...real,
        log: () => Effect.void,
        error: (...xs: ReadonlyArray<unknown>) => Effect.sync(() => void err.push(xs.join(" ")))
      })
    ).pipe(Effect.exit)
    return { exit, line: Exit.isFailure(exit) ? describeFailure(exit.cause) : undefined, stderr: err.join("\n") }
  }).pipe(Effect.provide([NodeContext.layer, capturedTerminal().layer]))

const isSqlite = (file: string) => fs.readFileSync(file).subarray(0, 15).toString("latin1") === "SQLite format 3"

describe("--out never hits an input", () => {
  it.scoped("export --out the database, its -wal, or a symlink to it is refused and the database stays whole", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const db = path.join(dir, "x.db")
      yield* databaseWithRun(db)
      fs.symlinkSync(db, path.join(dir, "link.csv"))
      for (const out of [db, `${db}-wal`, path.join(dir, "link.csv")]) {
        const { line } = yield* run(exportCommand, "--db", db, "--format", "csv", "--out", out)
        assert.match(
          line ?? "",
          /^vtree: --out .*: is .*one of this command's inputs — write the result to another file$/
        )
        assert.isTrue(isSqlite(db))
      }
    }))

  it.scoped("report --format html --out the database is refused; so is any other SQLite database", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const db = path.join(dir, "x.db")
      const other = path.join(dir, "other.db")
      yield* databaseWithRun(db)
      yield* databaseWithRun(other)
      const same = yield* run(reportCommand, "--db", db, "--format", "html", "--out", db)
      assert.include(same.line ?? "", "one of this command's inputs")
      const database = yield* run(reportCommand, "--db", db, "--format", "json", "--out", other)
      assert.include(database.line ?? "", `--out ${other}: is an SQLite database`)
      assert.isTrue(isSqlite(db) && isSqlite(other))
    }))

  it.scoped("export and report never overwrite the run's question file, nor write inside its trees or question folder", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const db = path.join(dir, "x.db")
      const questions = path.join(dir, "questions.jsonl")
      const questionFolder = path.join(dir, "questions")
      const trees = path.join(dir, "trees")
      fs.writeFileSync(questions, "{\"question_id\": \"q1\"}\n")
      fs.mkdirSync(path.join(trees, "v1"), { recursive: true })
      fs.writeFileSync(path.join(trees, "v1", "tree.json"), "{}")
      fs.mkdirSync(questionFolder)
      yield* Effect.flatMap(RunStore, (store) =>
        Effect.zipRight(
          store.startRun({ runId: "r1", config: { questionsPath: questions, treesDir: trees } }),
          store.startRun({ runId: "r2", config: { questionsPath: questionFolder, treesDir: trees } })
        )).pipe(Effect.provide(SqliteRunStore.layer({ filename: db })))
      const onFile = yield* run(exportCommand, "--db", db, "--run-id", "r1", "--format", "jsonl", "--out", questions)
      assert.match(onFile.line ?? "", /^vtree: --out .*questions\.jsonl: is one of this command's inputs/)
      assert.strictEqual(fs.readFileSync(questions, "utf8"), "{\"question_id\": \"q1\"}\n")
      const inTrees = yield* run(
        reportCommand,
        "--db",
        db,
        "--run-id",
        "r1",
        "--format",
        "html",
        "--out",
        path.join(trees, "v1", "tree.json")
      )
      assert.include(inTrees.line ?? "", "lies inside")
      assert.strictEqual(fs.readFileSync(path.join(trees, "v1", "tree.json"), "utf8"), "{}")
      const inFolder = yield* run(
        exportCommand,
        "--db",
        db,
        "--run-id",
        "r2",
        "--format",
        "jsonl",
        "--out",
        path.join(questionFolder, "new.json")
      )
      assert.include(inFolder.line ?? "", "lies inside")
      assert.isFalse(fs.existsSync(path.join(questionFolder, "new.json")))
    }))

  it.scoped("a good --out is written whole, with no temporary file left beside it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const db = path.join(dir, "x.db")
      yield* databaseWithRun(db)
      const out = path.join(dir, "run.csv")
      fs.writeFileSync(out, "old content that is longer than the new export, by quite a lot of characters")
      const { exit, stderr } = yield* run(exportCommand, "--db", db, "--format", "csv", "--out", out)
      assert.isTrue(Exit.isSuccess(exit))
      assert.include(stderr, `vtree: wrote run r1 as csv to ${out}`)
      assert.isTrue(fs.readFileSync(out, "utf8").startsWith("run_id,agent_model,question_id,"))
      assert.deepStrictEqual(fs.readdirSync(dir).filter((name) => name.endsWith(".tmp")), [])
    }))
})
