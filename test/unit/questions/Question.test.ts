import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as NodePath from "node:path"
import type { Question, QuestionLoadError } from "../../../src/domain/Question.js"
import { decodeQuestions } from "../../../src/programs/questions/QuestionDecoder.js"
import { loadQuestions } from "../../../src/programs/questions/QuestionLoader.js"
import {
  filterByQuestionIds,
  filterByTaskTypes,
  filterByVideoIds,
  selectQuestions,
  splitList,
  takeFirst
} from "../../../src/programs/questions/QuestionSelection.js"
import { scopedTempDir } from "../../support/TempDir.js"

const samples = NodePath.resolve(import.meta.dirname, "../../../samples")
const videoId = "vtSmpl0001a"

const row = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  video_id: "001",
  duration: "medium",
  domain: "Life Record",
  sub_category: "Food",
  videoID: videoId,
  question_id: "001-1",
  task_type: "Counting Problem",
  question: "How many eggs?",
  options: ["A. Two", "B. Three", "C. Four", "D. Six"],
  answer: "C",
  ...overrides
})

const jsonl = (...rows: ReadonlyArray<unknown>) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n"

const decodeFile = (text: string, file = "questions.jsonl") => decodeQuestions({ _tag: "File", file, text })

const failure = (result: Either.Either<ReadonlyArray<Question>, QuestionLoadError>): QuestionLoadError => {
  if (Either.isRight(result)) assert.fail(`expected a decode error, got ${result.right.length} questions`)
  return result.left
}

const withoutSource = (q: Question) => ({
  questionId: q.questionId,
  videoId: q.videoId,
  taskType: q.taskType,
  question: q.question,
  options: q.options,
  answer: q.answer
})

