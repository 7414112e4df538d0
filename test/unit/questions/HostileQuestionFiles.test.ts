// Question files as a hostile or careless hand writes them: integer ids past 2^53, a key written twice,
// a digit where a benchmark writes a letter, bytes that are not UTF-8. Each is read exactly or refused in
// one line naming the file, the row and the field.
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
  longVideoBenchRows,
  lvBenchLines,
  mlvuPlotQa,
  nextQaCsv,
  videoMmeRows
} from "../../support/benchmarks/BenchmarkInputs.js"
import { scopedTempDir } from "../../support/TempDir.js"

const withFiles = (files: ReadonlyArray<readonly [string, string | Uint8Array]>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* scopedTempDir("hostile-question-files")
    for (const [name, content] of files) {
      yield* fs.makeDirectory(NodePath.dirname(NodePath.join(dir, name)), { recursive: true })
      yield* typeof content === "string"
        ? fs.writeFileString(NodePath.join(dir, name), content)
        : fs.writeFile(NodePath.join(dir, name), content)
    }
    return dir
  })

const oneLine = (message: string) => {
  assert.notInclude(message, "\n")
  return message
}

const customRow = (id: string, answer: string) => ({
  videoID: "kitchen01",
  question_id: id,
  question: "How many eggs are cracked?",
  options: ["1", "2", "3"],
  answer
})

