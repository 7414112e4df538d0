import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { Outcome } from "../../../src/domain/Outcome.js"
import type { QuestionResult } from "../../../src/programs/benchmarks/Benchmark.js"
import { asQuestion, factsOf } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import {
  goldClipsOf,
  judgedHeadline,
  longVidSearch,
  videoOfQaFile
} from "../../../src/programs/benchmarks/LongVidSearch.js"
import { detectBenchmark } from "../../../src/programs/benchmarks/Registry.js"
import { decoded, fileInput, folderInput, json } from "../../support/benchmarks/BenchmarkInputs.js"

// Rows as dataset/<youtubeID>_qa.json releases them (fields and values in the released shape, texts shortened).
const romeRows = [
  {
    question: "What year is shown at the start, and what later year is used for a population estimate of Rome?",
    answer: "534 A.D. at the start, 536 A.D. for the estimate.",
    category: "Global_Summary",
    hop_level: "2-Hop",
    evidence_slices: [1, 48],
    reasoning_chain: "Step 1: Slice 1 … Step 2: Slice 48 … Conclusion: …",
    logic_check_reasoning: "Step 1: … Logic holds.",
    visual_proof: "Clip 1 shows '534 A.D.' …"
  },
  {
    question: "Across the Italy-focused maps, which trio of cities repeatedly appears as labeled key points?",
    answer: "Rome, Ravenna, and Naples.",
    category: "Visual_Tracking",
    hop_level: "3-Hop",
    evidence_slices: [43, 50, 72],
    reasoning_chain: "Step 1: Slice 43 … Step 3: Slice 72 …",
    logic_check_reasoning: "…",
    visual_proof: "…"
  }
]
const otherRows = [{
  question: "What does the chef add after the onions turn brown?",
  answer: "Garlic.",
  category: "Causal_Inference",
  hop_level: "2-Hop",
  evidence_slices: [3, 9],
  reasoning_chain: "…",
  original_text_answer: "Garlic and salt.",
  verdict_meta: "REFINED"
}]

const datasetFolder = folderInput("LongVidSearch/dataset", [
  ["-7wwfGJXEZg_qa.json", json(romeRows)],
  ["0PBgtlsO9c4_qa.json", json(otherRows)]
])
const fullQa = fileInput(
  "full-QA(3000).json",
  json([
    ...romeRows.map((r) => ({ ...r, vid: "-7wwfGJXEZg" })),
    ...otherRows.map((r) => ({ ...r, vid: "0PBgtlsO9c4" }))
  ])
)

const detected = (input: Parameters<typeof detectBenchmark>[0]) =>
  Either.match(detectBenchmark(input), { onLeft: (e) => e.message, onRight: (b) => b.name })

describe("LongVidSearch", () => {
  it("is detected from its content: the dataset folder, one video's file and the full-QA file", () => {
    assert.strictEqual(detected(datasetFolder), "longvidsearch")
    assert.strictEqual(detected(fileInput("-7wwfGJXEZg_qa.json", json(romeRows))), "longvidsearch")
    assert.strictEqual(detected(fullQa), "longvidsearch")
    assert.strictEqual(detected(fileInput("anything.json", json(romeRows))), "longvidsearch")
  })

  it("decodes open-ended questions: no options, the reference answer as the key, the video from the file name", () => {
    const { benchmark, questions } = decoded(datasetFolder)
    assert.strictEqual(benchmark.name, "longvidsearch")
    assert.deepStrictEqual(
      questions.map((q) => [q.id, q.videoId, q.options, q.key, q.taskType]),
      [
        ["-7wwfGJXEZg_0", "-7wwfGJXEZg", [], "534 A.D. at the start, 536 A.D. for the estimate.", "Global_Summary"],
        ["-7wwfGJXEZg_1", "-7wwfGJXEZg", [], "Rome, Ravenna, and Naples.", "Visual_Tracking"],
        ["0PBgtlsO9c4_0", "0PBgtlsO9c4", [], "Garlic.", "Causal_Inference"]
      ]
    )
    assert.deepStrictEqual(questions[1]!.categories, [
      { axis: "category", labels: ["Visual_Tracking"] },
      { axis: "hop level", labels: ["3-Hop"] }
    ])
    // The question the agent gets, and the facts the run keeps: the gold clips ride in the row.
    const question = asQuestion(questions[1]!)
    assert.deepStrictEqual([question.options, question.answer], [[], "Rome, Ravenna, and Naples."])
    assert.deepStrictEqual(goldClipsOf(factsOf(questions[1]!).row), [43, 50, 72])
  })

  it("gives the full-QA file the same ids as the per-video files", () => {
    assert.deepStrictEqual(
      decoded(fullQa).questions.map((q) => q.id),
      decoded(datasetFolder).questions.map((q) => q.id)
    )
  })

  it("refuses a row without gold clips, or with a clip that is no 1-based index, naming the row and field", () => {
    const bad = (slices: unknown): string => {
      const input = fileInput("a_qa.json", json([{ ...romeRows[0], evidence_slices: slices }]))
      return Either.match(longVidSearch.decode(input), { onLeft: (e) => e.message, onRight: () => "decoded" })
    }
    assert.match(bad([]), /a_qa\.json: index 0: evidence_slices: is empty — write "evidence_slices"/)
    assert.match(bad([0, 3]), /a_qa\.json: index 0: evidence_slices\[0\]: has the wrong type: 0/)
    assert.match(bad(["1"]), /evidence_slices\[0\]: has the wrong type: "1"/)
  })

  it("names the video of a per-video file by its name without _qa.json", () => {
    assert.strictEqual(videoOfQaFile("dataset/-7wwfGJXEZg_qa.json"), "-7wwfGJXEZg")
    assert.strictEqual(videoOfQaFile("/x/abc.json"), "abc")
  })

  it("scores nothing without verdicts, and per category and hop level from judged outcomes", () => {
    const results: ReadonlyArray<QuestionResult> = decoded(datasetFolder).questions.map((question) => ({
      question,
      prediction: null
    }))
    const unjudged = judgedHeadline(results, new Map())
    assert.deepStrictEqual([unjudged.overall.unscored, unjudged.overall.total, unjudged.overall.accuracy], [3, 0, null])
    const outcomes = new Map<string, Outcome>([["-7wwfGJXEZg_0", "correct"], ["0PBgtlsO9c4_0", "wrong"]])
    const judged = judgedHeadline(results, outcomes)
    assert.deepStrictEqual([judged.overall.correct, judged.overall.total, judged.overall.unscored], [1, 2, 1])
    assert.deepStrictEqual(
      judged.axes.map(({ axis, groups }) => [axis, groups.map((g) => [g.key, g.correct, g.total, g.unscored])]),
      [
        ["category", [["Causal_Inference", 0, 1, 0], ["Global_Summary", 1, 1, 0], ["Visual_Tracking", 0, 0, 1]]],
        ["hop level", [["2-Hop", 1, 2, 0], ["3-Hop", 0, 0, 1]]]
      ]
    )
  })
})
