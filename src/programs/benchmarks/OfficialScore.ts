/**
 * Each benchmark's official score: what its own released scorer makes of vtree's export (its denominator, its
 * answer extraction, its averaging), transcribed rule for rule, beside which reports put the strict accuracy
 * (every keyed question counted, anything but the right letter wrong). Pure. Only keyed multiple-choice
 * questions are scored: a scorer without a key has nothing to compare, and open-ended questions are judged.
 */
import { Schema } from "effect"
import type { BenchmarkName } from "../../domain/Question.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import type { QuestionResult } from "./Benchmark.js"
import { indexOfLetter } from "./Options.js"
import { isRecord } from "./Rows.js"
import { benchmarkByName, benchmarkLabels, questionOfPrediction, type StoredPrediction } from "./StoredResults.js"
import { videoMmeV2Official } from "./VideoMmeV2.js"

/** What a stored prediction gives the official score: the question, the letter read, and how it ended. */
export type OfficialRow = StoredPrediction & Pick<PredictionRow, "stopReason" | "forced">

/**
 * Why the official and the strict figures can differ, over the keyed questions: `unanswered` never submitted,
 * `unparsable` submitted text without a letter read from it, `error` ended by an error; `forced` answers came
 * from the final-answer call (letter read or not).
 */
export interface OfficialCounts {
  readonly unanswered: number
  readonly unparsable: number
  readonly forced: number
  readonly error: number
}

/** One group of the scorer's own breakdown (MLVU's tasks, NExT-QA's types and families). */
export interface OfficialPart {
  readonly key: string
  readonly value: number | null
  readonly denominator: number
}

export interface OfficialScore {
  readonly benchmark: BenchmarkName
  /** How reports label it: `Video-MME official (answered only)`. */
  readonly name: string
  /** Null when there is nothing to divide. */
  readonly value: number | null
  /** The questions the scorer divides by (for a mean of groups, the questions in them). */
  readonly denominator: number
  /** The scorer's rule in words, as vtree transcribes it. */
  readonly rule: string
  /** The released scorer followed: `owner/repo path`. */
  readonly scorer: string
  readonly counts: OfficialCounts
  /** The scorer's own groups when its figure is built from them; else empty. */
  readonly parts: ReadonlyArray<OfficialPart>
}

interface Scored {
  readonly value: number | null
  readonly denominator: number
  readonly parts?: ReadonlyArray<OfficialPart>
}

interface Scorer {
  readonly name: string
  readonly rule: string
  readonly scorer: string
  readonly score: (results: ReadonlyArray<QuestionResult>) => Scored
}

const ratio = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : numerator / denominator

const exportOf = (benchmark: BenchmarkName, results: ReadonlyArray<QuestionResult>): unknown =>
  benchmarkByName(benchmark).export(results)

// ---- Video-MME: BradyFU/Video-MME evaluation/eval_your_results.py

/** As the script writes them: two commas are missing, so two pairs are joined into one string each. */
const videoMmePrefixes = [
  "The best answer is",
  "The correct answer is",
  "The answer is",
  "The answer",
  "The best option isThe correct option is",
  "Best answer:Best option:"
]

/** The script's extract_characters_regex: the first of A–D after the prefixes are cut, or "". */
export const videoMmeExtract = (response: string): string => {
  let s = response.trim()
  for (const prefix of videoMmePrefixes) s = s.replaceAll(prefix, "")
  const words = s.split(/\s+/).filter((w) => w !== "").length
  const match = /[ABCD]/.exec(s)
  return words > 10 && match === null ? "" : match?.[0] ?? ""
}

const VideoMmeExport = Schema.Array(Schema.Struct({
  questions: Schema.Array(Schema.Struct({ answer: Schema.NullOr(Schema.String), response: Schema.String }))
}))

