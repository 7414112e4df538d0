// Every line a command writes to stdout or stderr can carry data (a card, a model reply, a file name, a
// --run-id): its control characters are shown as `\x1b`, never obeyed (text/TerminalText.ts). This
// is the one place that happens for Console output; machine formats written to stdout (report --format
// json|html, export) go through cli/OutputFile.ts instead, which keeps their bytes when stdout is a file.
import type { Effect } from "effect"
import { Console } from "effect"
import { terminalText, withoutStyles } from "../text/TerminalText.js"
import { tidyHelp } from "./HelpText.js"

/** @effect/cli's ANSI colour carries no data and is dropped first; the rest is rendered for a terminal. */
export const forTerminal = (text: string): string => terminalText(withoutStyles(text), { multiline: true })

const rendered = (render: (text: string) => string, args: ReadonlyArray<unknown>) =>
  args.map((arg) => (typeof arg === "string" ? render(arg) : arg))

/**
 * `self` with Console.log and Console.error rendered for a terminal. With `help`, stdout is @effect/cli's
 * help text, tidied (cli/HelpText.ts) and plain.
 */
export const withTerminalText = <A, E, R>(self: Effect.Effect<A, E, R>, options: { readonly help?: boolean } = {}) => {
  const stdoutText = options.help === true ? (text: string) => tidyHelp(forTerminal(text)) : forTerminal
  return Console.consoleWith((console) =>
    Console.withConsole(self, {
      ...console,
      log: (...args: ReadonlyArray<unknown>) => console.log(...rendered(stdoutText, args)),
      error: (...args: ReadonlyArray<unknown>) => console.error(...rendered(forTerminal, args))
    })
  )
}
