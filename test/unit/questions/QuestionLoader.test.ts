// loadQuestionSet: a released file or folder of any layout → the benchmark, the agent's questions and the
// facts the run keeps beside them.
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { loadQuestionSet } from "../../../src/programs/questions/QuestionLoader.js"
import {
  egoSchemaRows,
  egoSchemaSubset,
  json,
  jsonl,
  lvBenchLines,
  mlvuNeedle,
  mlvuPlotQa,
  nextQaCsv
} from "../../support/benchmarks/BenchmarkInputs.js"
import { scopedTempDir } from "../../support/TempDir.js"

const withFiles = (files: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* scopedTempDir("question-loader")
    for (const [name, text] of files) {
      yield* fs.makeDirectory(NodePath.dirname(NodePath.join(dir, name)), { recursive: true })
      yield* fs.writeFileString(NodePath.join(dir, name), text)
    }
    return dir
  })

describe("loadQuestionSet", () => {
  it.scoped("LVBench's video_info.meta.jsonl: questions with their types kept beside them", () =>
    Effect.gen(function*() {
      const dir = yield* withFiles([["video_info.meta.jsonl", jsonl(...lvBenchLines)]])
      const loaded = yield* loadQuestionSet(NodePath.join(dir, "video_info.meta.jsonl"))
      assert.strictEqual(loaded.benchmark, "lvbench")
      assert.deepStrictEqual(loaded.questions.map((q) => [q.questionId, q.videoId, q.answer]), [
        ["1", "4FLo1Y5jGxU", "A"],
        ["2", "4FLo1Y5jGxU", "C"],
        ["3", "Cm73ma6Ibcs", "B"]
      ])
      const facts = loaded.facts.get("2")!
      assert.strictEqual(facts.name, "lvbench")
      assert.deepStrictEqual(facts.categories, [{ axis: "question type", labels: ["Rea", "KIR"] }])
      assert.deepStrictEqual(facts.source, {
        file: NodePath.join(dir, "video_info.meta.jsonl"),
        location: "line 1: qa[1]"
      })
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("an MLVU dev folder: its sorted .json files, dotfiles skipped", () =>
    Effect.gen(function*() {
      const dir = yield* withFiles([
        ["json/2_needle.json", json(mlvuNeedle)],
        ["json/1_plotQA.json", json(mlvuPlotQa)],
        ["json/.1_plotQA.json", "not json"]
      ])
      const loaded = yield* loadQuestionSet(NodePath.join(dir, "json"))
      assert.strictEqual(loaded.benchmark, "mlvu")
      assert.deepStrictEqual(loaded.questions.map((q) => [q.questionId, q.answer]), [["plotQA_0", "A"], [
        "plotQA_1",
        "B"
      ], ["needle_0", "A"]])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("NExT-QA's csv, and EgoSchema with its keys shipped apart (--answers)", () =>
    Effect.gen(function*() {
      const dir = yield* withFiles([
        ["val.csv", nextQaCsv],
        ["questions.json", json(egoSchemaRows)],
        ["subset_answers.json", json(egoSchemaSubset)]
      ])
      const next = yield* loadQuestionSet(NodePath.join(dir, "val.csv"))
      assert.strictEqual(next.benchmark, "nextqa")
      assert.deepStrictEqual(next.questions.map((q) => q.questionId), ["4010069381_6", "4010069381_7", "6233408665_2"])
      const ego = yield* loadQuestionSet(NodePath.join(dir, "questions.json"), {
        answers: NodePath.join(dir, "subset_answers.json")
      })
      assert.strictEqual(ego.benchmark, "egoschema")
      assert.deepStrictEqual(ego.questions.map((q) => q.answer), ["D", "B", null])
      assert.strictEqual(ego.facts.get(egoSchemaRows[0]!.q_uid)!.originalKey, 3)
      const without = yield* loadQuestionSet(NodePath.join(dir, "questions.json"))
      assert.deepStrictEqual(without.questions.map((q) => q.answer), [null, null, null])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("refusals in one line: no known layout, a forced layout that does not fit, a bad JSONL line, a missing --answers", () =>
    Effect.gen(function*() {
      const dir = yield* withFiles([
        ["notes.csv", "a,b\n1,2\n"],
        ["video_info.meta.jsonl", jsonl(...lvBenchLines)],
        ["broken.jsonl", `${JSON.stringify(lvBenchLines[0])}\n{"key": \n`]
      ])
      const unknown = yield* Effect.flip(loadQuestionSet(NodePath.join(dir, "notes.csv")))
      assert.strictEqual(unknown.reason, "UnknownLayout")
      assert.include(unknown.message, "has no question layout vtree reads — vtree reads Video-MME")
      const forced = yield* Effect.flip(
        loadQuestionSet(NodePath.join(dir, "video_info.meta.jsonl"), { benchmark: "Video-MME" })
      )
      assert.include(forced.message, `${NodePath.join(dir, "video_info.meta.jsonl")}: line 1`)
      const broken = yield* Effect.flip(loadQuestionSet(NodePath.join(dir, "broken.jsonl")))
      assert.strictEqual(broken.reason, "InvalidJson")
      assert.include(broken.message, `${NodePath.join(dir, "broken.jsonl")}: line 2: not valid JSON`)
      const answers = yield* Effect.flip(
        loadQuestionSet(NodePath.join(dir, "video_info.meta.jsonl"), { answers: NodePath.join(dir, "none.json") })
      )
      assert.strictEqual(answers.reason, "NotFound")
      assert.include(answers.message, "none.json: does not exist — pass --answers")
      for (const e of [unknown, forced, broken, answers]) assert.notInclude(e.message, "\n")
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
