// Open-ended questions (issue 41, item 2): a row without options is accepted, its answer kept as the
// reference text; a question of it is never scored by letter.
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { asQuestion, decodeBenchmark } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import { detectBenchmark } from "../../../src/programs/benchmarks/Registry.js"
import { decodeQuestions } from "../../../src/programs/questions/QuestionDecoder.js"
import { fileInput, json, jsonl, videoMmeRows } from "../../support/benchmarks/BenchmarkInputs.js"

const reference = "She waters them because the soil is dry."
const rows = [
  { videoID: "kitchen", question_id: "k1", question: "How many eggs?", options: ["A. 1", "B. 2"], answer: "B" },
  { videoID: "garden", question_id: "g1", question: "Why does she water the plants?", answer: ` ${reference} ` },
  { videoID: "garden", question_id: "g2", question: "What is she wearing?", options: [], task_type: "Attribute" },
  { videoID: "garden", question_id: "g3", question: "What happens last?", options: [] }
]

const detected = (text: string, name = "mine.json") =>
  Either.match(detectBenchmark(fileInput(name, text)), { onLeft: (e) => e.reason, onRight: (b) => b.name })

describe("open-ended questions in a hand-written file", () => {
  it("a file with rows without options is the custom layout, task_type or not", () => {
    assert.strictEqual(detected(json(rows)), "custom")
    assert.strictEqual(detected(jsonl(...rows.slice(1)), "mine.jsonl"), "custom")
    const typed = rows.map((row) => ({ ...row, task_type: "Counting Problem" }))
    assert.strictEqual(detected(json(typed)), "custom")
    // Released Video-MME rows, every one with options, stay Video-MME.
    assert.strictEqual(detected(json(videoMmeRows)), "videomme")
  })

  it("decodes a row without options as open-ended: no options, the reference as its key", () => {
    const { questions } = Either.getOrThrow(decodeBenchmark(fileInput("mine.json", json(rows))))
    assert.deepStrictEqual(
      questions.map((q) => [q.id, q.options, q.key, q.originalKey, q.taskType]),
      [
        ["k1", ["A. 1", "B. 2"], "B", "B", ""],
        ["g1", [], reference, reference, ""],
        ["g2", [], null, null, "Attribute"],
        ["g3", [], null, null, ""]
      ]
    )
    assert.deepStrictEqual(asQuestion(questions[1]!).options, [])
    assert.strictEqual(asQuestion(questions[1]!).answer, reference)
  })

  it("--answers gives an open-ended question its reference text", () => {
    const answers = { file: "answers.json", value: { g3: "Her dog runs off.", k1: 0 } }
    const { questions } = Either.getOrThrow(decodeBenchmark(fileInput("mine.json", json(rows)), { answers }))
    assert.deepStrictEqual(questions.map((q) => q.key), ["A", reference, null, "Her dog runs off."])
  })

  it("a multiple-choice row is still checked: one option, or a key naming none, is refused", () => {
    const one = Either.flip(decodeBenchmark(fileInput("mine.json", json([{ ...rows[0], options: ["A. 1"] }]))))
    assert.include(Either.getOrThrow(one).message, "expected 2 to 10 options, got 1")
    const key = Either.flip(decodeBenchmark(fileInput("mine.json", json([{ ...rows[0], answer: "rice" }]))))
    assert.include(Either.getOrThrow(key).message, "expected an option letter A–B")
  })

  it("the question decoder of src/programs/questions reads an open-ended row too", () => {
    const text = jsonl({
      videoID: "garden",
      question_id: "g1",
      task_type: "Open",
      question: "Why?",
      options: [],
      answer: reference
    })
    const [question] = Either.getOrThrow(decodeQuestions({ _tag: "File", file: "q.jsonl", text }))
    assert.deepStrictEqual([question!.options, question!.answer], [[], reference])
  })
})
