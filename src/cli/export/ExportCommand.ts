import { Command, Options } from "@effect/cli"
import { exportFormats } from "../../programs/report/ExportFormats.js"
import { dbOption, optionalText } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

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

const options = { db, runId, format, out, prices }
export type ExportArgs = Command.Command.ParseConfig<typeof options>

/** `vtree export`: a stored run as Video-MME results, JSONL or CSV. */
export const exportCommand = Command.make(
  "export",
  options,
  loadedWhenRun(() => import("./ExportRun.js"), (run, args: ExportArgs) => run.exportRun(args))
).pipe(
  Command.withDescription(
    "Export a stored run for its benchmark's own scorer (Video-MME, LVBench, LongVideoBench, MLVU, EgoSchema, NExT-QA), or as JSONL or CSV"
  )
)
