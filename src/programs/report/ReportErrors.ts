// What went wrong in a run, for its reports: the commonest error messages of its questions and the
// command that asks the failed ones again. A message is data (a server's text, echoed by a proxy):
// its first line only, credentials masked, cut to a readable length; the text renderer makes it
// terminal-safe.
import { maskCredentials } from "../../domain/Secret.js"
import type { PredictionRow } from "../../services/RunStore.js"
import { terminalText } from "../../text/TerminalText.js"

export interface ErrorSummary {
  /** Questions that ended with stop reason `error` (an outage, a defect): `--retry-errors` asks them again. */
  readonly questions: number
  /** The commonest messages of the questions that kept one, commonest first (at most `shownMessages`). */
  readonly messages: ReadonlyArray<{ readonly message: string; readonly count: number }>
  /** The command that asks the `error` questions again; null when none ended so. */
  readonly retryCommand: string | null
}

export const shownMessages = 5
const messageLength = 300

/** A stored error as a report shows it: one line, no credentials, at most `messageLength` characters. */
export const reportedMessage = (error: string): string => {
  const line = error.split("\n").find((part) => part.trim() !== "")?.trim() ?? ""
  const masked = maskCredentials(line)
  return masked.length <= messageLength ? masked : `${masked.slice(0, messageLength - 1)}…`
}

export const errorsOf = (
  runId: string,
  predictions: ReadonlyArray<Pick<PredictionRow, "stopReason" | "error">>
): ErrorSummary => {
  const counts = new Map<string, number>()
  for (const p of predictions) {
    if (p.error === null || p.error.trim() === "") continue
    const message = reportedMessage(p.error)
    counts.set(message, (counts.get(message) ?? 0) + 1)
  }
  const questions = predictions.filter((p) => p.stopReason === "error").length
  return {
    questions,
    // Commonest first; among equals, the first seen (Map order) stays first.
    messages: [...counts.entries()]
      .map(([message, count]) => ({ message, count }))
      .sort((a, b) => b.count - a.count)
      .slice(0, shownMessages),
    retryCommand: questions === 0 ? null : `vtree infer --resume --retry-errors --run-id ${runId}`
  }
}

/** The text report's Errors block; none when no question kept an error. */
export const errorsText = (
  errors: ErrorSummary,
  table: (
    headers: ReadonlyArray<string>,
    rows: ReadonlyArray<ReadonlyArray<string>>,
    right: ReadonlyArray<boolean>
  ) => string
): ReadonlyArray<string> => {
  if (errors.messages.length === 0) return []
  const head = errors.questions === 0
    ? "Errors: the most common messages"
    : `Errors: ${errors.questions} question${
      errors.questions === 1 ? "" : "s"
    } ended in error; the most common messages`
  const rows = errors.messages.map((m) => [m.count.toLocaleString("en-US"), terminalText(m.message)])
  const hint = errors.retryCommand === null
    ? []
    : [`Ask them again once the cause is fixed: ${errors.retryCommand} (with the run's --trees and --db)`]
  return [[head, table(["Count", "Message"], rows, [true, false]), ...hint].join("\n")]
}
