// Video-MME-v2: test.parquet (written here with a Parquet writer) read by its content and decoded; the
// grouped scores against values worked by hand for each group structure and both group types; the official
// −1 handling against a transcription of the benchmark's own evaluation/test_video_mme_v2.py; the TSV export.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parquetWriteBuffer } from "hyparquet-writer"
import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import type { QuestionResult } from "../../../src/programs/benchmarks/Benchmark.js"
import { decodeBenchmark } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import { officialScoreOf } from "../../../src/programs/benchmarks/OfficialScore.js"
import { videoMmeV2, videoMmeV2Official } from "../../../src/programs/benchmarks/VideoMmeV2.js"
import { logicScore, type Mark, relevanceScore } from "../../../src/programs/benchmarks/VideoMmeV2Groups.js"
import { readParquetRows } from "../../../src/programs/questions/ParquetRows.js"
import { loadQuestionSet } from "../../../src/programs/questions/QuestionLoader.js"
import { videoMmeV2Parquet, videoMmeV2Rows } from "../../support/benchmarks/VideoMmeV2Inputs.js"
import { prediction } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tableInput = (rows: ReadonlyArray<Record<string, unknown>>) =>
  ({ _tag: "File", file: { file: "test.parquet", content: { _tag: "Table", rows } } }) as const

const decoded = () => {
  const result = decodeBenchmark(tableInput(videoMmeV2Rows as unknown as ReadonlyArray<Record<string, unknown>>))
  assert.isTrue(result._tag === "Right")
  return result._tag === "Right" ? result.right.questions : []
}

/** Results for the fixture's twelve questions: `picks` one letter (or null: nothing read) per question. */
const resultsWith = (picks: ReadonlyArray<string | null>): ReadonlyArray<QuestionResult> =>
  decoded().map((question, i) => ({ question, prediction: picks[i] ?? null }))

// 001 relevance: right, right, right, unread. 002 logic [1, [2, 3], 4]: right, unread, wrong, right.
// 003 logic [[1, 2], 3, 4]: unread, wrong, right, right.
const picks = ["A", "B", "C", null, "E", null, "A", "H", null, "B", "D", "C"]

const writeParquet = (bytes: Uint8Array, name = "test.parquet") =>
  Effect.map(scopedTempDir("videommev2"), (dir) => {
    const file = NodePath.join(dir, name)
    writeFileSync(file, bytes)
    return file
  })

