// What `vtree export` does, loaded when it runs (cli/LazyCommand.ts); its options are in ExportCommand.ts.
import { Effect, Option, Schema } from "effect"
import { costOfCalls } from "../../domain/Cost.js"
import { renderExport } from "../../programs/report/Export.js"
import {
  benchmarkOfFormat,
  type ExportFormat,
  formatOfBenchmark,
  isBenchmarkFormat
} from "../../programs/report/ExportFormats.js"
import { agentModelOf, storedPrices } from "../../programs/report/RunSettings.js"
import type { ReportCall } from "../../programs/report/Summary.js"
import { RunStore } from "../../services/RunStore.js"
import { databaseFiles, runInputs, writeResult } from "../shared/OutputFile.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import type { ExportArgs } from "./ExportCommand.js"

/** Why `vtree export` wrote nothing: the database holds no run, the format is another benchmark's, or the file cannot be written. */
export const ExportErrorReason = Schema.Literal("NoRuns", "OtherBenchmark", "WriteFailed")
export type ExportErrorReason = typeof ExportErrorReason.Type

export class ExportError extends Schema.TaggedError<ExportError>()("ExportError", {
  reason: ExportErrorReason,
  message: Schema.String
}) {}

/** `vtree export`: a stored run as Video-MME results, JSONL or CSV. */
export const exportRun = (args: ExportArgs) =>
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
  }).pipe(Effect.provide(Stores.runStore(args.db, { readOnly: true })))
