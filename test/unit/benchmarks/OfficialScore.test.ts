// Each benchmark's official score, transcribed from its released scorer, on fixture exports whose numbers are
// worked out by hand from that scorer's rule (the arithmetic is written beside each).
import { assert, describe, it } from "@effect/vitest"
import type { StopReason } from "../../../src/domain/Prediction.js"
import type { BenchmarkName } from "../../../src/domain/Question.js"
import type { PredictionRow } from "../../../src/domain/RunRecord.js"
import {
  longVideoBenchParse,
  type OfficialScore,
  officialScoreOf,
  videoMmeExtract
} from "../../../src/programs/benchmarks/OfficialScore.js"
import { letterAt } from "../../../src/programs/benchmarks/Options.js"
import { prediction } from "../../support/harness/RunRows.js"

interface Fixture {
  readonly id: string
  /** The key's letter; null for a question without one. */
  readonly key: string | null
  readonly said: string | null
  readonly stop?: StopReason
  readonly forced?: boolean
  readonly options?: number
  readonly taskType?: string
  readonly categories?: ReadonlyArray<{ readonly axis: string; readonly labels: ReadonlyArray<string> }>
  /** The row as released, where a scorer reads it (LVBench's answer as written). */
  readonly row?: unknown
  readonly originalKey?: string | number | null
}

/** A stored prediction of `benchmark`, with the facts the harness saves beside it. */
const rowOf = (benchmark: BenchmarkName, f: Fixture): PredictionRow =>
  prediction({
    questionId: f.id,
    videoId: `v-${f.id}`,
    taskType: f.taskType ?? "Counting Problem",
    options: Array.from({ length: f.options ?? 4 }, (_, i) => `${letterAt(i)}. option ${i}`),
    answer: f.key,
    prediction: f.said,
    correct: f.key !== null && f.said === f.key,
    stopReason: f.stop ?? (f.said === null ? "budget_exceeded" : "finished"),
    error: f.stop === "error" ? "provider gave up" : null,
    ...(f.forced === true ? { forced: true } : {}),
    benchmark: {
      name: benchmark,
      categories: f.categories ?? [],
      originalKey: f.originalKey ?? f.key,
      durationSeconds: null,
      durationGroup: null,
      source: { file: "fixture", location: f.id },
      row: f.row ?? null
    }
  })

const scoreOf = (benchmark: BenchmarkName, fixtures: ReadonlyArray<Fixture>): OfficialScore =>
  officialScoreOf(benchmark, fixtures.map((f) => rowOf(benchmark, f)))

const close = (actual: number | null, expected: number) => {
  assert.isNotNull(actual)
  assert.closeTo(actual!, expected, 1e-12)
}