const videoMme: Scorer = {
  name: "Video-MME official (answered only)",
  rule: "correct / answered: a response counts only when its extract_characters_regex finds a letter A–D; " +
    "an unanswered, unparsable or errored question (exported as \"\") leaves the denominator",
  scorer: "BradyFU/Video-MME evaluation/eval_your_results.py",
  score: (results) => {
    const exported = exportOf("videomme", results)
    if (!Schema.is(VideoMmeExport)(exported)) return { value: null, denominator: 0 }
    let answered = 0
    let correct = 0
    for (const question of exported.flatMap((video) => video.questions)) {
      const letter = videoMmeExtract(question.response)
      if (letter === "") continue
      answered += 1
      if (letter === question.answer) correct += 1
    }
    return { value: ratio(correct, answered), denominator: answered }
  }
}

// ---- LVBench: THUDM/LVBench lvbench/metrics/compute_accuracy.py

const LetterExport = Schema.Record({ key: Schema.String, value: Schema.String })

/** The key as the released row writes it: compute_accuracy.py compares strings as they stand. */
const writtenKey = (result: QuestionResult): unknown => {
  const row = result.question.row
  return isRecord(row) && "answer" in row ? row.answer : result.question.originalKey
}

const lvBench: Scorer = {
  name: "LVBench official (every exported uid)",
  rule: "right / every uid in the export: the exported letter must equal the row's answer as written; an " +
    "unanswered question is exported as the letter past its options and so is wrong",
  scorer: "THUDM/LVBench lvbench/metrics/compute_accuracy.py",
  score: (results) => {
    const exported = exportOf("lvbench", results)
    if (!Schema.is(LetterExport)(exported)) return { value: null, denominator: 0 }
    const counted = results.filter((r) => r.question.id in exported)
    const right = counted.filter((r) => exported[r.question.id] === writtenKey(r)).length
    return { value: ratio(right, counted.length), denominator: counted.length }
  }
}

// ---- LongVideoBench: EvolvingLMMs-Lab/lmms-eval lmms_eval/tasks/longvideobench/utils.py

const longVideoBenchPrefixes = [
  "The best answer is",
  "The correct answer is",
  "The answer is",
  "The answer",
  "The best option is",
  "The correct option is",
  "Best answer:",
  "Best option:"
]

/** parse_multi_choice_response: the first of A–E after the prefixes are cut; null where it draws at random. */
export const longVideoBenchParse = (response: string): string | null => {
  let s = response.trim()
  for (const prefix of longVideoBenchPrefixes) s = s.replaceAll(prefix, "")
  const words = s.split(/\s+/).filter((w) => w !== "").length
  const match = /[ABCDE]/.exec(s)
  return words > 10 && match === null ? null : match?.[0] ?? null
}

/** The scorer reads options option0…option4 up to the first "N/A": at most five to draw from. */
const longVideoBenchChoices = (optionCount: number): number => Math.min(optionCount, 5)

const longVideoBench: Scorer = {
  name: "LongVideoBench official (unread letter = random option, expected value)",
  rule: "right / every question, where a reply parse_multi_choice_response reads no A–E from gets " +
    "random.choice of the options; vtree counts that draw at its expected value, 1 / options (no seed: the " +
    "figure is the mean over draws); the letter past four options (E) is read as E and is wrong",
  scorer: "EvolvingLMMs-Lab/lmms-eval lmms_eval/tasks/longvideobench/utils.py",
  score: (results) => {
    const exported = exportOf("longvideobench", results)
    if (!Schema.is(LetterExport)(exported)) return { value: null, denominator: 0 }
    let right = 0
    for (const { question } of results) {
      const parsed = longVideoBenchParse(exported[question.id] ?? "")
      right += parsed === null ? 1 / longVideoBenchChoices(question.options.length) : parsed === question.key ? 1 : 0
    }
    return { value: ratio(right, results.length), denominator: results.length }
  }
}

// ---- MLVU: JUNJIE99/MLVU videochat2/choice_bench.py (check_ans), M-Avg as MLVU's leaderboard reports it

const MlvuExport = Schema.Array(Schema.Struct({
  question_id: Schema.String,
  question_type: Schema.String,
  option: Schema.String
}))

/** check_ans: the prediction up to its first ")" must equal the key's letter. */
const mlvuCheck = (option: string, key: string): boolean => {
  const cut = option.indexOf(")")
  return (cut >= 0 ? option.slice(0, cut) : option) === key
}

