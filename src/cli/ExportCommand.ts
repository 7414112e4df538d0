import { Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { RunStore } from "../services/RunStore.js"
import { costOfCalls } from "../programs/harness/Cost.js"
import { renderExport } from "../programs/harness/Export.js"
import type { ReportCall } from "../programs/harness/Report.js"
import { dbOption, optionalText, withShownDefault } from "./CliOptions.js"
import { databaseFiles, runInputs, writeResult } from "./OutputFile.js"
import { loadPrices } from "./Prices.js"
import { runStore } from "./Composition.js"

/** A one-line, user-facing failure of `vtree export`. */
/** Why `vtree export` wrote nothing: the database holds no run, or the output file cannot be written. */
export const ExportErrorReason = Schema.Literal("NoRuns", "WriteFailed")
export type ExportErrorReason = typeof ExportErrorReason.Type

export class ExportError extends Schema.TaggedError<ExportError>()("ExportError", {
  reason: ExportErrorReason,
  message: Schema.String
}) {}

const db = dbOption("Run database written by `vtree infer`")
const runId = optionalText("run-id", "Run to export (default: the most recently started run)")
const format = Options.choice("format", ["videomme", "jsonl", "csv"]).pipe(
  Options.withDescription(
    "videomme: Video-MME's results layout, read by its scoring script; " +
      "jsonl: one prediction per line with usage, cost and stop reason; csv: the same, for spreadsheets"
  ),
  withShownDefault("videomme")
)
const out = Options.file("out").pipe(Options.withDescription("Write to this file instead of stdout"), Options.optional)
const prices = optionalText("prices", "Prices file for the cost column of jsonl/csv (see `vtree report --help`)")

/** `vtree export`: a stored run as Video-MME results, JSONL or CSV. */
export const exportCommand = Command.make("export", { db, runId, format, out, prices }, (args) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const chosen = Option.isSome(args.runId) ? args.runId.value : (yield* store.listRuns)[0]?.runId
    if (chosen === undefined) {
      return yield* new ExportError({ reason: "NoRuns", message: `${args.db}: holds no runs yet — run \`vtree infer\` first` })
    }
    const loaded = yield* store.loadRun(chosen, { includeSteps: false })
    const priced = yield* loadPrices(args.prices)
    const calls = new Map<string, Array<ReportCall>>()
    for (const c of loaded.calls) {
      if (c.questionId === null) continue
      const list = calls.get(c.questionId)
      if (list === undefined) calls.set(c.questionId, [c])
      else list.push(c)
    }
    const body = renderExport(args.format, loaded.predictions, (id) => costOfCalls(calls.get(id) ?? [], priced))
    yield* writeResult({ body, out: args.out, inputs: [...databaseFiles(args.db), ...runInputs(loaded.run)], data: true, what: `run ${chosen} as ${args.format}` })
  })).pipe(
    Command.withDescription("Export a stored run: Video-MME results JSON for its scorer, JSONL or CSV"),
    Command.provide((args) => runStore(args.db, { readOnly: true }))
  )