describe("question files read exactly or refused by row and field", () => {
  it.scoped("integer ids beyond 2^53 keep every digit: no false duplicates, the id as written", () =>
    Effect.gen(function*() {
      // 2^53 + 1 and 2^53 are one double: read as numbers they were "duplicates" of each other.
      const rows = jsonl(
        { ...videoMmeRows[0], question_id: "@1" },
        { ...videoMmeRows[1], question_id: "@2" },
        { ...videoMmeRows[2], question_id: 12 }
      ).replace("\"@1\"", "9007199254740993").replace("\"@2\"", "-9007199254740992123")
      const lvbench = jsonl({
        ...lvBenchLines[0],
        qa: [{ ...(lvBenchLines[0]!.qa[0]!), uid: "@" }]
      }).replace("\"@\"", "123456789012345678901234567890")
      const custom = `[${JSON.stringify(customRow("@", "B")).replace("\"@\"", "18446744073709551617")}]`
      const dir = yield* withFiles([["videomme.jsonl", rows], ["lvbench.jsonl", lvbench], ["custom.json", custom]])
      const videoMme = yield* loadQuestionSet(NodePath.join(dir, "videomme.jsonl"))
      assert.deepStrictEqual(videoMme.questions.map((q) => q.questionId), [
        "9007199254740993",
        "-9007199254740992123",
        "12"
      ])
      const lv = yield* loadQuestionSet(NodePath.join(dir, "lvbench.jsonl"))
      assert.deepStrictEqual(lv.questions.map((q) => q.questionId), ["123456789012345678901234567890"])
      const hand = yield* loadQuestionSet(NodePath.join(dir, "custom.json"), { benchmark: "custom" })
      assert.deepStrictEqual(hand.questions.map((q) => [q.questionId, q.answer]), [["18446744073709551617", "B"]])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("a key written twice in one object is refused naming the file, the row and the key", () =>
    Effect.gen(function*() {
      const array = json(videoMmeRows.slice(0, 2)).replace(
        "\"answer\": \"A\"",
        "\"answer\": \"A\",\n    \"answer\": \"B\""
      )
      const lines = jsonl(...lvBenchLines).replace("\"answer\":\"C\"", "\"answer\":\"C\",\"answer\":\"D\"")
      const answers = `{"${egoSchemaRows[0]!.q_uid}": 3, "${egoSchemaRows[0]!.q_uid}": 1}`
      const dir = yield* withFiles([
        ["videomme.json", array],
        ["video_info.meta.jsonl", lines],
        ["questions.json", json(egoSchemaRows)],
        ["answers.json", answers]
      ])
      const videoMme = yield* Effect.flip(loadQuestionSet(NodePath.join(dir, "videomme.json")))
      assert.strictEqual(videoMme.location, "index 1")
      assert.strictEqual(videoMme.field, "answer")
      assert.include(
        oneLine(videoMme.message),
        `${NodePath.join(dir, "videomme.json")}: index 1: answer: is written twice in one object`
      )
      const lv = yield* Effect.flip(loadQuestionSet(NodePath.join(dir, "video_info.meta.jsonl")))
      assert.include(
        oneLine(lv.message),
        `${NodePath.join(dir, "video_info.meta.jsonl")}: line 1: qa[1].answer: is written twice in one object`
      )
      const ego = yield* Effect.flip(
        loadQuestionSet(NodePath.join(dir, "questions.json"), { answers: NodePath.join(dir, "answers.json") })
      )
      assert.include(
        oneLine(ego.message),
        `${NodePath.join(dir, "answers.json")}: ${egoSchemaRows[0]!.q_uid}: is written twice in one object`
      )
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("a digit where the benchmark writes a letter is refused, not read as an index", () =>
    Effect.gen(function*() {
      const lvbench = jsonl({ ...lvBenchLines[0], qa: [{ ...(lvBenchLines[0]!.qa[0]!), answer: "1" }] })
      const dir = yield* withFiles([
        ["videomme.json", json([{ ...videoMmeRows[0], answer: "1" }])],
        ["video_info.meta.jsonl", lvbench],
        ["custom.json", json([customRow("k1", "2")])],
        // Index-keyed benchmarks keep reading their indices.
        ["lvb.json", json(longVideoBenchRows)],
        ["questions.json", json(egoSchemaRows)],
        ["subset_answers.json", json(egoSchemaSubset)],
        ["val.csv", nextQaCsv],
        ["plotQA.json", json(mlvuPlotQa)]
      ])
      const refusals = [
        ["videomme.json", "index 0", "answer", {}],
        ["video_info.meta.jsonl", "line 1", "qa[0].answer", {}],
        ["custom.json", "index 0", "answer", { benchmark: "custom" }]
      ] as const
      for (const [name, location, field, options] of refusals) {
        const error = yield* Effect.flip(loadQuestionSet(NodePath.join(dir, name), options))
        assert.strictEqual(error.reason, "InvalidRow", error.message)
        assert.deepStrictEqual([error.location, error.field], [location, field])
        assert.include(oneLine(error.message), `${NodePath.join(dir, name)}: ${location}: ${field}: `)
        assert.match(error.message, /expected an option letter/)
      }
      const lvb = yield* loadQuestionSet(NodePath.join(dir, "lvb.json"))
      assert.deepStrictEqual(lvb.questions.map((q) => q.answer), ["D", "A"])
      const ego = yield* loadQuestionSet(NodePath.join(dir, "questions.json"), {
        answers: NodePath.join(dir, "subset_answers.json")
      })
      assert.deepStrictEqual(ego.questions.map((q) => q.answer), ["D", "B", null])
      const next = yield* loadQuestionSet(NodePath.join(dir, "val.csv"))
      assert.isTrue(next.questions.every((q) => q.answer !== null && /^[A-E]$/.test(q.answer)))
      const mlvu = yield* loadQuestionSet(NodePath.join(dir, "plotQA.json"))
      assert.deepStrictEqual(mlvu.questions.map((q) => q.answer), ["A", "B"])
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("bytes that are not UTF-8 are refused in every family: JSON, JSONL, csv, a folder, --answers", () =>
    Effect.gen(function*() {
      const latin1 = (text: string, marker: string) => {
        const at = Buffer.from(text.slice(0, text.indexOf(marker)), "utf8").length
        const bytes = Buffer.from(text.replace(marker, "X"), "utf8")
        bytes[at] = 0xe9 // é in Latin-1, a lone continuation lead in UTF-8
        return bytes
      }
      const files = [
        ["videomme.json", latin1(json(videoMmeRows), "Apples")],
        ["video_info.meta.jsonl", latin1(jsonl(...lvBenchLines), "Hawk")],
        ["val.csv", latin1(nextQaCsv, nextQaCsv.split("\n")[1]!.slice(0, 3))],
        ["mlvu/1_plotQA.json", latin1(json(mlvuPlotQa), "Yellow")],
        ["lvb.json", latin1(json(longVideoBenchRows), "apple")],
        ["questions.json", Buffer.from(json(egoSchemaRows))],
        ["answers.json", latin1(json(egoSchemaSubset), "0074")]
      ] as const
      const dir = yield* withFiles(files)
      for (const [name] of files.filter(([name]) => name !== "questions.json" && name !== "answers.json")) {
        const path = NodePath.join(dir, name.startsWith("mlvu/") ? "mlvu" : name)
        const error = yield* Effect.flip(loadQuestionSet(path))
        assert.include(oneLine(error.message), `${NodePath.join(dir, name)}: is not valid UTF-8 (byte `)
      }
      const answers = yield* Effect.flip(
        loadQuestionSet(NodePath.join(dir, "questions.json"), { answers: NodePath.join(dir, "answers.json") })
      )
      assert.include(oneLine(answers.message), `${NodePath.join(dir, "answers.json")}: is not valid UTF-8 (byte `)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
