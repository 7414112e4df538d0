// `vtree export` in-process over a real SQLite store: by default the run's own benchmark's format; another
// benchmark's format refused in one line; a run stored before benchmarks were recorded exports as Video-MME.
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeFailure } from "../../../src/cli/ErrorReport.js"
import { exportCommand } from "../../../src/cli/export/ExportCommand.js"
import type { BenchmarkFacts } from "../../../src/domain/Question.js"
import type { StoredRunConfig } from "../../../src/domain/RunConfig.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { capturedTerminal } from "../../support/cli/CapturedTerminal.js"
import { prediction } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("export")

const lvFacts = (uid: string): BenchmarkFacts => ({
  name: "lvbench",
  categories: [{ axis: "question type", labels: ["ER"] }],
  originalKey: "B",
  durationSeconds: 3930,
  durationGroup: null,
  source: { file: "video_info.meta.jsonl", location: "line 1: qa[0]" },
  row: {
    uid,
    question: "Q?\n(A) one\n(B) two\n(C) three\n(D) four",
    answer: "B",
    question_type: ["entity recognition"]
  }
})

/** One run of two questions: one answered B, one unanswered. */
const fill = (
  file: string,
  runId: string,
  config: typeof StoredRunConfig.Encoded,
  facts: (uid: string) => BenchmarkFacts | null
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId, config })
    for (const [id, answered] of [["7", "B"], ["8", null]] as const) {
      const f = facts(id)
      yield* store.saveQuestion(runId, {
        prediction: prediction({
          questionId: id,
          prediction: answered,
          correct: answered === "B",
          ...(f === null ? {} : { benchmark: f })
        }),
        steps: [],
        calls: []
      })
    }
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

const exportOf = (...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const cli = Command.run(exportCommand, { name: "vtree", version: "test" })
    const exit = yield* Effect.exit(cli(["node", "vtree", ...args]))
    return Exit.isFailure(exit) ? describeFailure(exit.cause) : undefined
  }).pipe(Effect.provide([NodeContext.layer, capturedTerminal().layer]))

describe("vtree export by the run's benchmark", () => {
  it.scoped("an LVBench run exports {uid: letter} by default; --format videomme is refused in one line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const db = path.join(dir, "runs.db")
      yield* fill(db, "lv", { benchmark: "lvbench" }, lvFacts)
      const out = path.join(dir, "lv.json")
      assert.isUndefined(yield* exportOf("--db", db, "--run-id", "lv", "--out", out))
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(out, "utf8")), { "7": "B", "8": "E" })
      const refused = yield* exportOf(
        "--db",
        db,
        "--run-id",
        "lv",
        "--format",
        "videomme",
        "--out",
        path.join(dir, "mme.json")
      )
      assert.strictEqual(
        refused,
        "vtree: --format videomme: run lv is a lvbench run — export it as lvbench (its benchmark's own format), jsonl or csv"
      )
      assert.isFalse(fs.existsSync(path.join(dir, "mme.json")))
      assert.isUndefined(
        yield* exportOf("--db", db, "--run-id", "lv", "--format", "jsonl", "--out", path.join(dir, "lv.jsonl"))
      )
      assert.deepStrictEqual(
        fs.readFileSync(path.join(dir, "lv.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l).outcome),
        ["correct", "unanswered"]
      )
    }))

  it.scoped("a run stored before benchmarks were recorded exports as Video-MME by default", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const db = path.join(dir, "runs.db")
      yield* fill(db, "old", {}, () => null)
      const out = path.join(dir, "old.json")
      assert.isUndefined(yield* exportOf("--db", db, "--out", out))
      const videos = JSON.parse(fs.readFileSync(out, "utf8")) as ReadonlyArray<
        { video_id: string; questions: ReadonlyArray<{ response: string }> }
      >
      assert.deepStrictEqual(videos.map((v) => [v.video_id, v.questions.map((q) => q.response)]), [["vid1", ["B", ""]]])
      const refused = yield* exportOf("--db", db, "--format", "nextqa")
      assert.include(refused ?? "", "run old is a videomme run — export it as videomme")
    }))
})