const mlvu: Scorer = {
  name: "MLVU official M-Avg (mean of per-task accuracies)",
  rule: "the mean over the multiple-choice tasks of each task's right / questions (check_ans: the exported " +
    "option up to its first \")\" equals the key's letter); every task weighs the same, whatever its size",
  scorer: "JUNJIE99/MLVU videochat2/choice_bench.py (check_ans; M-Avg as in the README's leaderboard)",
  score: (results) => {
    const exported = exportOf("mlvu", results)
    if (!Schema.is(MlvuExport)(exported)) return { value: null, denominator: 0 }
    const keys = new Map(results.map((r) => [r.question.id, r.question.key]))
    const tasks = new Map<string, { right: number; total: number }>()
    for (const row of exported) {
      const task = tasks.get(row.question_type) ?? { right: 0, total: 0 }
      task.total += 1
      if (mlvuCheck(row.option, keys.get(row.question_id) ?? "")) task.right += 1
      tasks.set(row.question_type, task)
    }
    const parts = [...tasks].map(([key, t]) => ({ key, value: ratio(t.right, t.total), denominator: t.total }))
    const values = parts.flatMap((p) => (p.value === null ? [] : [p.value]))
    return {
      value: values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length,
      denominator: exported.length,
      parts
    }
  }
}

// ---- EgoSchema: egoschema/EgoSchema README.md and validate.py (its server's code is not released)

const IndexExport = Schema.Record({ key: Schema.String, value: Schema.Number })

const egoSchema: Scorer = {
  name: "EgoSchema official (public subset)",
  rule: "right / the questions with a key in subset_answers.json (the 500 public answers), an unanswered " +
    "question's -1 wrong; the full-set figure is Kaggle's (egoschema-public), whose keys are hidden: submit " +
    "`vtree export`",
  scorer: "egoschema/EgoSchema README.md, validate.py (subset_answers.json)",
  score: (results) => {
    const exported = exportOf("egoschema", results)
    if (!Schema.is(IndexExport)(exported)) return { value: null, denominator: 0 }
    const right = results.filter((r) => exported[r.question.id] === indexOfLetter(r.question.key ?? "")).length
    return { value: ratio(right, results.length), denominator: results.length }
  }
}

// ---- NExT-QA: doc-doc/NExT-QA eval_mc.py

const NextQaExport = Schema.Record({
  key: Schema.String,
  value: Schema.Struct({ prediction: Schema.Number, answer: Schema.NullOr(Schema.Number) })
})

/** The script's groups and the names it prints them by; TP is merged into TN. */
const nextQaGroups: ReadonlyArray<readonly [string, string]> = [
  ["CW", "Why"],
  ["CH", "How"],
  ["TN", "Bef&Aft"],
  ["TC", "When"],
  ["DC", "Cnt"],
  ["DL", "Loc"],
  ["DO", "Other"]
]
const nextQaFamilies: ReadonlyArray<readonly [string, string]> = [["C", "Acc_C"], ["T", "Acc_T"], ["D", "Acc_D"]]

const nextQa: Scorer = {
  name: "NExT-QA official (eval_mc.py Acc)",
  rule: "right / the questions of its groups CW CH TN TC DC DL DO (TP counted as TN), prediction == answer by " +
    "index, an unanswered -1 wrong; a row of any other type is left out (the script stops on it)",
  scorer: "doc-doc/NExT-QA eval_mc.py",
  score: (results) => {
    const exported = exportOf("nextqa", results)
    if (!Schema.is(NextQaExport)(exported)) return { value: null, denominator: 0 }
    const tally = new Map<string, { right: number; total: number }>()
    const add = (key: string, right: boolean) => {
      const t = tally.get(key) ?? { right: 0, total: 0 }
      t.total += 1
      if (right) t.right += 1
      tally.set(key, t)
    }
    for (const { question } of results) {
      const group = question.taskType === "TP" ? "TN" : question.taskType
      const entry = exported[question.id]
      if (!nextQaGroups.some(([code]) => code === group) || entry === undefined) continue
      const right = entry.answer === entry.prediction
      add(group, right)
      add(group.charAt(0), right)
      add("all", right)
    }
    const part = ([code, key]: readonly [string, string]): ReadonlyArray<OfficialPart> => {
      const t = tally.get(code)
      return t === undefined ? [] : [{ key, value: ratio(t.right, t.total), denominator: t.total }]
    }
    const all = tally.get("all") ?? { right: 0, total: 0 }
    return {
      value: ratio(all.right, all.total),
      denominator: all.total,
      parts: [...nextQaGroups.flatMap(part), ...nextQaFamilies.flatMap(part)]
    }
  }
}

