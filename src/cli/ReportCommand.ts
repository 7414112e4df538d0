import { Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import { Console, Effect, Option, Schema } from "effect"
import { RunStore } from "../services/RunStore.js"
import { renderJson, renderText, summarize } from "../programs/harness/Report.js"
import { renderHtml } from "../programs/harness/ReportHtml.js"
import { optionalText, withShownDefault } from "./CliOptions.js"
import { dbOption, displayDb, runStoreLayer } from "./RunStoreLayer.js"

/** A one-line, user-facing failure of `vtree report`. */
export class ReportError extends Schema.TaggedError<ReportError>()("ReportError", {
  message: Schema.String
}) {}

const db = dbOption("Run database written by `vtree infer`")
const runId = optionalText("run-id", "Run to report (default: the most recently started run)")
const format = Options.choice("format", ["text", "json", "html"]).pipe(
  Options.withDescription("text: tables; json: the summary, machine-readable; html: one self-contained page with trajectories"),
  withShownDefault("text")
)
const out = Options.file("out").pipe(
  Options.withDescription("Write the report to this file instead of stdout"),
  Options.optional
)

/** `vtree report`: the summary of one stored run, as text, JSON or a self-contained HTML page. */
export const reportCommand = Command.make("report", { db, runId, format, out }, (args) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    // listRuns is newest first, so its head is the latest run.
    const chosen = Option.isSome(args.runId) ? args.runId.value : (yield* store.listRuns)[0]?.runId
    if (chosen === undefined) {
      return yield* new ReportError({ message: `${displayDb(args.db)}: holds no runs yet — run \`vtree infer\` first` })
    }
    // Only the HTML page shows trajectories; the tables need no step rows.
    const loaded = yield* store.loadRun(chosen, { includeSteps: args.format === "html" })
    const summary = summarize(loaded)
    const body = args.format === "json"
      ? renderJson(summary)
      : args.format === "html"
      ? renderHtml(loaded, summary)
      : renderText(summary)
    if (Option.isNone(args.out)) {
      yield* Console.log(body.trimEnd())
      return
    }
    const file = args.out.value
    const fs = yield* FileSystem.FileSystem
    yield* fs.writeFileString(file, body).pipe(
      Effect.mapError((error) =>
        new ReportError({ message: `${file}: cannot write the report (${error.message}) — check the path and permissions` })
      )
    )
    yield* Console.error(`vtree: wrote the ${args.format} report of run ${chosen} to ${file}`)
  })).pipe(
    Command.withDescription("Summarize a stored run: accuracy per task type and duration, stop reasons, tokens, trajectories"),
    Command.provide((args) => runStoreLayer(args.db, { mustExist: true }))
  )
