// The CLI program. dist/bin.js (src/bin.ts) starts it from the bundle dist/bundle/main.mjs.
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Logger } from "effect"
import { describeFailure } from "./cli/ErrorReport.js"
import { rootCommand } from "./cli/Root.js"
import { withTerminalText } from "./cli/TerminalConsole.js"
import { version } from "./cli/version.js"

const cli = Command.run(rootCommand, { name: "vtree", version })

// Console output is rendered for a terminal (cli/TerminalConsole.ts): data is shown, never obeyed.
const asksForHelp = process.argv.slice(2).some((arg) => arg === "--help" || arg === "-h")

const main = withTerminalText(cli(process.argv), { help: asksForHelp }).pipe(
  Effect.tapErrorCause((cause) => {
    const line = describeFailure(cause)
    return line === undefined ? Effect.void : Console.error(line)
  }),
  Effect.provide(NodeContext.layer),
  // Every log line goes to stderr, one logfmt line each: stdout belongs to results (and, for
  // `vtree mcp`, to the protocol alone).
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
)

// Errors are reported above in the user's terms; runMain only turns the failure into exit code 1, and
// an interruption (Ctrl-C, SIGTERM) into the conventional 130 rather than success.
NodeRuntime.runMain(main, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1)
})
