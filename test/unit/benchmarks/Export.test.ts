import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { BenchmarkInput, BenchmarkQuestion, QuestionResult } from "../../../src/programs/benchmarks/Benchmark.js"
import type { DecodeOptions } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import { letterAt } from "../../../src/programs/benchmarks/Options.js"
import {
  decoded,
  egoSchemaRows,
  egoSchemaSubset,
  fileInput,
  folderInput,
  json,
  jsonl,
  longVideoBenchRows,
  lvBenchLines,
  mlvuNeedle,
  mlvuPlotQa,
  mlvuTestRows,
  nextQaCsv,
  videoMmeRows
} from "../../support/benchmarks/BenchmarkInputs.js"

const exported = (
  input: BenchmarkInput,
  predictions: ReadonlyArray<string | null>,
  options?: DecodeOptions
): unknown => {
  const { benchmark, questions } = decoded(input, options)
  return benchmark.export(questions.map((question, i) => ({ question, prediction: predictions[i] ?? null })))
}

describe("exports", () => {
  it("Video-MME: a list per video with Video-MME's own video_id, sub_category and url, and the keys eval_your_results.py reads; unanswered is \"\"", () => {
    assert.deepStrictEqual(exported(fileInput("videomme.jsonl", jsonl(...videoMmeRows)), ["C", null, "A"]), [
      {
        video_id: "001",
        duration: "short",
        domain: "Knowledge",
        sub_category: "Humanity & History",
        duration_category: "short",
        video_category: "Knowledge",
        video_subcategory: "Humanity & History",
        missing: false,
        url: "https://www.youtube.com/watch?v=fFjv93ACGo8",
        questions: [
          {
            question_id: "001-1",
            task_type: "Counting Problem",
            question: videoMmeRows[0]!.question,
            options: videoMmeRows[0]!.options,
            answer: "C",
            response: "C"
          },
          {
            question_id: "001-2",
            task_type: "Information Synopsis",
            question: videoMmeRows[1]!.question,
            options: videoMmeRows[1]!.options,
            answer: "A",
            response: ""
          }
        ]
      },
      {
        video_id: "601",
        duration: "long",
        domain: "Sports Competition",
        sub_category: "Football",
        duration_category: "long",
        video_category: "Sports Competition",
        video_subcategory: "Football",
        missing: false,
        questions: [
          {
            question_id: "601-1",
            task_type: "Temporal Reasoning",
            question: "Which team scored first?",
            options: videoMmeRows[2]!.options,
            answer: "B",
            response: "A"
          }
        ]
      }
    ])
  })

  it("LVBench and LongVideoBench: {id: letter}; unanswered is the letter after the options", () => {
    assert.deepStrictEqual(exported(fileInput("video_info.meta.jsonl", jsonl(...lvBenchLines)), ["A", null, "C"]), {
      "1": "A",
      "2": "E",
      "3": "C"
    })
    assert.deepStrictEqual(exported(fileInput("lvb_val.json", json(longVideoBenchRows)), ["B", null]), {
      "86CxyhFV9MI_0": "B",
      "-8lu-6Vx8as_1": "F"
    })
  })

  it("MLVU: [{question_id, question_type, option}] for test and dev", () => {
    assert.deepStrictEqual(exported(fileInput("test_mcq.json", json(mlvuTestRows)), ["B", null]), [
      { question_id: "AQA_1", question_type: "sportsQA", option: "B" },
      { question_id: "AQA_2", question_type: "tutorialQA", option: "G" }
    ])
    assert.deepStrictEqual(
      exported(folderInput("dev", [["1_plotQA.json", json(mlvuPlotQa)], ["2_needle.json", json(mlvuNeedle)]]), [
        "A",
        "D",
        null
      ]),
      [
        { question_id: "plotQA_0", question_type: "plotQA", option: "A" },
        { question_id: "plotQA_1", question_type: "plotQA", option: "D" },
        { question_id: "needle_0", question_type: "needle", option: "E" }
      ]
    )
  })

  it("EgoSchema: {q_uid: index} for every question, scored or not; unanswered is -1", () => {
    const [a, b, c] = egoSchemaRows.map((r) => r.q_uid)
    assert.deepStrictEqual(
      exported(fileInput("questions.json", json(egoSchemaRows)), ["D", null, "A"], {
        answers: { file: "s.json", value: egoSchemaSubset }
      }),
      {
        [a!]: 3,
        [b!]: -1,
        [c!]: 0
      }
    )
  })

  it("NExT-QA: {<video>_<qid>: {prediction, answer}} as indices; unanswered predicts -1", () => {
    assert.deepStrictEqual(exported(fileInput("val.csv", nextQaCsv), ["D", null, "B"]), {
      "4010069381_6": { prediction: 3, answer: 3 },
      "4010069381_7": { prediction: -1, answer: 1 },
      "6233408665_2": { prediction: 1, answer: 0 }
    })
  })
})

// Reading a chosen letter back out of each export: index, letter or option field, whatever the benchmark writes.
const readBack: Record<string, (value: unknown, q: BenchmarkQuestion) => unknown> = {
  videomme: (v, q) =>
    (v as ReadonlyArray<{ questions: ReadonlyArray<{ question_id: string; response: string }> }>)
      .flatMap((video) => video.questions)
      .find((x) => x.question_id === q.id)!.response,
  lvbench: (v, q) => (v as Record<string, string>)[q.id],
  longvideobench: (v, q) => (v as Record<string, string>)[q.id],
  mlvu: (v, q) =>
    (v as ReadonlyArray<{ question_id: string; option: string }>).find((x) => x.question_id === q.id)!.option,
  egoschema: (v, q) => {
    const index = (v as Record<string, number>)[q.id]!
    return index >= 0 ? letterAt(index) : index
  },
  nextqa: (v, q) => {
    const index = (v as Record<string, { prediction: number }>)[q.id]!.prediction
    return index >= 0 ? letterAt(index) : index
  }
}

describe("every export", () => {
  const inputs: ReadonlyArray<BenchmarkInput> = [
    fileInput("videomme.jsonl", jsonl(...videoMmeRows)),
    fileInput("video_info.meta.jsonl", jsonl(...lvBenchLines)),
    fileInput("lvb_val.json", json(longVideoBenchRows)),
    folderInput("dev", [["1_plotQA.json", json(mlvuPlotQa)], ["2_needle.json", json(mlvuNeedle)]]),
    fileInput("questions.json", json(egoSchemaRows)),
    fileInput("val.csv", nextQaCsv)
  ]
  const sets = inputs.map((input) => decoded(input))

  it("gives back the letter chosen, and for an unanswered question a value that names no option", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...sets),
        fc.array(fc.option(fc.nat({ max: 9 }), { nil: null }), { minLength: 5, maxLength: 5 }),
        ({ benchmark, questions }, picks) => {
          const results: Array<QuestionResult> = questions.map((question, i) => {
            const pick = picks[i % picks.length]!
            return { question, prediction: pick === null ? null : letterAt(pick % question.options.length) }
          })
          const value = benchmark.export(results)
          for (const { prediction, question } of results) {
            const back = readBack[benchmark.name]!(value, question)
            if (prediction !== null) assert.strictEqual(back, prediction)
            else assert.notInclude(question.options.map((_, i) => letterAt(i)), back)
          }
        }
      )
    )
  })
})
