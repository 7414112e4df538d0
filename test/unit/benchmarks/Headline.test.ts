import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { GroupAccuracy } from "../../../src/domain/Outcome.js"
import { wilsonInterval } from "../../../src/domain/Stats.js"
import type { BenchmarkInput, Headline, QuestionResult } from "../../../src/programs/benchmarks/Benchmark.js"
import { decodeBenchmark, type DecodeOptions } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import {
  egoSchemaRows,
  egoSchemaSubset,
  fileInput,
  folderInput,
  json,
  jsonl,
  lvBenchLines,
  mlvuNeedle,
  mlvuPlotQa,
  nextQaCsv,
  videoMmeRows
} from "../../support/benchmarks/BenchmarkInputs.js"

/** The benchmark's headline with the given predictions, in question order. */
const headline = (
  input: BenchmarkInput,
  predictions: ReadonlyArray<string | null>,
  options?: DecodeOptions
): Headline => {
  const { benchmark, questions } = Either.getOrThrow(decodeBenchmark(input, options))
  const results: Array<QuestionResult> = questions.map((question, i) => ({
    question,
    prediction: predictions[i] ?? null
  }))
  return benchmark.headline(results)
}

const counts = (groups: ReadonlyArray<GroupAccuracy>) =>
  groups.map((g) => [g.key, g.correct, g.wrong, g.unanswered, g.accuracy])

describe("headlines", () => {
  it("MLVU: M-Avg is the mean of the per-task accuracies, beside the overall", () => {
    // plotQA: correct, wrong (1/2); needle: correct (1/1).
    const h = headline(folderInput("dev", [["1_plotQA.json", json(mlvuPlotQa)], ["2_needle.json", json(mlvuNeedle)]]), [
      "A",
      "A",
      "A"
    ])
    assert.strictEqual(h.overall.accuracy, 2 / 3)
    assert.deepStrictEqual(h.overall.interval, wilsonInterval(2, 3))
    assert.deepStrictEqual(h.primary, { name: "M-Avg", value: (1 / 2 + 1) / 2 })
    assert.deepStrictEqual(counts(h.axes[0]!.groups), [["plotQA", 1, 1, 0, 0.5], ["needle", 1, 0, 0, 1]])
  })

  it("LVBench: a question counts in each of its types, in the leaderboard's order", () => {
    // 1 ER correct; 2 Rea+KIR wrong; 3 EU unanswered.
    const h = headline(fileInput("video_info.meta.jsonl", jsonl(...lvBenchLines)), ["A", "D", null])
    assert.deepStrictEqual([h.overall.correct, h.overall.wrong, h.overall.unanswered, h.overall.total], [1, 1, 1, 3])
    assert.strictEqual(h.primary, null)
    assert.deepStrictEqual(h.axes.map((a) => a.axis), ["question type"])
    assert.deepStrictEqual(counts(h.axes[0]!.groups), [["KIR", 0, 1, 0, 0], ["EU", 0, 0, 1, 0], ["ER", 1, 0, 0, 1], [
      "Rea",
      0,
      1,
      0,
      0
    ]])
  })

  it("NExT-QA: per type and per family", () => {
    // CW correct, TN wrong, DC correct.
    const h = headline(fileInput("val.csv", nextQaCsv), ["D", "A", "A"])
    assert.deepStrictEqual(counts(h.axes[0]!.groups), [["CW", 1, 0, 0, 1], ["TN", 0, 1, 0, 0], ["DC", 1, 0, 0, 1]])
    assert.deepStrictEqual(counts(h.axes[1]!.groups), [["Causal", 1, 0, 0, 1], ["Temporal", 0, 1, 0, 0], [
      "Descriptive",
      1,
      0,
      0,
      1
    ]])
  })

  it("EgoSchema: questions outside the subset are unscored, counted apart from the accuracy", () => {
    const h = headline(fileInput("questions.json", json(egoSchemaRows)), ["D", "A", "B"], {
      answers: { file: "subset_answers.json", value: egoSchemaSubset }
    })
    assert.deepStrictEqual(
      {
        correct: h.overall.correct,
        wrong: h.overall.wrong,
        total: h.overall.total,
        unscored: h.overall.unscored,
        accuracy: h.overall.accuracy
      },
      { correct: 1, wrong: 1, total: 2, unscored: 1, accuracy: 0.5 }
    )
    const none = headline(fileInput("questions.json", json(egoSchemaRows)), ["D", "A", "B"])
    assert.deepStrictEqual([none.overall.total, none.overall.unscored, none.overall.accuracy, none.overall.interval], [
      0,
      3,
      null,
      null
    ])
  })

  it("Video-MME: per task type, duration and domain as today", () => {
    const h = headline(fileInput("videomme.jsonl", jsonl(...videoMmeRows)), ["C", "B", null])
    assert.deepStrictEqual(h.axes.map((a) => [a.axis, counts(a.groups)]), [
      ["task type", [["Counting Problem", 1, 0, 0, 1], ["Temporal Reasoning", 0, 0, 1, 0], [
        "Information Synopsis",
        0,
        1,
        0,
        0
      ]]],
      ["duration", [["short", 1, 1, 0, 0.5], ["long", 0, 0, 1, 0]]],
      ["domain", [["Knowledge", 1, 1, 0, 0.5], ["Sports Competition", 0, 0, 1, 0]]]
    ])
  })
})
