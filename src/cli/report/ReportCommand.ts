import { Args, Command, Options } from "@effect/cli"
import { defaultBootstrap } from "../../domain/Stats.js"
import { dbOption, optionalText, wholeNumber, withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

const db = dbOption("Run database written by `vtree infer`")
const dbB = optionalText(
  "db-b",
  "With --compare: the database holding run B, when it is not --db (a run written as FILE#RUN names its own database)"
)
const runId = optionalText("run-id", "Run to report (default: the most recently started run)")
const compare = Options.boolean("compare").pipe(
  Options.withDescription(
    "Compare two runs: `vtree report --compare RUN_A RUN_B`, paired over the questions both answered " +
      "(each RUN may be FILE#RUN to read it from another database)"
  )
)
const runs = Args.text({ name: "RUN" }).pipe(
  Args.withDescription("With --compare: run A then run B; with --repeats: two or more runs; each a run id or FILE#RUN"),
  Args.repeated
)
const prices = optionalText(
  "prices",
  "JSON file of USD per 1M tokens per role, e.g. {\"agent\": {\"input\": 0.6, \"cachedInput\": 0.15, \"output\": 2.4}}. " +
    "Default: the run's own prices. VTREE_<ROLE>_PRICE=input,cached,output overrides a role"
)
const format = Options.choice("format", ["text", "json", "html"]).pipe(
  Options.withDescription(
    "text: tables; json: the summary, machine-readable; html: one self-contained page with trajectories"
  ),
  withShownDefault("text")
)
const frames = Options.choice("frames", ["embed", "link"]).pipe(
  Options.withDescription(
    "html: observe_frame's frames as thumbnails at most 320 px wide in the page (embed), or as links into the trees folder (link)"
  ),
  withShownDefault("embed")
)
const treePage = optionalText(
  "tree-page",
  "html: a page written by `vtree tree html`; node ids in the steps link to their cards there"
)
// Text, not Options.file: OutputFile says why a path that is not a regular file is refused, in our words.
const out = Options.text("out").pipe(
  Options.withDescription("Write the report to this file instead of stdout"),
  Options.optional
)

const bootstrap = wholeNumber("bootstrap", 1).pipe(
  Options.withDescription("With --compare: resamples of the paired bootstrap over videos"),
  withShownDefault(defaultBootstrap.resamples)
)
const seed = wholeNumber("seed", 0).pipe(
  Options.withDescription("With --compare: the bootstrap's seed (the same seed gives the same interval)"),
  withShownDefault(defaultBootstrap.seed)
)
const repeats = Options.boolean("repeats").pipe(
  Options.withDescription(
    "Runs of one question set: `vtree report --repeats R1 R2 R3` gives each run's accuracy, their mean, SD and range, " +
      "and the share of questions every run answered the same"
  )
)

const options = { db, dbB, runId, compare, runs, prices, format, out, frames, treePage, bootstrap, seed, repeats }
export type ReportArgs = Command.Command.ParseConfig<typeof options>

/** `vtree report`: the summary of one stored run, or the comparison of two, as text, JSON or a self-contained HTML page. */
export const reportCommand = Command.make(
  "report",
  options,
  loadedWhenRun(() => import("./ReportRun.js"), (run, args: ReportArgs) => run.report(args))
).pipe(
  Command.withDescription(
    "Summarize a stored run (accuracy with 95% intervals by its benchmark's own categories, stop reasons, tokens, " +
      "trajectories), or compare two with --compare"
  )
)