describe("loadQuestions on the samples", () => {
  it.effect("both formats load to the same questions", () =>
    Effect.gen(function*() {
      const fromDir = yield* loadQuestions(NodePath.join(samples, "questions"))
      const fromJsonl = yield* loadQuestions(NodePath.join(samples, "questions.jsonl"))
      assert.strictEqual(fromDir.length, 7)
      assert.deepStrictEqual(fromDir.map(withoutSource), fromJsonl.map(withoutSource))
      // Only the Video-MME rows carry duration and domain.
      assert.isTrue(fromJsonl.every((q) => q.duration === "medium"))
      assert.isTrue(fromJsonl.every((q) => q.domain === "Life Record"))
      assert.isTrue(fromDir.every((q) => q.duration === null))
      assert.isTrue(fromDir.every((q) => q.domain === null))
      assert.isTrue(fromDir.every((q) => q.videoId === videoId))
      assert.deepStrictEqual(fromJsonl[0], {
        questionId: "001-1",
        videoId,
        taskType: "Counting Problem",
        duration: "medium",
        domain: "Life Record",
        question: "How many eggs does the host cook in the skillet?",
        options: ["A. Two", "B. Three", "C. Four", "D. Six"],
        answer: "C"
      })
      assert.strictEqual(new Set(fromDir.map((q) => q.taskType)).size, 7)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("a JSON array of Video-MME rows decodes like the JSONL file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("question")
      const lines = (yield* fs.readFileString(NodePath.join(samples, "questions.jsonl"))).trim().split("\n")
      const file = NodePath.join(dir, "rows.json")
      yield* fs.writeFileString(file, JSON.stringify(lines.map((l) => JSON.parse(l)), null, 2))
      const fromArray = yield* loadQuestions(file)
      const fromJsonl = yield* loadQuestions(NodePath.join(samples, "questions.jsonl"))
      assert.deepStrictEqual(fromArray, fromJsonl)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

describe("loadQuestions errors", () => {
  it.effect("a missing path says what to pass", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(loadQuestions("/nonexistent/questions.jsonl"))
      assert.strictEqual(error.reason, "NotFound")
      assert.include(error.message, "/nonexistent/questions.jsonl: does not exist — pass --questions")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("a directory without question files is empty input", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("question")
      yield* fs.writeFileString(NodePath.join(dir, "notes.txt"), "not questions")
      const error = yield* Effect.flip(loadQuestions(dir))
      assert.strictEqual(error.reason, "Empty")
      assert.include(error.message, `${dir}: holds no <videoID>.json files`)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("duplicate ids across per-video files name both places", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("question")
      const q = (id: string) => ({
        question_id: id,
        task_type: "OCR Problems",
        question: "Q?",
        options: ["A. x", "B. y"]
      })
      // Written out of order: files are read sorted by name.
      yield* fs.writeFileString(NodePath.join(dir, "vidB.json"), JSON.stringify([q("2"), q("1")]))
      yield* fs.writeFileString(NodePath.join(dir, "vidA.json"), JSON.stringify([q("1")]))
      const error = yield* Effect.flip(loadQuestions(dir))
      assert.strictEqual(error.reason, "DuplicateId")
      assert.strictEqual(error.file, NodePath.join(dir, "vidB.json"))
      assert.strictEqual(error.location, "index 1")
      assert.include(error.message, `question id "1" already appears at ${NodePath.join(dir, "vidA.json")}: index 0`)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("per-video files take the video id from the file name, in name order", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("question")
      const q = (id: string) => ({ question_id: id, task_type: "OCR Problems", question: "Q?", options: ["x", "y"] })
      yield* fs.writeFileString(NodePath.join(dir, "zzz.json"), JSON.stringify([q("3")]))
      yield* fs.writeFileString(NodePath.join(dir, "aaa.json"), JSON.stringify([q("1"), q("2")]))
      const questions = yield* loadQuestions(dir)
      assert.deepStrictEqual(questions.map((x) => [x.videoId, x.questionId]), [["aaa", "1"], ["aaa", "2"], [
        "zzz",
        "3"
      ]])
      // Unlabelled options get their letters; a missing answer is null.
      assert.deepStrictEqual(questions[0]!.options, ["A. x", "B. y"])
      assert.strictEqual(questions[0]!.answer, null)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

describe("decodeQuestions", () => {
  it("names file, line and field for a wrong type, with a fix", () => {
    const error = failure(
      decodeFile(
        jsonl(
          row({ question_id: "1" }),
          row({ question_id: "2" }),
          row({ question_id: "3" }),
          row({ question_id: "4", options: "A, B" })
        )
      )
    )
    assert.strictEqual(error.reason, "InvalidRow")
    assert.strictEqual(error.location, "line 4")
    assert.strictEqual(error.field, "options")
    assert.strictEqual(
      error.message,
      `questions.jsonl: line 4: options: expected an array of strings, got "A, B" — write "options": ["A. …", "B. …", …]`
    )
  })

  it("points into an array for a bad element", () => {
    const error = failure(decodeFile(jsonl(row({ options: ["A. one", 2] }))))
    assert.strictEqual(error.field, "options[1]")
    assert.include(error.message, "questions.jsonl: line 1: options[1]: expected an array of strings, got 2")
  })

  it("reports a missing field of a JSON array file by index", () => {
    const { videoID: _, ...noVideo } = row()
    const error = failure(decodeFile(JSON.stringify([row({ question_id: "a" }), noVideo]), "rows.json"))
    assert.strictEqual(error.message.split(" — ")[0], "rows.json: index 1: videoID: is missing")
    assert.include(error.message, "the name of the video's directory under --trees")
  })

  it("rejects an unknown duration", () => {
    const error = failure(decodeFile(jsonl(row({ duration: "huge" }))))
    assert.include(error.message, `line 1: duration: expected "short", "medium", "long" or null, got "huge"`)
  })

  it("rejects an answer outside the options", () => {
    const error = failure(decodeFile(jsonl(row({ answer: "E" }))))
    assert.strictEqual(error.field, "answer")
    assert.include(error.message, `answer: expected one of A, B, C, D, got "E"`)
  })

  it("rejects options labelled out of order", () => {
    const error = failure(decodeFile(jsonl(row({ options: ["A. x", "B. y", "D. z", "C. w"] }))))
    assert.strictEqual(error.field, "options[2]")
    assert.include(error.message, `expected to start with "C.", got "D. z" — label the options`)
  })

  it("rejects a single option and an empty option", () => {
    assert.include(
      failure(decodeFile(jsonl(row({ options: ["A. only"], answer: "A" })))).message,
      "expected 2 to 26 options, got 1"
    )
    assert.include(failure(decodeFile(jsonl(row({ options: ["A. x", "  "] })))).message, "options[1]: is empty")
  })

  it("says which line is not JSON", () => {
    const error = failure(decodeFile(jsonl(row()) + "{\"question_id\": \n"))
    assert.strictEqual(error.reason, "InvalidJson")
    assert.strictEqual(error.location, "line 2")
    assert.include(error.message, "questions.jsonl: line 2: not valid JSON (")
    assert.include(error.message, "each line must hold one complete JSON object")
  })

  it("recognises a pretty-printed object that is not JSONL", () => {
    const error = failure(decodeFile(JSON.stringify(row(), null, 2)))
    assert.include(error.message, "holds one JSON object over several lines — write one Video-MME row per line")
  })

  it("rejects a row that is not an object", () => {
    const error = failure(decodeFile("[5]", "rows.json"))
    assert.include(error.message, "rows.json: index 0: expected a JSON object, got 5")
  })

  it("rejects a per-video file that is not an array", () => {
    const error = failure(
      decodeQuestions({ _tag: "Directory", dir: "qs", files: [{ file: "qs/v1.json", text: "{\"a\": 1}" }] })
    )
    assert.include(error.message, "qs/v1.json: expected a JSON array, got {\"a\":1} — write a JSON array of")
  })

  it("reports empty input", () => {
    for (const text of ["", "\n\n", "[]"]) {
      const error = failure(decodeFile(text))
      assert.strictEqual(error.reason, "Empty")
      assert.include(error.message, "questions.jsonl: holds no questions — add at least one question row")
    }
  })

  it("reports duplicate ids with both lines", () => {
    const error = failure(
      decodeFile(jsonl(row({ question_id: "x" }), row({ question_id: "y" }), row({ question_id: "x" })))
    )
    assert.strictEqual(error.reason, "DuplicateId")
    assert.include(
      error.message,
      `questions.jsonl: line 3: question_id: "x" already appears at questions.jsonl: line 1`
    )
  })

  it("accepts integer ids, null and lower-case answers, a BOM, blank lines, extra fields", () => {
    const text = "\uFEFF" + jsonl(row({ question_id: 7, answer: null, url: "https://example.org" })) + "\n" +
      jsonl(row({ question_id: "8", duration: null, domain: null, answer: " b " }))
    const result = decodeFile(text)
    assert.isTrue(Either.isRight(result))
    const questions = Either.getOrThrow(result)
    assert.deepStrictEqual(questions.map((q) => [q.questionId, q.answer, q.duration, q.domain]), [
      ["7", null, "medium", "Life Record"],
      ["8", "B", null, null]
    ])
  })
})

const q = (questionId: string, videoId: string, taskType: string): Question => ({
  questionId,
  videoId,
  taskType,
  duration: null,
  domain: null,
  question: "?",
  options: ["A. x", "B. y"],
  answer: "A"
})

describe("question selection", () => {
  const all = [
    q("1", "v1", "Counting Problem"),
    q("2", "v1", "OCR Problems"),
    q("3", "v2", "Counting Problem"),
    q("4", "v3", "Temporal Reasoning"),
    q("5", "v2", "OCR Problems")
  ]
  const ids = (qs: ReadonlyArray<Question>) => qs.map((x) => x.questionId)

  it("filters by video ids, question ids and task types; empty lists keep all", () => {
    assert.deepStrictEqual(ids(filterByVideoIds(all, ["v2", "v3"])), ["3", "4", "5"])
    assert.deepStrictEqual(ids(filterByQuestionIds(all, ["5", "1"])), ["1", "5"])
    assert.deepStrictEqual(ids(filterByTaskTypes(all, ["counting problem", " OCR Problems "])), ["1", "2", "3", "5"])
    assert.deepStrictEqual(ids(filterByVideoIds(all, [])), ids(all))
  })

  it("n-samples keeps the first N in file order", () => {
    assert.deepStrictEqual(ids(takeFirst(all, 2)), ["1", "2"])
    assert.deepStrictEqual(ids(takeFirst(all, 99)), ids(all))
    assert.deepStrictEqual(ids(takeFirst(all, 0)), [])
  })

  it("combines filters before sampling and reports what matched nothing", () => {
    const selected = selectQuestions(all, {
      videoIds: ["v1", "v2", "nope"],
      taskTypes: ["OCR Problems", "Spatial Reasoning"],
      questionIds: undefined,
      nSamples: 1
    })
    assert.deepStrictEqual(ids(selected.questions), ["2"])
    assert.deepStrictEqual(selected.unmatched, {
      videoIds: ["nope"],
      questionIds: [],
      taskTypes: ["Spatial Reasoning"]
    })
    assert.deepStrictEqual(ids(selectQuestions(all, {}).questions), ids(all))
  })

  it("splits list flags on commas only", () => {
    assert.deepStrictEqual(splitList("Counting Problem, OCR Problems,,"), ["Counting Problem", "OCR Problems"])
  })
})