describe("Video-MME-v2: test.parquet", () => {
  it.scoped("is read by its PAR1 magic, whatever its name, and detected from its columns", () =>
    Effect.gen(function*() {
      // A name that hints at nothing: the content decides.
      const file = yield* writeParquet(videoMmeV2Parquet(), "questions.bin")
      const loaded = yield* loadQuestionSet(file)
      assert.strictEqual(loaded.benchmark, "videommev2")
      assert.strictEqual(loaded.questions.length, 12)
      const first = loaded.questions[0]!
      assert.deepStrictEqual([first.questionId, first.videoId, first.answer], ["001-1", "001", "A"])
      // An option text that runs over a line break stays one option; eight options, A to H.
      assert.strictEqual(first.options.length, 8)
      assert.strictEqual(first.options[3], "D. Two people.")
      assert.strictEqual(first.options[7], "H. Cannot be determined.")
      const facts = loaded.facts.get("002-4")!
      assert.deepStrictEqual(facts.categories, [
        { axis: "level", labels: ["2"] },
        { axis: "group type", labels: ["logic"] },
        { axis: "second head", labels: ["Temporal"] },
        { axis: "third head", labels: ["Order"] }
      ])
      // The kept row is plain JSON (the INT32 level a number), as the run stores it.
      assert.strictEqual((facts.row as { level: unknown }).level, 2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("INT64 columns (pandas' default for integers) read as plain numbers, so the row stores as JSON", () =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(parquetWriteBuffer({
        columnData: [
          { name: "level", data: [BigInt(3), BigInt(2) ** BigInt(60)], type: "INT64" },
          { name: "video_id", data: ["001", "002"], type: "STRING" }
        ]
      }))
      const rows = yield* readParquetRows(yield* writeParquet(bytes))
      // Past 2^53 the digits are kept as text rather than rounded.
      assert.deepStrictEqual(rows, [{ level: 3, video_id: "001" }, { level: "1152921504606846976", video_id: "002" }])
      assert.strictEqual(JSON.stringify(rows[0]), `{"level":3,"video_id":"001"}`)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a corrupt or oversized Parquet file is one line naming the file and the fix", () =>
    Effect.gen(function*() {
      const whole = videoMmeV2Parquet()
      // PAR1 at the start, the footer cut off.
      const cut = yield* writeParquet(whole.subarray(0, Math.floor(whole.length / 2)), "cut.parquet")
      const error = yield* Effect.flip(loadQuestionSet(cut))
      assert.strictEqual(error.reason, "InvalidParquet")
      assert.match(error.message, /cut\.parquet: is not a readable Parquet file \(.+\) — download the file again/)
      assert.notInclude(error.message, "\n")
      const full = yield* writeParquet(whole)
      const tooMany = yield* Effect.flip(readParquetRows(full, { rows: 11 }))
      assert.strictEqual(tooMany._tag, "ParquetError")
      assert.strictEqual(
        tooMany.message,
        `${full}: holds 12 rows, more than the 11 vtree reads from one Parquet file — split the file, or pass the part you mean to run`
      )
      const tooLarge = yield* Effect.flip(readParquetRows(full, { bytes: 100 }))
      assert.strictEqual(tooLarge._tag, "UserFileError")
      assert.include(tooLarge.message, "is larger than")
    }).pipe(Effect.provide(NodeContext.layer)))

  it("refuses a logic row whose group_structure is none of the three, naming the row", () => {
    const rows = videoMmeV2Rows.map((r, i) => (i === 5 ? { ...r, group_structure: "[1, 2, [3, 4]]" } : r))
    const result = decodeBenchmark(tableInput(rows as unknown as ReadonlyArray<Record<string, unknown>>))
    assert.isTrue(result._tag === "Left")
    if (result._tag === "Left") {
      assert.strictEqual(
        result.left.message,
        `test.parquet: row 6: group_structure: is "[1, 2, [3, 4]]" — use "[1, 2, 3, 4]", "[1, [2, 3], 4]", "[[1, 2], 3, 4]"`
      )
    }
  })
})

describe("Video-MME-v2 group scores", () => {
  const relevance = (marks: ReadonlyArray<Mark>) => relevanceScore(marks).score
  it("relevance: by the number right, 0 / 1/16 / 4/16 / 9/16 / 1", () => {
    assert.deepStrictEqual(
      [[0, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 1], [1, 1, 1, 1]].map((m) => relevance(m as Array<Mark>)),
      [0, 0.0625, 0.25, 0.5625, 1]
    )
  })

  it("logic [1, 2, 3, 4]: the chain of leading right answers, squared over 16", () => {
    const s = (m: ReadonlyArray<Mark>) => logicScore(m, "[1, 2, 3, 4]")
    assert.deepStrictEqual([s([0, 1, 1, 1]), s([1, 0, 1, 1]), s([1, 1, 0, 1]), s([1, 1, 1, 0]), s([1, 1, 1, 1])], [
      0,
      1 / 16,
      4 / 16,
      9 / 16,
      1
    ])
  })

  it("logic [1, [2, 3], 4]: 2 and 3 side by side, so 1 then 3 right is a chain of two (1/12, 4/12, 7/12)", () => {
    const s = (m: ReadonlyArray<Mark>) => logicScore(m, "[1, [2, 3], 4]")
    assert.closeTo(s([1, 0, 0, 1]), 1 / 12, 1e-12)
    assert.closeTo(s([1, 0, 1, 1]), 4 / 12, 1e-12)
    assert.closeTo(s([1, 1, 0, 1]), 4 / 12, 1e-12)
    assert.closeTo(s([1, 1, 1, 0]), 7 / 12, 1e-12)
    assert.strictEqual(s([0, 1, 1, 1]), 0)
    assert.strictEqual(s([1, 1, 1, 1]), 1)
  })

  it("logic [[1, 2], 3, 4]: 1 and 2 both open the chain (1/10, 2/10, 5/10)", () => {
    const s = (m: ReadonlyArray<Mark>) => logicScore(m, "[[1, 2], 3, 4]")
    assert.closeTo(s([0, 1, 1, 1]), 0.1, 1e-12)
    assert.closeTo(s([1, 0, 1, 1]), 0.1, 1e-12)
    assert.closeTo(s([1, 1, 0, 1]), 0.2, 1e-12)
    assert.closeTo(s([1, 1, 1, 0]), 0.5, 1e-12)
    assert.strictEqual(s([0, 0, 1, 1]), 0)
    assert.strictEqual(s([1, 1, 1, 1]), 1)
  })

  // Transcribed from MME-Benchmarks/Video-MME-v2 evaluation/test_video_mme_v2.py (013b6c9): `evaluate` sets
  // score = int(extracted == ans) if extracted else -1; cal_relevance maps sum(scores), so a −1 subtracts;
  // cal_logic walks `if val:`, true for −1, and tests `scores[2]` / `scores[1]` the same way.
  it("an unread answer is −1 in the official figure: subtracted in relevance, a right link in logic", () => {
    assert.strictEqual(relevance([1, 1, 1, -1]), 0.25)
    assert.strictEqual(relevance([-1, -1, 1, 0]), 0)
    assert.strictEqual(relevanceScore([1, 1, 1, -1]).linear, 0.5)
    assert.strictEqual(logicScore([1, -1, 1, 1], "[1, 2, 3, 4]"), 1)
    assert.closeTo(logicScore([1, 0, -1, 0], "[1, [2, 3], 4]"), 4 / 12, 1e-12)
    assert.closeTo(logicScore([0, -1, 0, 0], "[[1, 2], 3, 4]"), 0.1, 1e-12)
  })

  it("the headline: the strict group score (unread = wrong) overall, per level, group type and category", () => {
    const headline = videoMmeV2.headline(resultsWith(picks))
    // Strict marks: 001 [1,1,1,0] → 9/16; 002 [1,0,0,1] → 1/12; 003 [0,0,1,1] → 0.
    const strict = [9 / 16, 1 / 12, 0]
    assert.strictEqual(headline.primary?.name, "group score")
    assert.closeTo(headline.primary!.value!, (strict[0]! + strict[1]! + strict[2]!) / 3, 1e-12)
    assert.deepStrictEqual([headline.overall.correct, headline.overall.unanswered, headline.overall.total], [7, 3, 12])
    const axis = (name: string) =>
      headline.groupScores!.axes.find((a) => a.axis === name)!.groups.map((g) => [g.key, g.score, g.groups])
    assert.deepStrictEqual(axis("level"), [["1", 9 / 16, 1], ["2", 1 / 12, 1], ["3", 0, 1]])
    assert.deepStrictEqual(axis("group type"), [["relevance", 9 / 16, 1], ["logic", 1 / 24, 2]])
    // A group's category is its last question's, never "Other".
    assert.deepStrictEqual(axis("second head").map((g) => g[0]), ["Frames & Audio", "Temporal", "Reasoning"])
    assert.deepStrictEqual(axis("third head").map((g) => g[0]), ["Counting", "Order", "Causal"])
    assert.include(
      headline.groupScores!.note,
      "3 unread answers, which the official script scores −1 (a right answer taken away in 1 relevance group, a right link in 2 logic groups)"
    )
    // Per-question accuracy per level beside it.
    assert.deepStrictEqual(
      headline.axes.find((a) => a.axis === "level")!.groups.map((g) => [g.key, g.correct, g.total]),
      [["1", 3, 4], ["2", 2, 4], ["3", 2, 4]]
    )
  })

  it("the official figure follows the script: −1 kept, means of 0 for an empty level, heads of the last question", () => {
    const official = videoMmeV2Official(resultsWith(picks))
    // Official marks: 001 [1,1,1,-1] → sum 2 → 4/16; 002 [1,-1,0,1] → chain of two → 4/12;
    // 003 [-1,0,1,1] → chain of one → 1/10.
    assert.closeTo(official.total, (0.25 + 4 / 12 + 0.1) / 3, 1e-12)
    assert.deepStrictEqual(official.levels, { "1": 0.25, "2": 4 / 12, "3": 0.1 })
    assert.strictEqual(official.relevance, 0.25)
    assert.strictEqual(official.relevanceLinear, 0.5)
    assert.closeTo(official.logic, (4 / 12 + 0.1) / 2, 1e-12)
    assert.deepStrictEqual(Object.keys(official.secondHead), ["Frames & Audio", "Temporal", "Reasoning"])
    assert.closeTo(official.validAccuracy!, 7 / 9, 1e-12)
    assert.strictEqual(official.unread, 3)
    assert.deepStrictEqual(official.touchedGroups, { relevance: 1, logic: 2 })
    assert.deepStrictEqual([official.groups, official.incomplete], [3, 0])
  })

  it("is the official score every report states for a Video-MME-v2 run, from its stored rows", () => {
    const rows = resultsWith(picks).map(({ prediction: said, question: q }) =>
      prediction({
        questionId: q.id,
        videoId: q.videoId,
        options: q.options,
        answer: q.key,
        prediction: said,
        correct: said !== null && said === q.key,
        stopReason: said === null ? "budget_exceeded" : "finished",
        benchmark: {
          name: "videommev2",
          categories: q.categories,
          originalKey: q.originalKey,
          durationSeconds: q.durationSeconds,
          durationGroup: q.durationGroup,
          source: q.source,
          row: q.row
        }
      })
    )
    const score = officialScoreOf("videommev2", rows)
    assert.closeTo(score.value!, (0.25 + 4 / 12 + 0.1) / 3, 1e-12)
    assert.strictEqual(score.denominator, 12)
    assert.strictEqual(score.scorer, "MME-Benchmarks/Video-MME-v2 evaluation/test_video_mme_v2.py")
    assert.deepStrictEqual(score.parts.map((p) => [p.key, p.denominator]), [["relevance", 4], ["logic", 8]])
  })

  it("a group short of its four questions is left out of both figures and counted", () => {
    const results = resultsWith(picks).filter((r) => r.question.id !== "003-2")
    const official = videoMmeV2Official(results)
    assert.deepStrictEqual([official.groups, official.incomplete], [2, 1])
    assert.include(videoMmeV2.headline(results).groupScores!.note, "1 group left out")
  })
})

describe("Video-MME-v2 export", () => {
  it("is the TSV the official script's evaluate reads, groups of four in order, unanswered as an empty prediction", () => {
    const results = resultsWith(picks).slice().reverse()
    const tsv = videoMmeV2.export(results) as string
    const lines = tsv.split("\n")
    assert.strictEqual(
      lines[0],
      "index\tvideo_id\tquestion_id\tquestion\toptions\tanswer\tlevel\tgroup_type\tgroup_structure\tsecond_head\tthird_head\tprediction"
    )
    // The options hold line breaks: quoted, as pandas writes and reads them.
    assert.isTrue(
      tsv.startsWith(
        `${lines[0]}\n0\t003\t003-1\tVideo 003 question 1?\t"A. Red.\nB. Blue.\nC. Green.\nD. Two\npeople.\nE. Five.`
      )
    )
    const ids = [...tsv.matchAll(/^\d+\t\d{3}\t(\d{3}-\d)\t/gm)].map((m) => m[1])
    assert.deepStrictEqual(ids, [
      "003-1",
      "003-2",
      "003-3",
      "003-4",
      "002-1",
      "002-2",
      "002-3",
      "002-4",
      "001-1",
      "001-2",
      "001-3",
      "001-4"
    ])
    assert.isTrue(tsv.includes("\tB\t3\tlogic\t[[1, 2], 3, 4]\tOther\tOther detail\t\n"))
    assert.isTrue(tsv.endsWith("\tD\t1\trelevance\t[1, 2, 3, 4]\tFrames & Audio\tCounting\t\n"))
  })
})
