import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { QuestionLoadError } from "../../../src/domain/Question.js"
import type { BenchmarkInput, BenchmarkQuestion } from "../../../src/programs/benchmarks/Benchmark.js"
import { asQuestion, decodeBenchmark, type DecodeOptions } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import {
  decoded,
  egoSchemaRows,
  egoSchemaSubset,
  fileInput,
  folderInput,
  json,
  jsonl,
  longVideoBenchRows,
  longVideoBenchTestRows,
  lvBenchLines,
  mlvuNeedle,
  mlvuPlotQa,
  mlvuTestRows,
  nextQaCsv,
  videoMmeRows
} from "../../support/benchmarks/BenchmarkInputs.js"

const questions = (input: BenchmarkInput, options?: DecodeOptions): ReadonlyArray<BenchmarkQuestion> =>
  decoded(input, options).questions
const failure = (input: BenchmarkInput, options?: DecodeOptions): QuestionLoadError => {
  const result = decodeBenchmark(input, options)
  if (Either.isRight(result)) return assert.fail(`expected an error, got ${result.right.questions.length} questions`)
  return result.left
}
const brief = (q: BenchmarkQuestion) => ({
  id: q.id,
  videoId: q.videoId,
  options: q.options,
  key: q.key,
  originalKey: q.originalKey
})

describe("Video-MME", () => {
  it("reads JSONL and JSON arrays alike, keeping video_id, sub_category and url in the row", () => {
    const fromLines = questions(fileInput("videomme.jsonl", jsonl(...videoMmeRows)))
    const fromArray = questions(fileInput("test.json", json(videoMmeRows)))
    assert.deepStrictEqual(fromLines.map(brief), fromArray.map(brief))
    const q = fromLines[0]!
    assert.deepStrictEqual(brief(q), {
      id: "001-1",
      videoId: "fFjv93ACGo8",
      options: videoMmeRows[0]!.options,
      key: "C",
      originalKey: "C"
    })
    assert.strictEqual(q.durationGroup, "short")
    assert.deepStrictEqual(q.categories, [
      { axis: "task type", labels: ["Counting Problem"] },
      { axis: "duration", labels: ["short"] },
      { axis: "domain", labels: ["Knowledge"] }
    ])
    assert.deepStrictEqual(q.row, videoMmeRows[0])
    assert.deepStrictEqual(q.source, { file: "videomme.jsonl", location: "line 1" })
    assert.deepStrictEqual(asQuestion(q), {
      questionId: "001-1",
      videoId: "fFjv93ACGo8",
      taskType: "Counting Problem",
      duration: "short",
      domain: "Knowledge",
      question: videoMmeRows[0]!.question,
      options: videoMmeRows[0]!.options,
      answer: "C"
    })
  })

  it("reads vtree's folder of <videoID>.json files, lettering bare options", () => {
    const qs = questions(
      folderInput("qs", [[
        "vid1.json",
        json([{ question_id: 7, task_type: "OCR Problems", question: "Q?", options: ["x", "y"], answer: null }])
      ]])
    )
    assert.deepStrictEqual(qs.map(brief), [{
      id: "7",
      videoId: "vid1",
      options: ["A. x", "B. y"],
      key: null,
      originalKey: null
    }])
  })

  it("refuses an answer letter the question lacks, and options out of order, naming file, row and fix", () => {
    assert.strictEqual(
      failure(fileInput("q.jsonl", jsonl({ ...videoMmeRows[0], answer: "E" }))).message,
      `q.jsonl: line 1: answer: expected an option letter A–D, got "E" — write the right option's letter (this benchmark's keys are letters, not indices)`
    )
    assert.strictEqual(
      failure(fileInput("q.jsonl", jsonl({ ...videoMmeRows[0], options: ["A. x", "C. y"] }))).message,
      `q.jsonl: line 1: options[1]: expected to start with "B.", got "C. y" — label the options A., B., C., … in order, or leave all labels out`
    )
  })
})

