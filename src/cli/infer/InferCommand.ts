import { Command } from "@effect/cli"
import { loadedWhenRun } from "../LazyCommand.js"
import { type InferArgs, options } from "./InferOptions.js"

/** `vtree infer`: its options here, its work in InferRun.ts, loaded when it runs. */
export const inferCommand = Command.make(
  "infer",
  options,
  loadedWhenRun(() => import("./InferRun.js"), (run, args: InferArgs) => run.infer(args))
).pipe(
  Command.withDescription(
    "Run a benchmark: every question through the agent, saved as it finishes (SQLite, or PostgreSQL shared by many workers); Ctrl-C keeps finished work"
  )
)
