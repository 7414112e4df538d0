// The whole CLI as one Effect: argv in, exit code out. src/main.ts runs it as the process; tests run
// it in-process (test/support/cli/InProcess.ts) with their own Console, config and stderr.
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Console, Effect, Exit, Logger } from "effect"
import { stripVTControlCharacters } from "node:util"
import { describeFailure } from "./ErrorReport.js"
import { tidyHelp } from "./HelpText.js"
import { rootCommand } from "./Root.js"
import { version } from "./version.js"

const cli = Command.run(rootCommand, { name: "vtree", version })

export interface Terminal {
  /** Whether stdout is a terminal: escapes are kept only there. */
  readonly stdoutIsTTY: boolean
  /** NO_COLOR is set to something: no escapes even on a terminal. */
  readonly noColor: boolean
}

/** The CLI for `argv` (as in `process.argv`: node and script first); fails when the command does. */
export const cliProgram = (argv: ReadonlyArray<string>, terminal: Terminal): Effect.Effect<void, unknown> => {
  // @effect/cli styles its help with ANSI escapes whether or not stdout is a terminal. Piped into a file
  // or a pager, or with NO_COLOR set, they are noise, so text for stdout loses them there. Help is tidied
  // (cli/HelpText.ts) and always plain: its layout is rewritten line by line.
  const plainStdout = !terminal.stdoutIsTTY || terminal.noColor
  const asksForHelp = argv.slice(2).some((arg) => arg === "--help" || arg === "-h")
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
  return withStdoutText(cli(argv)).pipe(
    Effect.tapErrorCause((cause) => {
      const line = describeFailure(cause)
      return line === undefined ? Effect.void : Console.error(line)
    }),
    Effect.provide(NodeContext.layer),
    // Every log line goes to stderr, one logfmt line each: stdout belongs to results (and, for
    // `vtree mcp`, to the protocol alone).
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
  )
}

/** The process exit code for how the CLI ended: 0, 130 for an interruption (Ctrl-C, SIGTERM), else 1. */
export const exitCode = (exit: Exit.Exit<unknown, unknown>): number =>
  Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1
