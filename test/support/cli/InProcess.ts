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
 * variables never leak in, as with the spawned CLI's clean environment. stdout and stderr are what the
 * command wrote through its TerminalConsole (results, Console, the logger, progress lines), captured by
 * a Layer of its own: runs started together (Promise.all) go on side by side. Only a run given a `cwd`
 * changes something global, the process's directory, so it waits for the runs going on and the others
 * wait for it.
 */
import { ConfigProvider, Effect } from "effect"
import { cliProgram, exitCode } from "../../../src/cli/Program.js"
import type { CliResult } from "../harness/Cli.js"
import { capturedTerminal, type TerminalOptions } from "./CapturedTerminal.js"

export interface RunOptions extends TerminalOptions {
  /** The working directory for this run (relative paths, the default vtree.db); the test's own otherwise. */
  readonly cwd?: string
}

/** Runs in progress, and the run that changed directory (if one is going on), which every run waits for. */
const running = new Set<Promise<unknown>>()
let moved: Promise<unknown> = Promise.resolve()

/** Runs `vtree …args` in-process with exactly `env` as its configuration. */
export const runCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  options: RunOptions = {}
): Promise<CliResult> => {
  const before = options.cwd === undefined ? moved : Promise.all([moved, ...running])
  const result = before.catch(() => undefined).then(() => runNow(args, env, options))
  const settled = result.catch(() => undefined)
  if (options.cwd === undefined) {
    running.add(settled)
    void settled.then(() => running.delete(settled))
  } else {
    moved = settled
  }
  return result
}

const runNow = async (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: RunOptions
): Promise<CliResult> => {
  const terminal = capturedTerminal(options)
  const program = cliProgram(["node", "vtree", ...args]).pipe(
    Effect.provide(terminal.layer),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
  )
  // vitest runs each test file in its own process (the forks pool), so changing directory is the file's own.
  const cwd = process.cwd()
  if (options.cwd !== undefined) process.chdir(options.cwd)
  try {
    const exit = await Effect.runPromiseExit(program)
    return { code: exitCode(exit), signal: null, stdout: terminal.stdout(), stderr: terminal.stderr() }
  } finally {
    process.chdir(cwd)
  }
}
