import { ValidationError } from "@effect/cli"
import { Cause, Option } from "effect"
import { terminalText } from "../text/TerminalText.js"
import { isUserError } from "./CliError.js"

/**
 * What a person sees when a command fails. The errors written for people (cli/CliError.ts: what failed and
 * what to do) are one line, no stack. @effect/cli has already printed its own usage errors. Anything else —
 * a library's error that escaped, a defect — is a bug in vtree, and is said to be one: a tidy line would
 * pass it off as the user's to fix. Its details (the full cause, with the stack) follow on stderr.
 */
export const describeFailure = <E>(cause: Cause.Cause<E>): string | undefined => {
  if (Cause.isInterruptedOnly(cause)) return undefined
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    if (ValidationError.isValidationError(error)) return undefined
    // A message often quotes data (a videoID, a node key, a file name, a --run-id): shown, never obeyed.
    if (isUserError(error)) return `vtree: ${terminalText(firstLine(error.message))}`
  }
  return [
    `vtree: internal error — ${terminalText(summaryOf(cause))}`,
    "vtree: this is a bug in vtree, not in your input; the details follow (please include them in a report):",
    terminalText(Cause.pretty(cause), { multiline: true })
  ].join("\n")
}

const firstLine = (text: string) => text.split("\n")[0]!

/** The failure's tag and first message line, or the defect's: enough to recognise it in the line itself. */
const summaryOf = <E>(cause: Cause.Cause<E>): string => {
  const error: unknown = Option.getOrUndefined(Cause.failureOption(cause)) ??
    Option.getOrUndefined(Cause.dieOption(cause))
  if (typeof error === "object" && error !== null) {
    const tag = "_tag" in error && typeof error._tag === "string" ? error._tag : error.constructor.name
    const message = "message" in error && typeof error.message === "string" ? firstLine(error.message) : ""
    return message === "" ? tag : `${tag}: ${message}`
  }
  return String(error)
}