// ---- Video-MME-v2: MME-Benchmarks/Video-MME-v2 evaluation/test_video_mme_v2.py (VideoMmeV2.ts transcribes it)

const videoMmeV2Scorer: Scorer = {
  name: "Video-MME-v2 official (group score, unread answers −1)",
  rule: "the mean over complete groups of four of each group's non-linear score (relevance: by the number right; " +
    "logic: by the chain of leading right answers under its structure); an answer with no letter read scores −1, " +
    "which takes a right answer away in a relevance group and counts as right in a logic group (Python's `if -1:`)",
  scorer: "MME-Benchmarks/Video-MME-v2 evaluation/test_video_mme_v2.py",
  score: (results) => {
    const official = videoMmeV2Official(results)
    // The questions of each group type (a group's type is its questions' type in the release).
    const questionsOf = (type: "relevance" | "logic") =>
      results.filter((r) => isRecord(r.question.row) && r.question.row["group_type"] === type).length
    return {
      value: official.groups === 0 ? null : official.total,
      denominator: official.groups * 4,
      parts: [
        { key: "relevance", value: official.relevance, denominator: questionsOf("relevance") },
        { key: "logic", value: official.logic, denominator: questionsOf("logic") }
      ]
    }
  }
}

// ---- Benchmarks without a released scorer: the strict rule, named as such.

const strictScorer = (benchmark: BenchmarkName): Scorer => ({
  name: `${benchmarkLabels[benchmark]} (no official scorer: strict)`,
  rule: "right / every keyed question; unanswered, unparsable and errored questions count wrong",
  scorer: "none (vtree's strict rule)",
  score: (results) => ({
    value: ratio(results.filter((r) => r.prediction === r.question.key).length, results.length),
    denominator: results.length
  })
})

const scorers: { readonly [K in BenchmarkName]?: Scorer } = {
  videomme: videoMme,
  lvbench: lvBench,
  longvideobench: longVideoBench,
  mlvu,
  egoschema: egoSchema,
  nextqa: nextQa,
  videommev2: videoMmeV2Scorer
}

// A stored row never says whether text was submitted; the loop's ending does: only a submission ends a
// question `finished`, and a forced answer is one too.
const countsOf = (rows: ReadonlyArray<OfficialRow>): OfficialCounts => {
  const counts = { unanswered: 0, unparsable: 0, forced: 0, error: 0 }
  for (const row of rows) {
    if (row.forced === true) counts.forced += 1
    if (row.stopReason === "error") counts.error += 1
    else if (row.prediction !== null) continue
    else if (row.stopReason === "finished" || row.forced === true) counts.unparsable += 1
    else counts.unanswered += 1
  }
  return counts
}

/** The official score of a run's stored predictions, by the rule of `benchmark`'s released scorer. */
export const officialScoreOf = (benchmark: BenchmarkName, rows: ReadonlyArray<OfficialRow>): OfficialScore => {
  const keyed = rows.filter((row) => row.answer !== null && row.options.length > 0)
  const results = keyed.map((row) => ({ question: questionOfPrediction(row, benchmark), prediction: row.prediction }))
  const scorer = scorers[benchmark] ?? strictScorer(benchmark)
  const scored = scorer.score(results)
  return {
    benchmark,
    name: scorer.name,
    value: scored.value,
    denominator: scored.denominator,
    rule: scorer.rule,
    scorer: scorer.scorer,
    counts: countsOf(keyed),
    parts: scored.parts ?? []
  }
}
