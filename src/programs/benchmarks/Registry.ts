// The benchmarks vtree reads, and the choice among them: by content, a file name breaking a tie, or forced.
import { Either } from "effect"
import * as NodePath from "node:path"
import type { QuestionLoadError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput } from "./Benchmark.js"
import { egoSchema } from "./EgoSchema.js"
import { longVideoBench } from "./LongVideoBench.js"
import { lvBench } from "./LvBench.js"
import { mlvu } from "./Mlvu.js"
import { nextQa } from "./NextQa.js"
import { rowError } from "./Rows.js"
import { videoMme } from "./VideoMme.js"

export const benchmarks: ReadonlyArray<Benchmark> = [videoMme, lvBench, longVideoBench, mlvu, egoSchema, nextQa]

export const benchmarkNames: ReadonlyArray<string> = benchmarks.map((b) => b.name)

const pathOf = (input: BenchmarkInput): string => (input._tag === "File" ? input.file.file : input.dir)

/** The names a hint is matched against: the file's, or the folder's and its files'. */
const namesOf = (input: BenchmarkInput): ReadonlyArray<string> =>
  input._tag === "File"
    ? [NodePath.basename(input.file.file)]
    : [NodePath.basename(input.dir), ...input.files.map((f) => NodePath.basename(f.file))]

const hinted = (b: Benchmark, names: ReadonlyArray<string>): boolean =>
  names.some((n) => b.fileHints.some((h) => h.test(n)))

/**
 * The one benchmark whose layout the content has. When several fit, the one the file name hints at wins;
 * with no such single one, and with none fitting, the input is refused naming what to do.
 */
export const detectBenchmark = (input: BenchmarkInput): Either.Either<Benchmark, QuestionLoadError> => {
  const fits = benchmarks.filter((b) => b.detect(input))
  if (fits.length === 1) return Either.right(fits[0]!)
  const path = pathOf(input)
  if (fits.length === 0) {
    return Either.left(rowError(
      path,
      null,
      null,
      "has no question layout vtree reads",
      `vtree reads ${benchmarks.map((b) => b.title).join("; ")}`,
      "UnknownLayout"
    ))
  }
  const names = namesOf(input)
  const byHint = fits.filter((b) => hinted(b, names))
  if (byHint.length === 1) return Either.right(byHint[0]!)
  return Either.left(rowError(
    path,
    null,
    null,
    `fits several layouts (${fits.map((b) => b.name).join(", ")})`,
    `pass --benchmark ${fits.map((b) => b.name).join(" or --benchmark ")}`,
    "Ambiguous"
  ))
}

/** The benchmark `--benchmark NAME` names (case and `-` ignored: `Video-MME` is `videomme`). */
export const benchmarkNamed = (name: string): Either.Either<Benchmark, QuestionLoadError> => {
  const wanted = name.trim().toLowerCase().replace(/[-_\s]/g, "")
  const found = benchmarks.find((b) => b.name === wanted)
  return found === undefined
    ? Either.left(rowError(
      "--benchmark",
      null,
      null,
      `${JSON.stringify(name)} is no benchmark vtree reads`,
      `use one of ${benchmarkNames.join(", ")}`,
      "UnknownBenchmark"
    ))
    : Either.right(found)
}
