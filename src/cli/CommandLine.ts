// The command line around @effect/cli: `--log-level` read wherever it stands (@effect/cli knows it only before the
// subcommand), and its "Expected to find option" said as one `vtree:` line naming the option and the fix.
import { Console, type Effect, LogLevel } from "effect"

const levels = new Map(LogLevel.allLevels.map((level) => [level._tag.toLowerCase(), level] as const))

/**
 * `argv` without its `--log-level L` / `--log-level=L` (anywhere after the script), and the level the last one names.
 * A value that names no level is left in place, for @effect/cli to refuse as it does.
 */
export const liftLogLevel = (
  argv: ReadonlyArray<string>
): { readonly argv: ReadonlyArray<string>; readonly level: LogLevel.LogLevel | undefined } => {
  const kept = argv.slice(0, 2)
  let level: LogLevel.LogLevel | undefined
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!
    const inline = arg.startsWith("--log-level=") ? arg.slice("--log-level=".length) : undefined
    const value = inline ?? (arg === "--log-level" ? argv[i + 1] : undefined)
    const named = value === undefined ? undefined : levels.get(value.toLowerCase())
    if (named === undefined) {
      kept.push(arg)
      continue
    }
    level = named
    if (inline === undefined) i += 1
  }
  return { argv: kept, level }
}

/** The subcommand words of `argv` (`tree import`): those before the first option. */
const commandPath = (argv: ReadonlyArray<string>): string => {
  const words: Array<string> = []
  for (const arg of argv.slice(2)) {
    if (arg.startsWith("-")) break
    words.push(arg)
  }
  return words.join(" ")
}

const ansi = /\u001b\[[0-9;]*m/g

/** @effect/cli's line for a required option left out, as one `vtree:` line; any other text as it is. */
export const missingOptionLine = (text: string, argv: ReadonlyArray<string>): string | undefined => {
  const missing = /^Expected to find option: '(--?[^']+)'\s*$/.exec(text.replace(ansi, "").trim())
  if (missing === null) return undefined
  const command = commandPath(argv)
  return `vtree: ${missing[1]} is required — pass it (\`vtree ${
    command === "" ? "" : `${command} `
  }--help\` lists the options)`
}

/** `self` with @effect/cli's usage lines for a missing option written as `missingOptionLine` says. */
export const withUsageLines = <A, E, R>(self: Effect.Effect<A, E, R>, argv: ReadonlyArray<string>) =>
  Console.consoleWith((console) =>
    Console.withConsole(self, {
      ...console,
      error: (...args: ReadonlyArray<unknown>) => {
        const line = args.length === 1 && typeof args[0] === "string" ? missingOptionLine(args[0], argv) : undefined
        return line === undefined ? console.error(...args) : console.error(line)
      }
    })
  )