describe("LVBench", () => {
  const input = fileInput("video_info.meta.jsonl", jsonl(...lvBenchLines))

  it("splits options out of the question, keeps multi-line options and trailing text, maps types to short names", () => {
    const qs = questions(input)
    assert.deepStrictEqual(qs.map(brief), [
      {
        id: "1",
        videoId: "4FLo1Y5jGxU",
        options: ["A. Hawk", "B. Crow", "C. Owl", "D. Sparrow"],
        key: "A",
        originalKey: "A"
      },
      {
        id: "2",
        videoId: "4FLo1Y5jGxU",
        options: ["A. It is scared by a dog", "B. It is hungry", "C. It hears (a) shot", "D. It is chasing a rabbit"],
        key: "C",
        originalKey: "C"
      },
      {
        id: "3",
        videoId: "Cm73ma6Ibcs",
        options: ["A. Rain", "B. Sun", "C. Snow", "D. Fog"],
        key: "B",
        originalKey: "B"
      }
    ])
    assert.strictEqual(qs[1]!.question, "Why does the fox\nrun away?\nAnswer with the letter.")
    assert.deepStrictEqual(qs[1]!.categories, [{ axis: "question type", labels: ["Rea", "KIR"] }])
    assert.strictEqual(qs[0]!.durationSeconds, 65.5 * 60)
    assert.strictEqual(qs[0]!.domain, "cartoon")
    assert.deepStrictEqual(qs[1]!.source, { file: "video_info.meta.jsonl", location: "line 1: qa[1]" })
  })

  it("refuses a question without option lines and options out of order", () => {
    const line = (question: string) => jsonl({ ...lvBenchLines[0], qa: [{ ...lvBenchLines[0]!.qa[0], question }] })
    assert.strictEqual(
      failure(fileInput("m.jsonl", line("What bird?"))).message,
      `m.jsonl: line 1: qa[0].question: holds no "(A) …" option lines — write each option on its own line as "(A) text", in order`
    )
    assert.match(
      failure(fileInput("m.jsonl", line("Q?\n(A) x\n(C) y"))).message,
      /^m\.jsonl: line 1: qa\[0\]\.question: option "\(C\)" where "\(B\)" was expected/
    )
  })
})

describe("LongVideoBench", () => {
  it("takes the video from video_path's stem and the key from correct_choice", () => {
    const qs = questions(fileInput("lvb_val.json", json(longVideoBenchRows)))
    assert.deepStrictEqual(qs.map(brief), [
      {
        id: "86CxyhFV9MI_0",
        videoId: "86CxyhFV9MI",
        options: ["A. someone asking", "B. an apple", "C. a cat", "D. a glass of water"],
        key: "D",
        originalKey: 3
      },
      {
        id: "-8lu-6Vx8as_1",
        videoId: "-8lu-6Vx8as",
        options: ["A. a book", "B. a cup", "C. a phone", "D. a pen", "E. nothing"],
        key: "A",
        originalKey: 0
      }
    ])
    assert.deepStrictEqual(qs[0]!.categories, [{ axis: "question category", labels: ["TOS"] }, {
      axis: "duration group",
      labels: ["600"]
    }])
  })

  it("leaves the test split unscored", () => {
    assert.deepStrictEqual(
      questions(fileInput("lvb_test_wo_gt.json", json(longVideoBenchTestRows))).map((q) => q.key),
      [null, null]
    )
  })

  it("refuses a key out of range and a row without options", () => {
    assert.strictEqual(
      failure(fileInput("lvb_val.json", json([{ ...longVideoBenchRows[0], correct_choice: 4 }]))).message,
      "lvb_val.json: index 0: correct_choice: 4 names no option (the question has 4: A–D, or indices 0–3) — fix the key or the options"
    )
    assert.strictEqual(
      failure(fileInput("lvb_val.json", json([{ ...longVideoBenchRows[0], candidates: [] }]))).message,
      `lvb_val.json: index 0: candidates: expected 2 to 10 options, got 0 — write "candidates": ["…", "…"]`
    )
  })
})

describe("MLVU", () => {
  it("reads the dev folder, deriving ids and matching the answer text to a candidate", () => {
    const qs = questions(
      folderInput("MLVU/json", [["1_plotQA.json", json(mlvuPlotQa)], ["2_needle.json", json(mlvuNeedle)]])
    )
    assert.deepStrictEqual(qs.map((q) => [q.id, q.videoId, q.key, q.originalKey, q.taskType]), [
      ["plotQA_0", "movie101_66", "A", "Yellow", "plotQA"],
      ["plotQA_1", "movie101_67", "B", " on a ship", "plotQA"],
      ["needle_0", "needle_32", "A", "Delivers a product", "needle"]
    ])
  })

  it("reads the test file with its ids and no keys", () => {
    const qs = questions(fileInput("test_mcq.json", json(mlvuTestRows)))
    assert.deepStrictEqual(qs.map((q) => [q.id, q.key, q.options.length]), [["AQA_1", null, 6], ["AQA_2", null, 6]])
  })

  it("refuses an answer that is none of the candidates", () => {
    assert.strictEqual(
      failure(folderInput("dev", [["1_plotQA.json", json([{ ...mlvuPlotQa[0], answer: "Purple" }])]])).message,
      `dev/1_plotQA.json: index 0: answer: "Purple" is none of the candidates — set "answer" to one candidate's exact text`
    )
  })
})

