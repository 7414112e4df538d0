import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { BenchmarkInput } from "../../../src/programs/benchmarks/Benchmark.js"
import { classifyText, decodeBenchmark } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import { benchmarkNamed, detectBenchmark } from "../../../src/programs/benchmarks/Registry.js"
import {
  egoSchemaRows,
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

const detected = (input: BenchmarkInput): string =>
  Either.match(detectBenchmark(input), { onLeft: (e) => e.reason, onRight: (b) => b.name })

describe("detectBenchmark", () => {
  it("recognises each released layout by its content", () => {
    assert.deepStrictEqual(
      [
        fileInput("videomme.jsonl", jsonl(...videoMmeRows)),
        fileInput("test.json", json(videoMmeRows)),
        folderInput("qs", [[
          "fFjv93ACGo8.json",
          json([{
            question_id: "1",
            task_type: "OCR Problems",
            question: "Q?",
            options: ["A. x", "B. y"],
            answer: "A"
          }])
        ]]),
        fileInput("video_info.meta.jsonl", jsonl(...lvBenchLines)),
        fileInput("lvb_val.json", json(longVideoBenchRows)),
        folderInput("MLVU/json", [["1_plotQA.json", json(mlvuPlotQa)], ["2_needle.json", json(mlvuNeedle)]]),
        fileInput("test_mcq.json", json(mlvuTestRows)),
        fileInput("questions.json", json(egoSchemaRows)),
        fileInput("val.csv", nextQaCsv)
      ].map(detected),
      ["videomme", "videomme", "videomme", "lvbench", "longvideobench", "mlvu", "mlvu", "egoschema", "nextqa"]
    )
  })

  it("goes by content whatever the file is called", () => {
    assert.strictEqual(detected(fileInput("lvb_val.json", jsonl(...lvBenchLines))), "lvbench")
    assert.strictEqual(detected(fileInput("questions.json", nextQaCsv)), "nextqa")
    assert.strictEqual(detected(fileInput("data.txt", json(egoSchemaRows))), "egoschema")
  })

  it("refuses a file of no known layout in one line naming the layouts vtree reads", () => {
    for (
      const input of [
        fileInput("x.json", json([{ foo: 1 }])),
        fileInput("notes.txt", "hello, world\n"),
        folderInput("empty", [])
      ]
    ) {
      const error = Either.getOrThrowWith(Either.flip(detectBenchmark(input)), () => "detected")
      assert.strictEqual(error.reason, "UnknownLayout")
      assert.notInclude(error.message, "\n")
      for (const name of ["Video-MME", "LVBench", "LongVideoBench", "MLVU", "EgoSchema", "NExT-QA"]) {
        assert.include(error.message, name)
      }
    }
    assert.match(
      Either.getOrThrowWith(Either.flip(detectBenchmark(fileInput("x.json", "{}"))), () => "").message,
      /^x\.json: has no question layout vtree reads — vtree reads Video-MME/
    )
  })

  it("lets the file name settle content that fits two layouts, and refuses when it does not", () => {
    const both = [{
      ...lvBenchLines[0],
      video: "a.mp4",
      question: "Q?",
      candidates: ["x", "y"],
      question_type: "plotQA"
    }]
    const ambiguous = Either.getOrThrowWith(
      Either.flip(detectBenchmark(fileInput("rows.jsonl", jsonl(...both)))),
      () => ""
    )
    assert.deepStrictEqual([ambiguous.reason, ambiguous.message], [
      "Ambiguous",
      "rows.jsonl: fits several layouts (lvbench, mlvu) — pass --benchmark lvbench or --benchmark mlvu"
    ])
    assert.strictEqual(detected(fileInput("video_info.meta.jsonl", jsonl(...both))), "lvbench")
    assert.strictEqual(detected(fileInput("mlvu_dev.jsonl", jsonl(...both))), "mlvu")
    // A hint that names both, or neither of, the fitting layouts settles nothing.
    assert.strictEqual(detected(fileInput("mlvu_lvbench.jsonl", jsonl(...both))), "Ambiguous")
  })
})

describe("--benchmark", () => {
  it("overrides detection, in any spelling of the name", () => {
    const both = [{
      ...lvBenchLines[0],
      video: "a.mp4",
      question: "Q?",
      candidates: ["x", "y"],
      question_type: "plotQA"
    }]
    const result = decodeBenchmark(fileInput("rows.jsonl", jsonl(...both)), { benchmark: "MLVU" })
    const named = (name: string): string => Either.getOrThrow(benchmarkNamed(name)).name
    assert.deepStrictEqual(Either.getOrThrow(Either.map(result, (r) => [r.benchmark.name, r.questions.length])), [
      "mlvu",
      1
    ])
    assert.deepStrictEqual([named("Video-MME"), named("next_qa")], ["videomme", "nextqa"])
  })

  it("refuses a name it does not know, and a file that is not of the forced layout, naming the row", () => {
    assert.strictEqual(
      Either.getOrThrowWith(Either.flip(benchmarkNamed("activitynet")), () => "").message,
      `--benchmark: "activitynet" is no benchmark vtree reads — use one of videomme, lvbench, longvideobench, mlvu, egoschema, nextqa, custom, videommev2, longvidsearch`
    )
    const forced = Either.getOrThrowWith(
      Either.flip(decodeBenchmark(fileInput("questions.json", json(egoSchemaRows)), { benchmark: "lvbench" })),
      () => ""
    )
    assert.strictEqual(
      forced.message,
      `questions.json: index 0: key: is missing — set "key" to the video's id (its folder under --trees)`
    )
  })
})

describe("classifyText", () => {
  const parseJson = (text: string) => Either.try(() => JSON.parse(text) as unknown)

  it("tells one JSON value, JSON lines and other text apart", () => {
    assert.deepStrictEqual(classifyText("\uFEFF[1, 2]", parseJson), { _tag: "Json", value: [1, 2] })
    assert.deepStrictEqual(classifyText(`{"a":1}\n\n{"a":2}\r\n`, parseJson), {
      _tag: "JsonLines",
      rows: [{ line: 1, value: { a: 1 } }, { line: 3, value: { a: 2 } }]
    })
    assert.deepStrictEqual(classifyText("a,b\n1,2\n", parseJson), { _tag: "Text", text: "a,b\n1,2\n" })
    assert.deepStrictEqual(classifyText(`{"a":1}\n{"a":`, parseJson), { _tag: "Text", text: `{"a":1}\n{"a":` })
    assert.deepStrictEqual(classifyText("", parseJson), { _tag: "Text", text: "" })
  })

  it("decodes a one-line JSONL file as one row at line 1", () => {
    const { questions } = Either.getOrThrow(decodeBenchmark(fileInput("one.jsonl", jsonl(lvBenchLines[1]))))
    assert.deepStrictEqual(questions.map((q) => q.source), [{ file: "one.jsonl", location: "line 1: qa[0]" }])
  })
})
