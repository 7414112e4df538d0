// The CLI process. dist/bin.js (src/bin.ts) starts it from the bundle dist/bundle/main.mjs.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { cliProgram, exitCode } from "./cli/Program.js"

// Errors are reported in the user's terms by cliProgram; runMain only turns the failure into exit code 1,
// and an interruption (Ctrl-C, SIGTERM) into the conventional 130 rather than success.
NodeRuntime.runMain(cliProgram(process.argv), {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(exitCode(exit))
})
