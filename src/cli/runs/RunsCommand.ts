import { Command, Options } from "@effect/cli"
import { dbOption, withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

const db = dbOption("Run database written by `vtree infer`")
const format = Options.choice("format", ["text", "json"]).pipe(
  Options.withDescription("text: one line per run; json: the same fields, machine-readable"),
  withShownDefault("text")
)

/** `vtree runs`: every run of a database, newest first, with where it stands and how it scored. */
export const runsCommand = Command.make(
  "runs",
  { db, format },
  loadedWhenRun(
    () => import("./RunsRun.js"),
    (run, args: { readonly db: string; readonly format: "text" | "json" }) => run.runs(args)
  )
).pipe(
  Command.withDescription(
    "List the runs of a database: status (stale when nobody holds a running run), benchmark, agent model, " +
      "saved / total, accuracy over keyed questions, start and wall time; then its builds (`build --db`)"
  )
)
