/**
 * A TerminalConsole whose streams are buffers: what a command wrote to stdout and stderr, in order, for a
 * test to read. Nothing global is touched, so runs capturing this way may go on side by side.
 *
 *   const terminal = capturedTerminal()
 *   yield* writeResult(…).pipe(Effect.provide(terminal.layer))
 *   assert.strictEqual(terminal.stdout(), "…")
 */
import { Effect, Layer } from "effect"
import { TerminalConsole, type TerminalStream } from "../../../src/cli/TerminalConsole.js"

export interface TerminalOptions {
  /** Whether both streams claim to be a terminal (progress redraws a line, data is rendered); false by default. */
  readonly isTTY?: boolean
  /** The terminal's width when isTTY; unknown by default. */
  readonly columns?: number
}

export interface CapturedTerminal {
  readonly layer: Layer.Layer<TerminalConsole>
  readonly stdout: () => string
  readonly stderr: () => string
}

const stream = (chunks: Array<string>, options: TerminalOptions): TerminalStream => ({
  write: (text) => Effect.sync(() => void chunks.push(text)),
  unsafeWrite: (text) => void chunks.push(text),
  isTTY: options.isTTY === true,
  columns: options.columns
})

export const capturedTerminal = (options: TerminalOptions = {}): CapturedTerminal => {
  const out: Array<string> = []
  const err: Array<string> = []
  return {
    layer: Layer.succeed(
      TerminalConsole,
      TerminalConsole.of({ stdout: stream(out, options), stderr: stream(err, options) })
    ),
    stdout: () => out.join(""),
    stderr: () => err.join("")
  }
}
