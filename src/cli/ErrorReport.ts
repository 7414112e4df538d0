import { ValidationError } from "@effect/cli"
import { Cause, Option } from "effect"
import { terminalText } from "../domain/TerminalText.js"

/**
 * What a person sees when a command fails. Expected failures carry a message written for people
 * (what failed and what to do): one line, no stack. @effect/cli has already printed its own usage
 * errors. Only defects — bugs — get the full cause, because then the stack is what helps.
 */
export const describeFailure = <E>(cause: Cause.Cause<E>): string | undefined => {
  if (Cause.isInterruptedOnly(cause)) return undefined
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    if (ValidationError.isValidationError(error)) return undefined
    const message = messageOf(error)
    // A message often quotes data (a videoID, a node key, a file name, a --run-id): shown, never obeyed.
    if (message !== undefined) return `vtree: ${terminalText(message)}`
  }
  return `vtree: internal error (please report it):\n${terminalText(Cause.pretty(cause), { multiline: true })}`
}

const messageOf = (error: unknown): string | undefined => {
  if (typeof error === "string") return error
  if (typeof error === "object" && error !== null && "message" in error) {
    const message = (error as { message: unknown }).message
    if (typeof message === "string" && message.length > 0) return message.split("\n")[0]
  }
  return undefined
}