describe("EgoSchema", () => {
  const input = fileInput("questions.json", json(egoSchemaRows))

  it("without answers every question is unscored; with the subset's, those keys are set", () => {
    assert.deepStrictEqual(questions(input).map((q) => q.key), [null, null, null])
    const keyed = questions(input, { answers: { file: "subset_answers.json", value: egoSchemaSubset } })
    assert.deepStrictEqual(keyed.map((q) => [q.key, q.originalKey]), [["D", 3], ["B", 1], [null, null]])
    assert.deepStrictEqual(keyed[0]!.options, [
      "A. C is cooking.",
      "B. C is doing laundry.",
      "C. C is cleaning the kitchen.",
      "D. C is cleaning dishes.",
      "E. C is cleaning the bathroom."
    ])
    assert.strictEqual(keyed[0]!.videoId, egoSchemaRows[0]!.q_uid)
  })

  it("accepts letters in the answers file and refuses a key out of range or a file for other questions", () => {
    const letters = questions(input, { answers: { file: "a.json", value: { [egoSchemaRows[2]!.q_uid]: "e" } } })
    assert.deepStrictEqual(letters.map((q) => q.key), [null, null, "E"])
    assert.strictEqual(
      failure(input, { answers: { file: "a.json", value: { [egoSchemaRows[0]!.q_uid]: 5 } } }).message,
      `a.json: "${
        egoSchemaRows[0]!.q_uid
      }": 5 names no option (the question has 5: A–E, or indices 0–4) — give a letter or an index from 0`
    )
    const other = failure(input, { answers: { file: "a.json", value: { nope: 1 } } })
    assert.deepStrictEqual([other.reason, other.message], [
      "InvalidAnswers",
      "a.json: names none of the questions' ids — pass the answers that belong to this question file"
    ])
  })
})

describe("NExT-QA", () => {
  it("parses quoted commas and doubled quotes, ids <video>_<qid>, index keys, type and family", () => {
    const qs = questions(fileInput("val.csv", nextQaCsv))
    assert.deepStrictEqual(qs.map(brief), [
      {
        id: "4010069381_6",
        videoId: "4010069381",
        options: [
          "A. share with the girl",
          "B. approach lady sitting there",
          "C. unwrap it",
          "D. playing with toy train",
          "E. gesture something"
        ],
        key: "D",
        originalKey: 3
      },
      {
        id: "4010069381_7",
        videoId: "4010069381",
        options: ["A. sit, then stand", "B. clap", "C. wave", "D. jump", "E. run"],
        key: "B",
        originalKey: 1
      },
      {
        id: "6233408665_2",
        videoId: "6233408665",
        options: ["A. two", "B. three", "C. four", "D. five", "E. six"],
        key: "A",
        originalKey: 0
      }
    ])
    assert.strictEqual(qs[1]!.question, `what did the man do after he said "ok, go"`)
    assert.deepStrictEqual(qs[1]!.categories, [{ axis: "type", labels: ["TN"] }, {
      axis: "family",
      labels: ["Temporal"]
    }])
    assert.deepStrictEqual(qs[1]!.source, { file: "val.csv", location: "line 3" })
  })

  it("refuses a row whose unquoted comma shifts the fields, and a key out of range", () => {
    const lines = nextQaCsv.split("\r\n")
    assert.strictEqual(
      failure(fileInput("val.csv", [lines[0], "1,2,3,4,why, then,0,1,CW,a,b,c,d,e"].join("\n"))).message,
      "val.csv: line 2: has 14 fields where the header has 13 — quote fields that hold commas"
    )
    assert.strictEqual(
      failure(fileInput("val.csv", [lines[0], "1,2,3,4,why,9,1,CW,a,b,c,d,e"].join("\n"))).message,
      `val.csv: line 2: answer: "9" names no option (the question has 5: A–E, or indices 0–4) — fix the key or the options`
    )
  })
})

describe("decodeBenchmark", () => {
  it("refuses ids that repeat across the input and an input of no questions", () => {
    const twice = failure(
      folderInput("dev", [["1_plotQA.json", json(mlvuPlotQa)], ["1_plotQA_copy.json", json(mlvuPlotQa)]])
    )
    assert.deepStrictEqual([twice.reason, twice.message], [
      "DuplicateId",
      `dev/1_plotQA_copy.json: index 0: question id "plotQA_0" already appears at dev/1_plotQA.json: index 0 — question ids must be unique across the input; remove or rename one`
    ])
    assert.strictEqual(failure(fileInput("lvb_val.json", "[]"), { benchmark: "longvideobench" }).reason, "Empty")
  })
})
