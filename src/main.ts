// The CLI process. dist/bin.js (src/bin.ts) starts it from the bundle dist/bundle/main.mjs.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { cliProgram, exitCode } from "./cli/Program.js"
import * as Output from "./cli/shared/OutputLayers.js"

/**
 * Ends at SIGHUP (a closed terminal, an ssh session dropped) by interrupting the command, as runMain does
 * for SIGINT and SIGTERM: the programs' finalizers remove their partial files and staging folders.
 */
const hangup = Effect.async<never>((resume) => {
  const onHangup = () => resume(Effect.interrupt)
  process.once("SIGHUP", onHangup)
  return Effect.sync(() => process.off("SIGHUP", onHangup))
})

// Errors are reported in the user's terms by cliProgram; runMain only turns the failure into exit code 1,
// and an interruption (Ctrl-C, SIGTERM, SIGHUP) into the conventional 130 rather than success.
NodeRuntime.runMain(Effect.provide(Effect.raceFirst(cliProgram(process.argv), hangup), Output.stdio), {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(exitCode(exit))
})
