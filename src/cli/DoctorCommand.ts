import { Command } from "@effect/cli"
import { Effect } from "effect"

/** `vtree doctor`; the provider adapters load only when it runs, not on every start of the CLI. */
export const doctorCommand = Command.make("doctor", {}, () =>
  Effect.flatMap(Effect.promise(() => import("./Doctor.js")), (module) => module.doctorWithHttp)).pipe(
  Command.withDescription("Check each configured model provider with one tiny call and print a table")
)
