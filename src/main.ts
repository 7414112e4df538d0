// The CLI process. dist/bin.js (src/bin.ts) starts it from the bundle dist/bundle/main.mjs.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { cliProgram, exitCode } from "./cli/Program.js"
import * as Output from "./cli/shared/OutputLayers.js"

// Errors are reported in the user's terms by cliProgram; runMain only turns the failure into exit code 1,
// and an interruption (Ctrl-C, SIGTERM) into the conventional 130 rather than success.
NodeRuntime.runMain(Effect.provide(cliProgram(process.argv), Output.stdio), {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(exitCode(exit))
})
