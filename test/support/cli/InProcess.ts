/**
 * The vtree CLI run in this process: the same program as `node dist/bin.js` (src/cli/Program.ts) with
 * the real layers, given argv and an environment, returning what it printed and its exit code. For tests
 * of messages, outputs, exit codes and files written, where no process boundary is the point; the
 * process itself (signals, the launcher, several workers, stdio MCP) is the e2e project's.
 *
 *   const result = await runCli(["tree", "validate", file], { VTREE_LLM_BASE_URL: sim.url })
 *   assert.strictEqual(result.code, 1)
 *
 * Config is read from `env` alone (a ConfigProvider over it), so a developer's own OPENAI_* / VTREE_*
 * variables never leak in, as with the spawned CLI's clean environment. stdout is what Console.log and
 * process.stdout.write printed, stderr what Console.error, the logger and process.stderr.write did
 * (the progress lines of infer and build write to process.stderr directly): the process streams are
 * captured while the command runs, so calls made together (Promise.all) run one after another.
 */
import { ConfigProvider, Console, Effect } from "effect"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { cliProgram, exitCode } from "../../../src/cli/Program.js"
import type { CliResult } from "../harness/Cli.js"

const sink = (chunks: Array<string>) =>
  new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(typeof chunk === "string" ? chunk : chunk.toString("utf8"))
      callback()
    }
  })

/** An Effect Console over a Node console whose streams are the two capture buffers. */
const capturingConsole = (node: InstanceType<typeof NodeConsole>): Console.Console => {
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

/** Routes `stream.write` into `chunks` until the returned function restores it. */
const capture = (stream: NodeJS.WriteStream, chunks: Array<string>): () => void => {
  const original = stream.write
  stream.write = ((chunk: Uint8Array | string, encoding?: unknown, callback?: unknown) => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
    const done = typeof encoding === "function" ? encoding : callback
    if (typeof done === "function") queueMicrotask(() => (done as () => void)())
    return true
  }) as typeof stream.write
  return () => {
    stream.write = original
  }
}

export interface RunOptions {
  /** The working directory for this run (relative paths, the default vtree.db); the test's own otherwise. */
  readonly cwd?: string
}

let queue: Promise<unknown> = Promise.resolve()

/** Runs `vtree …args` in-process with exactly `env` as its configuration, after any run still going. */
export const runCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  options: RunOptions = {}
): Promise<CliResult> => {
  const result = queue.then(() => runNow(args, env, options))
  queue = result.catch(() => undefined)
  return result
}

const runNow = async (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: RunOptions
): Promise<CliResult> => {
  const out: Array<string> = []
  const err: Array<string> = []
  const console = capturingConsole(new NodeConsole({ stdout: sink(out), stderr: sink(err), colorMode: false }))
  const program = cliProgram(["node", "vtree", ...args]).pipe(
    Effect.withConsole(console),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
  )
  // vitest runs each test file in its own process (the forks pool), so changing directory is the file's own.
  const cwd = process.cwd()
  if (options.cwd !== undefined) process.chdir(options.cwd)
  const restoreOut = capture(process.stdout, out)
  const restoreErr = capture(process.stderr, err)
  try {
    const exit = await Effect.runPromiseExit(program)
    return { code: exitCode(exit), signal: null, stdout: out.join(""), stderr: err.join("") }
  } finally {
    restoreOut()
    restoreErr()
    process.chdir(cwd)
  }
}
