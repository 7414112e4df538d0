// Every line a command writes to stdout or stderr goes through one service, TerminalConsole: its results,
// progress lines, warnings and errors, and Effect's Console (help, the logger) built over it. The process
// gets the real streams (`Output.stdio`, cli/shared/OutputLayers.ts); a test gets buffers, so nothing global is
// patched.
//
// Every line can carry data (a card, a model reply, a file name, a --run-id): its control characters are
// shown as `\x1b`, never obeyed (text/TerminalText.ts). This is the one place that happens for Console
// output; machine formats written to stdout (report --format json|html, export) go through
// cli/shared/OutputFile.ts instead, which keeps their bytes when stdout is a file.
import { Console, Context, Effect, Layer } from "effect"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { terminalText, withoutStyles } from "../text/TerminalText.js"
import { tidyHelp } from "./HelpText.js"

/** One of the two output streams. */
export interface TerminalStream {
  /** Writes `text` as given (nothing added, nothing rendered); done once the stream has taken it. */
  readonly write: (text: string) => Effect.Effect<void>
  /** The same write from a synchronous callback (a progress line drawn on an event, a logger). */
  readonly unsafeWrite: (text: string) => void
  /** Whether a person reads it on a terminal: progress redraws one line, data is rendered. */
  readonly isTTY: boolean
  /** The terminal's width in columns, when it is a terminal that says. */
  readonly columns: number | undefined
}

/** stdout (a command's result, and for `vtree mcp` over stdio nothing at all) and stderr (everything else). */
export class TerminalConsole extends Context.Tag("vtree/cli/TerminalConsole")<TerminalConsole, {
  readonly stdout: TerminalStream
  readonly stderr: TerminalStream
}>() {}

const noop = () => undefined

const nodeStream = (stream: NodeJS.WriteStream): TerminalStream => ({
  write: (text) => Effect.async<void>((resume) => void stream.write(text, () => resume(Effect.void))),
  unsafeWrite: (text) => void stream.write(text),
  // Read at each use: a terminal may be resized while a run draws its progress.
  get isTTY() {
    return stream.isTTY === true
  },
  get columns() {
    return stream.columns
  }
})

/**
 * TerminalConsole over two Node streams (the process's, in cli/shared/OutputLayers.ts). A reader that goes away
 * (`vtree report | head`) leaves the writes with nowhere to go, as Node's own console does, rather than
 * ending the process with EPIPE.
 */
export const layer = (streams: { readonly stdout: NodeJS.WriteStream; readonly stderr: NodeJS.WriteStream }) =>
  Layer.scoped(
    TerminalConsole,
    Effect.acquireRelease(
      Effect.sync(() => {
        streams.stdout.on("error", noop)
        streams.stderr.on("error", noop)
        return TerminalConsole.of({ stdout: nodeStream(streams.stdout), stderr: nodeStream(streams.stderr) })
      }),
      () =>
        Effect.sync(() => {
          streams.stdout.removeListener("error", noop)
          streams.stderr.removeListener("error", noop)
        })
    )
  )

/** A Writable that hands each chunk to `stream` at once, so Console lines and direct writes keep their order. */
const writableOf = (stream: TerminalStream) =>
  new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, callback) {
      stream.unsafeWrite(typeof chunk === "string" ? chunk : chunk.toString("utf8"))
      callback()
    }
  })

/** Effect's Console (what Console.log, @effect/cli's help and the logger write through) over `terminal`. */
export const consoleOf = (terminal: Context.Tag.Service<TerminalConsole>): Console.Console => {
  const node = new NodeConsole({
    stdout: writableOf(terminal.stdout),
    stderr: writableOf(terminal.stderr),
    colorMode: false
  })
  const sync = <Args extends ReadonlyArray<unknown>>(f: (...args: Args) => void) => (...args: Args) =>
    Effect.sync(() => f(...args))
  return {
    [Console.TypeId]: Console.TypeId,
    assert: sync((condition: boolean, ...args: ReadonlyArray<unknown>) =>
      node.assert(condition, ...(args as Array<string>))
    ),
    clear: Effect.sync(() => node.clear()),
    count: sync((label?: string) => node.count(label)),
    countReset: sync((label?: string) => node.countReset(label)),
    debug: sync((...args: ReadonlyArray<unknown>) => node.debug(...args)),
    dir: sync((item: unknown, options?: unknown) => node.dir(item, options as never)),
    dirxml: sync((...args: ReadonlyArray<unknown>) => node.dirxml(...args)),
    error: sync((...args: ReadonlyArray<unknown>) => node.error(...args)),
    group: (options) =>
      Effect.sync(
        () => (options?.collapsed === true ? node.groupCollapsed(options.label) : node.group(options?.label))
      ),
    groupEnd: Effect.sync(() => node.groupEnd()),
    info: sync((...args: ReadonlyArray<unknown>) => node.info(...args)),
    log: sync((...args: ReadonlyArray<unknown>) => node.log(...args)),
    table: sync((data: unknown, properties?: ReadonlyArray<string>) => node.table(data, properties as Array<string>)),
    time: sync((label?: string) => node.time(label)),
    timeEnd: sync((label?: string) => node.timeEnd(label)),
    timeLog: sync((label?: string, ...args: ReadonlyArray<unknown>) => node.timeLog(label, ...args)),
    trace: sync((...args: ReadonlyArray<unknown>) => node.trace(...args)),
    warn: sync((...args: ReadonlyArray<unknown>) => node.warn(...args)),
    unsafe: node
  }
}

/** `self` with Effect's Console writing through TerminalConsole. */
export const withTerminalConsole = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(TerminalConsole, (terminal) => Console.withConsole(self, consoleOf(terminal)))

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
