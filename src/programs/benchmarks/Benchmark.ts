/**
 * The benchmark seam: what every benchmark module (VideoMme.ts, LvBench.ts, …) provides, and the
 * question, outcome and headline types they share. Pure: the modules see decoded values, never files;
 * a loader reads the files (and parses JSON with the depth-limited reader) and hands them over as a
 * `BenchmarkInput`.
 */
import type { Either } from "effect"
import type { Accuracy, GroupAccuracy, Outcome } from "../../domain/Outcome.js"
import type { QuestionLoadError } from "../../domain/Question.js"

/** The released benchmarks, and `custom`: a hand-written question file (see Custom.ts). */
export type BenchmarkName =
  | "videomme"
  | "lvbench"
  | "longvideobench"
  | "mlvu"
  | "egoschema"
  | "nextqa"
  | "custom"
  | "videommev2"
  | "longvidsearch"

/** One file's content, as the loader could read it. */
export type FileContent =
  /** The whole file is one JSON value. */
  | { readonly _tag: "Json"; readonly value: unknown }
  /** Every non-blank line is one JSON value (JSONL); `line` counts from 1. */
  | { readonly _tag: "JsonLines"; readonly rows: ReadonlyArray<{ readonly line: number; readonly value: unknown }> }
  /** Neither: CSV, or a file of no known layout. */
  | { readonly _tag: "Text"; readonly text: string }
  /** A table's rows, one record each, in file order (a Parquet file: see questions/ParquetRows.ts). */
  | { readonly _tag: "Table"; readonly rows: ReadonlyArray<Readonly<Record<string, unknown>>> }

export interface InputFile {
  /** The path to show in errors; its name is a hint for detection, never the rule. */
  readonly file: string
  readonly content: FileContent
}

export type BenchmarkInput =
  | { readonly _tag: "File"; readonly file: InputFile }
  /** A folder's files (the loader's choice of which; sorted), e.g. MLVU dev's per-task JSON files. */
  | { readonly _tag: "Folder"; readonly dir: string; readonly files: ReadonlyArray<InputFile> }

/** A category axis and the labels a question has on it (several on LVBench's question types). */
export type Categories = ReadonlyArray<{ readonly axis: string; readonly labels: ReadonlyArray<string> }>

export interface BenchmarkQuestion {
  readonly benchmark: BenchmarkName
  /** Unique across the input: the benchmark's own id, or one derived from it (NExT-QA `<video>_<qid>`). */
  readonly id: string
  /** The tree folder under `--trees`. */
  readonly videoId: string
  readonly question: string
  /** Lettered `"A. …"`, `"B. …"`, in the benchmark's order: what the agent is shown. */
  readonly options: ReadonlyArray<string>
  /** The right option's letter; null when the input ships no key (test splits, EgoSchema outside its subset). */
  readonly key: string | null
  /** The key as the benchmark spells it (`"B"`, `2`, an option's text); null with `key`. */
  readonly originalKey: string | number | null
  /** The label the agent's skills are chosen by (Video-MME's task type; elsewhere the first category). */
  readonly taskType: string
  readonly categories: Categories
  readonly durationSeconds: number | null
  /** A benchmark's own duration bucket: Video-MME short/medium/long, LongVideoBench's duration_group. */
  readonly durationGroup: string | null
  readonly domain: string | null
  /** Where the row sits, for messages: `<file>: line 4` or `<file>: index 2`. */
  readonly source: { readonly file: string; readonly location: string }
  /** The row as released: for LVBench the `qa` entry, for NExT-QA the csv record as `{column: text}`. */
  readonly row: unknown
}

export interface QuestionResult {
  readonly question: BenchmarkQuestion
  /** The predicted option letter; null when none could be read. */
  readonly prediction: string | null
  /** What the agent did for it, where the caller read it (LongVidSearch's export); absent elsewhere. */
  readonly trace?: AgentTrace
}

/** A question's answer as written, the clips (by index) the agent viewed and cited, and its tool calls. */
export interface AgentTrace {
  readonly answerText: string | null
  readonly viewedClips: ReadonlyArray<number>
  readonly citedClips: ReadonlyArray<number>
  /** Null when the steps were not read. */
  readonly toolCalls: number | null
}

// An open-ended question (no options) is scored by judges, never by letter: its key is a reference text.
export const outcomeOf = ({ prediction, question }: QuestionResult): Outcome =>
  question.key === null || question.options.length === 0
    ? "unscored"
    : prediction === null
    ? "unanswered"
    : prediction === question.key
    ? "correct"
    : "wrong"

export interface Headline {
  readonly benchmark: BenchmarkName
  readonly overall: Accuracy
  /**
   * The figure the benchmark's leaderboard ranks by when it is not the overall accuracy: MLVU's M-Avg, the
   * mean of the per-task accuracies (no interval: it is not one proportion). Null elsewhere.
   */
  readonly primary: { readonly name: string; readonly value: number | null } | null
  /** Per axis (`task type`, `duration`, …), groups in the benchmark's order, then by name. */
  readonly axes: ReadonlyArray<{ readonly axis: string; readonly groups: ReadonlyArray<GroupAccuracy> }>
  /** Scores over groups of questions, not proportions of questions (Video-MME-v2); absent elsewhere. */
  readonly groupScores?: GroupScores | undefined
}

/** A benchmark's group scores (0–1 each) and the count of groups behind each, per axis, with a note on the rule. */
export interface GroupScores {
  readonly note: string
  readonly axes: ReadonlyArray<{
    readonly axis: string
    readonly groups: ReadonlyArray<{ readonly key: string; readonly score: number | null; readonly groups: number }>
  }>
}

export interface Benchmark {
  readonly name: BenchmarkName
  /** How the refusal and `--help` name it: `LVBench (video_info.meta.jsonl)`. */
  readonly title: string
  /**
   * The labels its questions' `taskType` takes, in the benchmark's order (Video-MME's 12 task types, NExT-QA's
   * CW…DO, …): what `vtree prompt --task-type` accepts for it. Empty where there are none (EgoSchema) or any
   * label goes (custom).
   */
  readonly taskTypes: ReadonlyArray<string>
  /**
   * The fields (csv columns for NExT-QA) a row of this layout must hold, in the order a refusal names the
   * first one missing: only to name the closest layout of a file that fits none, never to detect.
   */
  readonly fields: ReadonlyArray<string>
  /** Released file names, used only to break a tie between layouts that both fit the content. */
  readonly fileHints: ReadonlyArray<RegExp>
  /** Whether the content has this benchmark's layout; looks at a few rows only. */
  readonly detect: (input: BenchmarkInput) => boolean
  /** Every question, in input order, each keeping its row; fails on the first bad row. */
  readonly decode: (input: BenchmarkInput) => Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError>
  readonly categories: (question: BenchmarkQuestion) => Categories
  readonly headline: (results: ReadonlyArray<QuestionResult>) => Headline
  /**
   * The JSON value the benchmark's own scorer (or leaderboard) reads; every question, answered or not. A
   * string is the file's text as is (Video-MME-v2's TSV).
   */
  readonly export: (results: ReadonlyArray<QuestionResult>) => unknown
}
