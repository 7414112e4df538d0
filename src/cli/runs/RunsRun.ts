// What `vtree runs` does, loaded when it runs (cli/LazyCommand.ts); its options are in RunsCommand.ts.
import { Effect, Option } from "effect"
import { renderBuildsText } from "../../programs/report/BuildList.js"
import { listRuns, renderRunsJson, renderRunsText } from "../../programs/report/RunList.js"
import { writeResult } from "../shared/OutputFile.js"
import * as Stores from "../shared/StoreLayers.js"

/** `vtree runs`: every run of a database, newest first, with where it stands and how it scored. */
export const runs = (args: { readonly db: string; readonly format: "text" | "json" }) =>
  Effect.gen(function*() {
    const store = yield* (yield* Stores.RunStores).open(args.db)
    const runs = listRuns(yield* store.listRuns, yield* store.runTallies)
    // Builds (`vtree build --db`) after the runs, as a table of their own.
    const builds = yield* (yield* (yield* Stores.RunStores).builds(args.db)).listBuilds
    const body = args.format === "json"
      ? renderRunsJson(runs)
      : runs.length === 0 && builds.length === 0
      ? `${Stores.displayDb(args.db)}: no runs yet — start one with \`vtree infer\`\n`
      : [...(runs.length > 0 ? [renderRunsText(runs)] : []), ...(builds.length > 0 ? [renderBuildsText(builds)] : [])]
        .join("\n")
    yield* writeResult({ body, out: Option.none(), inputs: [], data: args.format === "json", what: "the runs" })
  }).pipe(
    Effect.scoped,
    // Read-only, as report: listing never writes, not even a migration.
    Effect.provide(Stores.readOnly)
  )