describe("officialScoreOf", () => {
  it("Video-MME: eval_your_results.py divides by the answered questions only (a response its regex reads as A–D)", () => {
    // Keyed: 9. Right: q1, q2, q7 (forced), q10 (E of five options) → strict 4/9.
    // The script's extract_characters_regex reads A–D only: q4 "" (unparsable), q5 "" (unanswered), q6 ""
    // (error) and q10 "E" give "" and leave the denominator. Answered: q1 q2 q3 q7 q8 = 5, right q1 q2 q7 = 3
    // → official 3/5 = 60 %. q9 has no key and counts in neither.
    const score = scoreOf("videomme", [
      { id: "q1", key: "C", said: "C" },
      { id: "q2", key: "A", said: "A" },
      { id: "q3", key: "C", said: "B" },
      { id: "q4", key: "A", said: null, stop: "finished" },
      { id: "q5", key: "B", said: null, stop: "budget_exceeded" },
      { id: "q6", key: "D", said: null, stop: "error" },
      { id: "q7", key: "D", said: "D", stop: "budget_exceeded", forced: true },
      { id: "q8", key: "B", said: "A" },
      { id: "q9", key: null, said: "A" },
      { id: "q10", key: "E", said: "E", options: 5 }
    ])
    close(score.value, 3 / 5)
    assert.strictEqual(score.denominator, 5)
    assert.strictEqual(score.name, "Video-MME official (answered only)")
    assert.strictEqual(score.scorer, "BradyFU/Video-MME evaluation/eval_your_results.py")
    assert.deepStrictEqual(score.counts, { unanswered: 1, unparsable: 1, forced: 1, error: 1 })
  })

  it("Video-MME rows stored before benchmark facts were kept are scored as Video-MME", () => {
    const rows = [
      prediction({ questionId: "old1", answer: "B", prediction: "B" }),
      prediction({ questionId: "old2", answer: "B", prediction: null, correct: false, stopReason: "parse_error" })
    ]
    // Answered: old1 only, right → 1/1; strict would be 1/2.
    const score = officialScoreOf("videomme", rows)
    close(score.value, 1)
    assert.strictEqual(score.denominator, 1)
    assert.deepStrictEqual(score.counts, { unanswered: 1, unparsable: 0, forced: 0, error: 0 })
  })

  it("LVBench: compute_accuracy.py counts every exported uid and compares the letter with the answer as written", () => {
    // The export holds all 4 uids (q3 as "E", the letter past D). Strict: q1 and q2 right → 2/4.
    // The script compares `model_answer == qa["answer"]` as strings: q2's key is written "(C)", so "C" ≠ "(C)"
    // → official 1/4.
    const score = scoreOf("lvbench", [
      { id: "q1", key: "B", said: "B", row: { uid: "q1", answer: "B" } },
      { id: "q2", key: "C", said: "C", row: { uid: "q2", answer: "(C)" }, originalKey: "(C)" },
      { id: "q3", key: "A", said: null, stop: "parse_error", row: { uid: "q3", answer: "A" } },
      { id: "q4", key: "D", said: "A", row: { uid: "q4", answer: "D" } }
    ])
    close(score.value, 1 / 4)
    assert.strictEqual(score.denominator, 4)
    assert.strictEqual(score.scorer, "THUDM/LVBench lvbench/metrics/compute_accuracy.py")
    assert.deepStrictEqual(score.counts, { unanswered: 1, unparsable: 0, forced: 0, error: 0 })
  })

  it("LongVideoBench: a letter parse_multi_choice_response cannot read is a random option, scored at its expected value", () => {
    // Exported: q1 "A"; q2 "F" (unanswered, five options: the letter past E); q3 "E" (error, four options);
    // q4 "C"; q5 "F" (unparsable, five options). The scorer's regex [ABCDE]: "F" matches nothing, so it draws
    // random.choice of the 5 options, right with probability 1/5; "E" on a four-option question is read as E,
    // which is no key → wrong. Strict: q1 → 1/5 = 20 %. Official expected: (1 + 1/5 + 0 + 0 + 1/5) / 5 = 28 %.
    const score = scoreOf("longvideobench", [
      { id: "q1", key: "A", said: "A", options: 5 },
      { id: "q2", key: "B", said: null, options: 5 },
      { id: "q3", key: "C", said: null, stop: "error", options: 4 },
      { id: "q4", key: "D", said: "C", options: 5 },
      { id: "q5", key: "E", said: null, stop: "finished", options: 5 }
    ])
    close(score.value, 1.4 / 5)
    assert.strictEqual(score.denominator, 5)
    assert.strictEqual(score.scorer, "EvolvingLMMs-Lab/lmms-eval lmms_eval/tasks/longvideobench/utils.py")
    assert.match(score.rule, /expected value/)
    assert.deepStrictEqual(score.counts, { unanswered: 1, unparsable: 1, forced: 0, error: 1 })
  })

  it("MLVU: M-Avg is the mean of the per-task accuracies, not the share of all questions", () => {
    // plotQA 2/3, needle 1/1, count 0/2 (one wrong, one unanswered as "E"). Strict: 3/6 = 50 %.
    // M-Avg = (2/3 + 1 + 0) / 3 = 5/9 ≈ 55.6 %.
    const task = (name: string) => ({ taskType: name, categories: [{ axis: "task", labels: [name] }] })
    const score = scoreOf("mlvu", [
      { id: "p1", key: "A", said: "A", ...task("plotQA") },
      { id: "p2", key: "B", said: "B", ...task("plotQA") },
      { id: "p3", key: "C", said: "D", ...task("plotQA") },
      { id: "n1", key: "D", said: "D", ...task("needle") },
      { id: "c1", key: "A", said: "B", ...task("count") },
      { id: "c2", key: "A", said: null, ...task("count") }
    ])
    close(score.value, 5 / 9)
    assert.strictEqual(score.denominator, 6)
    assert.deepStrictEqual(score.parts.map((p) => [p.key, p.denominator]), [["plotQA", 3], ["needle", 1], [
      "count",
      2
    ]])
    close(score.parts[0]!.value, 2 / 3)
    assert.match(score.name, /M-Avg/)
  })

  it("EgoSchema: the subset rule scores the keyed questions, an unanswered -1 as wrong: the strict share", () => {
    // Keyed (in subset_answers.json): e1 right, e2 wrong, e3 unanswered (-1) → 1/3; e4 is outside the subset.
    const score = scoreOf("egoschema", [
      { id: "e1", key: "A", said: "A", options: 5 },
      { id: "e2", key: "B", said: "C", options: 5 },
      { id: "e3", key: "C", said: null, options: 5 },
      { id: "e4", key: null, said: "D", options: 5 }
    ])
    close(score.value, 1 / 3)
    assert.strictEqual(score.denominator, 3)
    assert.match(score.rule, /Kaggle/)
  })

  it("NExT-QA: eval_mc.py merges TP into TN, reports its groups, and counts only rows of its seven groups", () => {
    // Rows: CW right, TP right (counted as TN), TN wrong, DC unanswered (-1), and a row of type "XX" right.
    // Strict: 3/5. The script's groups hold CW CH TN TC DC DL DO (TP → TN); a row of another type is no group's
    // (the script would stop on it), so official = 2/4 = 50 %. Parts: Why 1/1, Bef&Aft 1/2, Cnt 0/1; families
    // Acc_C 1/1, Acc_T 1/2, Acc_D 0/1.
    const type = (t: string) => ({ taskType: t, categories: [{ axis: "type", labels: [t] }] })
    const score = scoreOf("nextqa", [
      { id: "v1_0", key: "A", said: "A", options: 5, ...type("CW") },
      { id: "v1_1", key: "B", said: "B", options: 5, ...type("TP") },
      { id: "v1_2", key: "C", said: "D", options: 5, ...type("TN") },
      { id: "v1_3", key: "D", said: null, options: 5, ...type("DC") },
      { id: "v1_4", key: "E", said: "E", options: 5, ...type("XX") }
    ])
    close(score.value, 2 / 4)
    assert.strictEqual(score.denominator, 4)
    assert.deepStrictEqual(score.parts.map((p) => [p.key, p.value, p.denominator]), [
      ["Why", 1, 1],
      ["Bef&Aft", 0.5, 2],
      ["Cnt", 0, 1],
      ["Acc_C", 1, 1],
      ["Acc_T", 0.5, 2],
      ["Acc_D", 0, 1]
    ])
    assert.strictEqual(score.scorer, "doc-doc/NExT-QA eval_mc.py")
  })

  it("custom: with no released scorer, the official figure is the strict one, said so", () => {
    const score = scoreOf("custom", [
      { id: "k1", key: "A", said: "A" },
      { id: "k2", key: "B", said: null, stop: "error" }
    ])
    close(score.value, 1 / 2)
    assert.strictEqual(score.denominator, 2)
    assert.match(score.name, /strict/)
    assert.deepStrictEqual(score.counts, { unanswered: 0, unparsable: 0, forced: 0, error: 1 })
  })

  it("no keyed question: no value, nothing to divide", () => {
    const score = scoreOf("videomme", [{ id: "u1", key: null, said: "A" }])
    assert.isNull(score.value)
    assert.strictEqual(score.denominator, 0)
  })

  it("the transcribed extractions keep their scripts' quirks: any capital A–D wins, ten words without one read as none", () => {
    // extract_characters_regex: prefixes cut, then the first A–D anywhere ("Dogs" gives D); more than ten words
    // with no A–D give "". "The best option is" is not cut (a missing comma joined it to the next prefix).
    assert.deepStrictEqual(
      [
        "B",
        "The answer is C.",
        "Dogs chase B",
        "The best option is A",
        "",
        "it is the one with the red hat on the left"
      ]
        .map(videoMmeExtract),
      ["B", "C", "D", "A", "", ""]
    )
    // parse_multi_choice_response reads A–E the same way and draws at random (null here) when none is found.
    assert.deepStrictEqual(["E", "F", "Best option: (C)", "none"].map(longVideoBenchParse), ["E", null, "C", null])
  })
})
