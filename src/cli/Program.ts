// The whole CLI as one Effect: argv in, exit code out. src/main.ts runs it as the process over its stdio;
// tests run it in-process (test/support/cli/InProcess.ts) with their own TerminalConsole and config.
import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Console, Effect, Exit, Layer, Logger, Option } from "effect"
import type { CliError } from "./CliError.js"
import { liftLogLevel, withUsageLines } from "./CommandLine.js"
import { rootCommand } from "./Root.js"
import { type TerminalConsole, withTerminalConsole, withTerminalText } from "./TerminalConsole.js"
import { version } from "./version.js"

const cli = Command.run(rootCommand, { name: "vtree", version })

/**
 * The CLI for `argv` (as in `process.argv`: node and script first), writing every line through
 * TerminalConsole; fails when the command does.
 */
export const cliProgram = (argv: ReadonlyArray<string>): Effect.Effect<void, CliError, TerminalConsole> => {
  // Console output is rendered for a terminal (cli/TerminalConsole.ts): data is shown, never obeyed.
  const asksForHelp = argv.slice(2).some((arg) => arg === "--help" || arg === "-h")
  // `--log-level` anywhere on the line, not only before the subcommand as @effect/cli reads it.
  const { argv: args, level } = liftLogLevel(argv)
  const run = withUsageLines(cli(args), args)
  return withTerminalText(level === undefined ? run : Logger.withMinimumLogLevel(run, level), { help: asksForHelp })
    .pipe(
      // The error classes ErrorReport tells apart live with the programs that fail with them: loaded on a
      // failure only (a usage error, already printed by @effect/cli, needs none of them).
      Effect.tapErrorCause((cause) =>
        isUsageError(cause) ?
          Effect.void :
          Effect.flatMap(Effect.promise(() => import("./ErrorReport.js")), (report) => {
            const line = report.describeFailure(cause)
            return line === undefined ? Effect.void : Console.error(line)
          })
      ),
      // Every log line goes to stderr, one logfmt line each: stdout belongs to results (and, for
      // `vtree mcp`, to the protocol alone).
      Effect.provide(
        Layer.provideMerge(
          NodeContext.layer,
          Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
        )
      ),
      withTerminalConsole
    )
}

/** The process exit code for how the CLI ended: 0, 130 for an interruption (Ctrl-C, SIGTERM, SIGHUP), else 1. */
export const exitCode = (exit: Exit.Exit<unknown, unknown>): number =>
  Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1

const isUsageError = <E>(cause: Cause.Cause<E>): boolean => {
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure) && ValidationError.isValidationError(failure.value)
}
