// The CLI program. dist/bin.js (src/bin.ts) starts it from the bundle dist/bundle/main.mjs.
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Logger } from "effect"
import { stripVTControlCharacters } from "node:util"
import { describeFailure } from "./cli/ErrorReport.js"
import { tidyHelp } from "./cli/HelpText.js"
import { rootCommand } from "./cli/Root.js"
import { version } from "./cli/version.js"

const cli = Command.run(rootCommand, { name: "vtree", version })

// @effect/cli styles its help with ANSI escapes whether or not stdout is a terminal. Piped into a file
// or a pager, or with NO_COLOR set, they are noise, so text for stdout loses them there. Help is tidied
// (cli/HelpText.ts) and always plain: its layout is rewritten line by line.
const plainStdout = process.stdout.isTTY !== true || (process.env["NO_COLOR"] ?? "") !== ""
const asksForHelp = process.argv.slice(2).some((arg) => arg === "--help" || arg === "-h")
const stdoutText: ((text: string) => string) | undefined = asksForHelp
  ? (text) => tidyHelp(stripVTControlCharacters(text))
  : plainStdout
  ? stripVTControlCharacters
  : undefined
const withStdoutText = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  stdoutText === undefined ? self : Console.consoleWith((console) =>
    Console.withConsole(self, {
      ...console,
      log: (...args: ReadonlyArray<unknown>) => console.log(...args.map((arg) => (typeof arg === "string" ? stdoutText(arg) : arg)))
    })
  )

const main = withStdoutText(cli(process.argv)).pipe(
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
