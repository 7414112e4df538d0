/**
 * A benchmark question as every program sees it, whichever benchmark it came from, and the error
 * loading questions ends in.
 * The two input forms are read by programs/questions/QuestionDecoder.ts and QuestionLoader.ts.
 */
import { Schema } from "effect"

/** The 12 Video-MME task types, in the benchmark's order. Other labels are accepted too. */
export const VideoMmeTaskTypes = [
  "Temporal Perception",
  "Spatial Perception",
  "Attribute Perception",
  "Action Recognition",
  "Object Recognition",
  "OCR Problems",
  "Counting Problem",
  "Temporal Reasoning",
  "Spatial Reasoning",
  "Action Reasoning",
  "Object Reasoning",
  "Information Synopsis"
] as const

export const QuestionDuration = Schema.Literal("short", "medium", "long")
export type QuestionDuration = typeof QuestionDuration.Type

export const Question = Schema.Struct({
  questionId: Schema.String,
  /** The tree directory name under `--trees`. */
  videoId: Schema.String,
  taskType: Schema.String,
  duration: Schema.NullOr(QuestionDuration),
  domain: Schema.NullOr(Schema.String),
  question: Schema.String,
  /** Labelled `"A. …"`, `"B. …"`, in order. */
  options: Schema.Array(Schema.String),
  /** The correct option letter; null for unlabelled question sets. */
  answer: Schema.NullOr(Schema.String)
})
export type Question = typeof Question.Type

export const QuestionLoadErrorReason = Schema.Literal(
  "NotFound",
  "ReadFailed",
  "InvalidJson",
  "InvalidRow",
  "DuplicateId",
  "Empty",
  /** The input fits none of the benchmark layouts vtree reads (programs/benchmarks). */
  "UnknownLayout",
  /** The input fits several layouts and its name does not settle which: `--benchmark` must. */
  "Ambiguous",
  /** `--benchmark NAME` names no benchmark vtree reads. */
  "UnknownBenchmark",
  /** The `--answers` file is not a `{question id: letter or index}` object for these questions. */
  "InvalidAnswers",
  /** A file that opens as Parquet (PAR1) but cannot be read as one. */
  "InvalidParquet"
)
export type QuestionLoadErrorReason = typeof QuestionLoadErrorReason.Type

/** The message reads `<file>: <location>: <field>: <problem> — <fix>`; the parts are kept for callers. */
export class QuestionLoadError extends Schema.TaggedError<QuestionLoadError>()("QuestionLoadError", {
  reason: QuestionLoadErrorReason,
  file: Schema.String,
  /** `line 4` (JSONL) or `index 2` (JSON array), when the problem is in one row. */
  location: Schema.NullOr(Schema.String),
  /** The field as spelled in the file, e.g. `options[1]`. */
  field: Schema.NullOr(Schema.String),
  message: Schema.String
}) {}

/** A QuestionLoadError whose message reads `<file>: <location>: <field>: <problem> — <fix>`. */
export const rowError = (
  file: string,
  location: string | null,
  field: string | null,
  problem: string,
  fix: string,
  reason: QuestionLoadErrorReason = "InvalidRow"
): QuestionLoadError =>
  new QuestionLoadError({
    reason,
    file,
    location,
    field,
    message: [file, location, field].filter((p): p is string => p !== null).join(": ") + `: ${problem} — ${fix}`
  })

/** The benchmarks vtree reads (programs/benchmarks has one module each); `custom` is a hand-written file. */
export const BenchmarkName = Schema.Literal(
  "videomme",
  "lvbench",
  "longvideobench",
  "mlvu",
  "egoschema",
  "nextqa",
  "custom",
  "videommev2",
  "longvidsearch"
)
export type BenchmarkName = typeof BenchmarkName.Type

/**
 * What a question of a benchmark carries beyond `Question`, kept beside it through the run and saved with
 * its prediction (predictions.benchmark_json): enough to score it by the benchmark's rule and to write the
 * benchmark's own export.
 */
export const BenchmarkFacts = Schema.Struct({
  name: BenchmarkName,
  /** Per axis (`question type`, `task`, …), the labels the question counts under. */
  categories: Schema.Array(Schema.Struct({ axis: Schema.String, labels: Schema.Array(Schema.String) })),
  /** The key as the benchmark spells it (`"B"`, `2`, an option's text); null without a key. */
  originalKey: Schema.NullOr(Schema.Union(Schema.String, Schema.Number)),
  durationSeconds: Schema.NullOr(Schema.Number),
  /** The benchmark's own duration bucket (Video-MME short/medium/long, LongVideoBench's duration_group). */
  durationGroup: Schema.NullOr(Schema.String),
  /** Where the row sat: `<file>`, `line 4` / `index 2`. */
  source: Schema.Struct({ file: Schema.String, location: Schema.String }),
  /** The row as released. */
  row: Schema.Unknown,
  /**
   * How the agent was told the question's kind: the task type line as shown (`causal "why" (CW)`) and the
   * skill auto mode gave it (null in manual and none mode). Absent for questions saved before vtree kept it.
   */
  hint: Schema.optionalWith(
    Schema.Struct({ taskType: Schema.String, skill: Schema.NullOr(Schema.String) }),
    { exact: true }
  )
})
export type BenchmarkFacts = typeof BenchmarkFacts.Type
