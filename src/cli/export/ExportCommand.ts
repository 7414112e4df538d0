import { Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { costOfCalls } from "../../domain/Cost.js"
import {
  benchmarkOfFormat,
  type ExportFormat,
  exportFormats,
  formatOfBenchmark,
  isBenchmarkFormat,
  renderExport
} from "../../programs/report/Export.js"
import { agentModelOf, storedPrices } from "../../programs/report/RunSettings.js"
import type { ReportCall } from "../../programs/report/Summary.js"
import { RunStore } from "../../services/RunStore.js"
import { dbOption, optionalText } from "../CliOptions.js"
import { databaseFiles, runInputs, writeResult } from "../shared/OutputFile.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"

/** Why `vtree export` wrote nothing: the database holds no run, the format is another benchmark's, or the file cannot be written. */
export const ExportErrorReason = Schema.Literal("NoRuns", "OtherBenchmark", "WriteFailed")
export type ExportErrorReason = typeof ExportErrorReason.Type

export class ExportError extends Schema.TaggedError<ExportError>()("ExportError", {
  reason: ExportErrorReason,
  message: Schema.String
}) {}

const db = dbOption("Run database written by `vtree infer`")
const runId = optionalText("run-id", "Run to export (default: the most recently started run)")
const format = Options.choice("format", exportFormats).pipe(
  Options.withDescription(
    "What a benchmark's scorer reads (videomme, lvbench, longvideobench, mlvu-test, egoschema, nextqa, custom, " +
      "videommev2, longvidsearch), or jsonl / csv: a row per prediction with usage, cost, stop reason"
  ),
  Options.withDescription("Default: the run's own benchmark (videomme for runs stored before vtree recorded it)."),
  Options.optional
)
// Text, not Options.file: OutputFile says why a path that is not a regular file is refused, in our words.
const out = Options.text("out").pipe(Options.withDescription("Write to this file instead of stdout"), Options.optional)
const prices = optionalText(
  "prices",
  "Prices file for the cost column of jsonl/csv, instead of the prices the run was started with (see `vtree report --help`)"
)

/** `vtree export`: a stored run as Video-MME results, JSONL or CSV. */
export const exportCommand = Command.make(
  "export",
  { db, runId, format, out, prices },
  (args) =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const chosen = Option.isSome(args.runId) ? args.runId.value : (yield* store.listRuns)[0]?.runId
      if (chosen === undefined) {
        return yield* new ExportError({
          reason: "NoRuns",
          message: `${args.db}: holds no runs yet — run \`vtree infer\` first`
        })
      }
      const loaded = yield* store.loadRun(chosen, { includeSteps: false })
      const benchmark = loaded.run.config.benchmark
      const chosenFormat: ExportFormat = Option.getOrElse(args.format, () => formatOfBenchmark(benchmark))
      if (isBenchmarkFormat(chosenFormat) && benchmarkOfFormat(chosenFormat) !== benchmark) {
        return yield* new ExportError({
          reason: "OtherBenchmark",
          message: `--format ${chosenFormat}: run ${chosen} is a ${benchmark} run — export it as ${
            formatOfBenchmark(benchmark)
          } (its benchmark's own format), jsonl or csv`
        })
      }
      const priced = yield* loadPrices(args.prices, storedPrices(loaded.run.config))
      const calls = new Map<string, Array<ReportCall>>()
      for (const c of loaded.calls) {
        if (c.questionId === null) continue
        const list = calls.get(c.questionId)
        if (list === undefined) calls.set(c.questionId, [c])
        else list.push(c)
      }
      const body = renderExport(
        chosenFormat,
        loaded.predictions,
        (id) => costOfCalls(calls.get(id) ?? [], priced),
        { runId: chosen, agentModel: agentModelOf(loaded.run.config, loaded.calls) },
        // LongVidSearch's export counts tool calls and viewed clips: only it reads the step rows.
        chosenFormat === "longvidsearch" ? (yield* store.loadRun(chosen)).steps : undefined
      )
      yield* writeResult({
        body,
        out: args.out,
        inputs: [...databaseFiles(args.db), ...runInputs(loaded.run)],
        data: true,
        what: `run ${chosen} as ${chosenFormat}`
      })
    })
).pipe(
  Command.withDescription(
    "Export a stored run for its benchmark's own scorer (Video-MME, LVBench, LongVideoBench, MLVU, EgoSchema, NExT-QA), or as JSONL or CSV"
  ),
  Command.provide((args) => Stores.runStore(args.db, { readOnly: true }))
)
