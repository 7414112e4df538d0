// A hand-written question file (the `custom` layout), and the refusal of a file of no layout that names
// the closest layout and the field it lacks.
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { BenchmarkInput } from "../../../src/programs/benchmarks/Benchmark.js"
import { asQuestion, decodeBenchmark } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import { detectBenchmark } from "../../../src/programs/benchmarks/Registry.js"
import {
  egoSchemaRows,
  fileInput,
  json,
  jsonl,
  longVideoBenchRows,
  nextQaCsv,
  videoMmeRows
} from "../../support/benchmarks/BenchmarkInputs.js"

const handWritten = [
  { videoID: "kitchen", question_id: "k1", question: "How many eggs?", options: ["A. 1", "B. 2", "C. 3"], answer: "B" },
  { videoID: "kitchen", question_id: 2, question: "What is cooked?", options: ["soup", "rice"] },
  {
    videoID: "garden",
    question_id: "g1",
    question: "Why does she water the plants?",
    options: ["A. rain", "B. dry soil"],
    answer: null,
    task_type: "CW"
  }
]

const detected = (input: BenchmarkInput): string =>
  Either.match(detectBenchmark(input), { onLeft: (e) => e.reason, onRight: (b) => b.name })

const refusal = (input: BenchmarkInput) => Either.getOrThrowWith(Either.flip(detectBenchmark(input)), () => "fits")

describe("the custom layout", () => {
  it("is detected by content: videoID, question_id, question, options and no task_type on every row", () => {
    assert.strictEqual(detected(fileInput("mine.json", json(handWritten))), "custom")
    assert.strictEqual(detected(fileInput("mine.jsonl", jsonl(...handWritten))), "custom")
    // Even named like a Video-MME file: the content decides.
    assert.strictEqual(detected(fileInput("videomme.json", json(handWritten.slice(0, 2)))), "custom")
  })

  it("leaves the released layouts as they were: Video-MME rows stay Video-MME", () => {
    assert.strictEqual(detected(fileInput("rows.json", json(videoMmeRows))), "videomme")
    assert.strictEqual(detected(fileInput("lvb_val.json", json(longVideoBenchRows))), "longvideobench")
    assert.strictEqual(detected(fileInput("questions.json", json(egoSchemaRows))), "egoschema")
    assert.strictEqual(detected(fileInput("val.csv", nextQaCsv)), "nextqa")
    // Hand-written rows that all carry a task_type are the Video-MME layout, as before.
    const typed = handWritten.map((row) => ({ ...row, task_type: "Counting Problem" }))
    assert.strictEqual(detected(fileInput("mine.json", json(typed))), "videomme")
  })

  it("decodes keys, unlabelled options and an optional task type; a question without one has none", () => {
    const result = Either.getOrThrow(decodeBenchmark(fileInput("mine.json", json(handWritten))))
    assert.strictEqual(result.benchmark.name, "custom")
    const qs = result.questions
    assert.deepStrictEqual(
      qs.map((q) => [q.benchmark, q.id, q.videoId, q.key, q.taskType, q.options]),
      [
        ["custom", "k1", "kitchen", "B", "", ["A. 1", "B. 2", "C. 3"]],
        ["custom", "2", "kitchen", null, "", ["A. soup", "B. rice"]],
        ["custom", "g1", "garden", null, "CW", ["A. rain", "B. dry soil"]]
      ]
    )
    assert.deepStrictEqual(qs[2]!.categories, [{ axis: "task type", labels: ["CW"] }])
    assert.deepStrictEqual(qs[0]!.categories, [{ axis: "task type", labels: [] }])
    assert.deepStrictEqual(asQuestion(qs[0]!).taskType, "")
  })

  it("names the row and the field of a bad row, with the fix", () => {
    const bad = [handWritten[0], { ...handWritten[1], answer: "F" }]
    const error = Either.getOrThrowWith(Either.flip(decodeBenchmark(fileInput("mine.json", json(bad)))), () => "")
    assert.strictEqual(error.location, "index 1")
    assert.strictEqual(error.field, "answer")
    assert.notInclude(error.message, "\n")
  })

  it("is chosen by --benchmark custom even for rows that carry a task type", () => {
    const result = decodeBenchmark(fileInput("rows.json", json(videoMmeRows)), { benchmark: "custom" })
    assert.deepStrictEqual(
      Either.getOrThrow(Either.map(result, (r) => [r.benchmark.name, r.questions[0]!.taskType])),
      ["custom", "Counting Problem"]
    )
  })
})

describe("a file of no known layout", () => {
  it("is refused naming the closest layout and its first missing field", () => {
    // Rows without options are open-ended questions (custom); without their question text they fit nothing.
    const noQuestion = handWritten.map(({ question: _, ...row }) => row)
    const error = refusal(fileInput("mine.json", json(noQuestion)))
    assert.strictEqual(error.reason, "UnknownLayout")
    assert.strictEqual(error.field, "question")
    assert.strictEqual(error.location, "index 0")
    assert.match(error.message, /^mine\.json: index 0: question: is missing/)
    assert.include(error.message, "closest layout: custom")
    assert.notInclude(error.message, "\n")
  })

  it("names the row that lacks the field when the first rows differ", () => {
    const rows = [handWritten[0], { ...handWritten[1], videoID: undefined }]
    const error = refusal(fileInput("mine.jsonl", jsonl(...rows)))
    assert.deepStrictEqual([error.location, error.field], ["line 2", "videoID"])
  })

  it("finds the closest released layout too: an EgoSchema row without its options", () => {
    const rows = egoSchemaRows.map((row) => ({ q_uid: row.q_uid, question: row.question }))
    const error = refusal(fileInput("questions.json", json(rows)))
    assert.strictEqual(error.field, "option 0")
    assert.include(error.message, "closest layout: egoschema")
  })

  it("reads a csv header for the closest layout: NExT-QA without its type column", () => {
    const withoutType = nextQaCsv.replace(",qid,type,", ",qid,")
    const error = refusal(fileInput("val.csv", withoutType))
    assert.deepStrictEqual([error.location, error.field], ["line 1", "type"])
    assert.include(error.message, "closest layout: nextqa")
  })

  it("keeps the plain refusal when nothing is close", () => {
    const error = refusal(fileInput("x.json", json([{ foo: 1 }])))
    assert.match(error.message, /^x\.json: has no question layout vtree reads — vtree reads Video-MME/)
    assert.isNull(error.field)
  })
})
