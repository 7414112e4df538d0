// #33 (minor): `--out /dev/null` got a raw library message. An output path that is there and is not a
// regular file (a device, a folder, a FIFO) is refused before anything is written, with one line naming
// the path and the fix, for every command that writes a result: report, export and tree html.
// Integration, because the FIFO is made with mkfifo.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { tempDir } from "../../support/harness/Cli.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

const temp = tempDir()
afterAll(temp.cleanup)

const db = path.join(temp.dir, "x.db")
const trees = path.join(temp.dir, "trees")
const folder = path.join(temp.dir, "a-folder")
const fifo = path.join(temp.dir, "a-fifo")

const prepared = (async () => {
  writeTree(path.join(trees, "VID"), syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }))
  fs.mkdirSync(folder)
  execFileSync("mkfifo", [fifo])
  // A run to report on and export.
  await Effect.runPromise(
    Effect.flatMap(RunStore, (store) => store.startRun({ runId: "r1", config: {} })).pipe(
      Effect.provide(SqliteRunStore.layer({ filename: db }))
    )
  )
})()

const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["report", ["report", "--db", db, "--format", "json"]],
  ["export", ["export", "--db", db, "--format", "csv"]],
  ["tree html", ["tree", "html", path.join(trees, "VID")]]
]

describe("--out that is not a regular file", () => {
  for (const [name, args] of commands) {
    it(`${name} --out a folder, a FIFO or a device is one vtree: line naming the path, and nothing is written`, async () => {
      await prepared
      for (const [out, kind] of [[folder, "a folder"], [fifo, "a FIFO"], ["/dev/null", "a device"]] as const) {
        const result = await runCli([...args, "--out", out], {})
        assert.strictEqual(result.code, 1, `${name} --out ${out}: ${result.stderr}`)
        const lines = result.stderr.trim().split("\n")
        assert.strictEqual(lines.length, 1, result.stderr)
        assert.strictEqual(
          lines[0],
          `vtree: --out ${out}: is ${kind}, not a regular file — give a file path to write to, or leave out --out to print to stdout`
        )
      }
      assert.isTrue(fs.statSync(folder).isDirectory())
      assert.deepStrictEqual(fs.readdirSync(folder), [])
      assert.isTrue(fs.statSync(fifo).isFIFO())
      assert.isTrue(fs.statSync("/dev/null").isCharacterDevice())
      assert.deepStrictEqual(fs.readdirSync(temp.dir).filter((file) => file.endsWith(".tmp")), [])
    })
  }
})
