// The benchmarks vtree reads, and the choice among them: by content, a file name breaking a tie, or forced.
import { Either } from "effect"
import * as NodePath from "node:path"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type { Benchmark, BenchmarkInput } from "./Benchmark.js"
import { parseCsv } from "./Csv.js"
import { custom } from "./Custom.js"
import { egoSchema } from "./EgoSchema.js"
import { longVideoBench } from "./LongVideoBench.js"
import { longVidSearch } from "./LongVidSearch.js"
import { lvBench } from "./LvBench.js"
import { mlvu } from "./Mlvu.js"
import { nextQa } from "./NextQa.js"
import { isRecord, sampleRows, tableRow } from "./Rows.js"
import { videoMme } from "./VideoMme.js"
import { videoMmeV2 } from "./VideoMmeV2.js"

export const benchmarks: ReadonlyArray<Benchmark> = [
  videoMme,
  lvBench,
  longVideoBench,
  mlvu,
  egoSchema,
  nextQa,
  custom,
  videoMmeV2,
  longVidSearch
]

export const benchmarkNames: ReadonlyArray<string> = benchmarks.map((b) => b.name)

const pathOf = (input: BenchmarkInput): string => (input._tag === "File" ? input.file.file : input.dir)

/** The names a hint is matched against: the file's, or the folder's and its files'. */
const namesOf = (input: BenchmarkInput): ReadonlyArray<string> =>
  input._tag === "File"
    ? [NodePath.basename(input.file.file)]
    : [NodePath.basename(input.dir), ...input.files.map((f) => NodePath.basename(f.file))]

const hinted = (b: Benchmark, names: ReadonlyArray<string>): boolean =>
  names.some((n) => b.fileHints.some((h) => h.test(n)))

/** The first rows of a file as `{location, fields}`: JSON rows' keys, or a csv header's columns. */
const sampledFields = (
  input: BenchmarkInput
): ReadonlyArray<{ readonly location: string; readonly fields: ReadonlySet<string> }> => {
  if (input._tag !== "File") return []
  const content = input.file.content
  if (content._tag === "Text") {
    const header = parseCsv(content.text.split(/\r?\n/, 1)[0] ?? "")
    if (Either.isLeft(header) || header.right.length !== 1 || header.right[0]!.fields.length < 2) return []
    return [{ location: "line 1", fields: new Set(header.right[0]!.fields.map((f) => f.trim())) }]
  }
  const rows = sampleRows(input)
  const location = (i: number) =>
    content._tag === "JsonLines"
      ? `line ${content.rows[i]!.line}`
      : content._tag === "Table"
      ? tableRow(i)
      : Array.isArray(content.value)
      ? `index ${i}`
      : "line 1"
  return rows.map((row, i) => ({ location: location(i), fields: new Set(isRecord(row) ? Object.keys(row) : []) }))
}

/**
 * For a file that fits no layout: the layout it is nearest to (the most of its fields present on every
 * sampled row, then the fewest missing, then the registry's order) and the first row and field it lacks.
 * Undefined when no layout's field is present at all: then nothing is close, and naming one would mislead.
 */
export const closestLayout = (
  input: BenchmarkInput
): { readonly benchmark: Benchmark; readonly location: string; readonly field: string } | undefined => {
  const rows = sampledFields(input)
  if (rows.length === 0) return undefined
  let best: { benchmark: Benchmark; present: number; missing: number; location: string; field: string } | undefined
  for (const benchmark of benchmarks) {
    const present = benchmark.fields.filter((f) => rows.every((r) => r.fields.has(f))).length
    const gap = rows.map((r) => ({ location: r.location, field: benchmark.fields.find((f) => !r.fields.has(f)) }))
      .find((g) => g.field !== undefined)
    if (present === 0 || gap === undefined) continue
    const missing = benchmark.fields.length - present
    if (best === undefined || present > best.present || (present === best.present && missing < best.missing)) {
      best = { benchmark, present, missing, location: gap.location, field: gap.field! }
    }
  }
  return best
}

/**
 * The one benchmark whose layout the content has. When several fit, the one the file name hints at wins;
 * with no such single one, and with none fitting, the input is refused naming what to do.
 */
export const detectBenchmark = (input: BenchmarkInput): Either.Either<Benchmark, QuestionLoadError> => {
  const fits = benchmarks.filter((b) => b.detect(input))
  if (fits.length === 1) return Either.right(fits[0]!)
  const path = pathOf(input)
  if (fits.length === 0) {
    const near = closestLayout(input)
    return Either.left(
      near === undefined
        ? rowError(
          path,
          null,
          null,
          "has no question layout vtree reads",
          `vtree reads ${benchmarks.map((b) => b.title).join("; ")}`,
          "UnknownLayout"
        )
        : rowError(
          path,
          near.location,
          near.field,
          `is missing, so the file fits no layout vtree reads (closest layout: ${near.benchmark.name}, ${near.benchmark.title})`,
          `add "${near.field}", or pass --benchmark with the layout the file has (docs/benchmarks.md)`,
          "UnknownLayout"
        )
    )
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
