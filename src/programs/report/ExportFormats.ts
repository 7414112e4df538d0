// The formats `vtree export` writes, by name: what its --format option offers, kept apart from the
// writers (Export.ts) so that listing them loads none of the benchmarks' code.
import type { BenchmarkName } from "../../domain/Question.js"

export const benchmarkFormats = [
  "videomme",
  "lvbench",
  "longvideobench",
  "mlvu-test",
  "egoschema",
  "nextqa",
  "custom",
  "videommev2",
  "longvidsearch"
] as const
export type BenchmarkFormat = typeof benchmarkFormats[number]
export type ExportFormat = BenchmarkFormat | "jsonl" | "csv"
export const exportFormats: ReadonlyArray<ExportFormat> = [...benchmarkFormats, "jsonl", "csv"]

/** The benchmark whose scorer reads a format. */
export const benchmarkOfFormat = (format: BenchmarkFormat): BenchmarkName => (format === "mlvu-test" ? "mlvu" : format)

/** A run's own format: its benchmark's (MLVU's is the test split's, the one its leaderboard takes). */
export const formatOfBenchmark = (
  benchmark: BenchmarkName
): BenchmarkFormat => (benchmark === "mlvu" ? "mlvu-test" : benchmark)

export const isBenchmarkFormat = (format: ExportFormat): format is BenchmarkFormat =>
  (benchmarkFormats as ReadonlyArray<string>).includes(format)
