// A run's saved predictions as the benchmark seam's results, so a stored run is scored and exported by
// its own benchmark's rule. A prediction saved before vtree kept benchmark facts reads as Video-MME.
import type { BenchmarkFacts, BenchmarkName } from "../../domain/Question.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import type { Benchmark, BenchmarkQuestion, QuestionResult } from "./Benchmark.js"
import { benchmarks } from "./Registry.js"

/** The fields of a stored prediction a result needs. */
export type StoredPrediction =
  & Pick<
    PredictionRow,
    "questionId" | "videoId" | "taskType" | "duration" | "question" | "options" | "answer" | "prediction"
  >
  & { readonly domain?: string | null | undefined; readonly benchmark?: BenchmarkFacts | null | undefined }

export const benchmarkByName = (name: BenchmarkName): Benchmark => benchmarks.find((b) => b.name === name)!

export const questionOfPrediction = (p: StoredPrediction, fallback: BenchmarkName = "videomme"): BenchmarkQuestion => {
  const facts = p.benchmark ?? null
  const question: BenchmarkQuestion = {
    benchmark: facts?.name ?? fallback,
    id: p.questionId,
    videoId: p.videoId,
    question: p.question,
    options: p.options,
    key: p.answer,
    originalKey: facts?.originalKey ?? p.answer,
    taskType: p.taskType ?? "",
    categories: facts?.categories ?? [],
    durationSeconds: facts?.durationSeconds ?? null,
    // A folder-form Video-MME question has no duration of its own; its prediction took the tree's.
    durationGroup: facts?.durationGroup ?? p.duration,
    domain: p.domain ?? null,
    source: facts?.source ?? { file: "", location: "" },
    row: facts?.row ?? null
  }
  // Video-MME's categories are its row's task type, duration and domain: rebuilt from the stored columns.
  return question.benchmark === "videomme"
    ? { ...question, categories: benchmarkByName("videomme").categories(question) }
    : question
}

export const resultsOfPredictions = (
  predictions: ReadonlyArray<StoredPrediction>,
  benchmark: BenchmarkName = "videomme"
): ReadonlyArray<QuestionResult> =>
  predictions.map((p) => ({ question: questionOfPrediction(p, benchmark), prediction: p.prediction }))

/** How reports name a benchmark. */
export const benchmarkLabels: Readonly<Record<BenchmarkName, string>> = {
  videomme: "Video-MME",
  lvbench: "LVBench",
  longvideobench: "LongVideoBench",
  mlvu: "MLVU",
  egoschema: "EgoSchema",
  nextqa: "NExT-QA",
  custom: "custom",
  videommev2: "Video-MME-v2",
  longvidsearch: "LongVidSearch"
}
