// Every line a command writes goes through TerminalConsole: a test hands the CLI buffers instead of the
// process's streams, so nothing global is patched and in-process runs may go on side by side.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect, Option } from "effect"
import { cliProgram } from "../../../src/cli/Program.js"
import { writeResult } from "../../../src/cli/shared/OutputFile.js"
import { TerminalConsole, withTerminalConsole } from "../../../src/cli/TerminalConsole.js"
import { capturedTerminal } from "../../support/cli/CapturedTerminal.js"
import { runCli } from "../../support/cli/InProcess.js"

const title = "\x1b]0;pwned\x07"
const data = (body: string) => writeResult({ body, out: Option.none(), inputs: [], data: true, what: "results" })

describe("TerminalConsole", () => {
  it.effect("machine output keeps its bytes when stdout is a file or a pipe, and is rendered on a terminal", () =>
    Effect.gen(function*() {
      const piped = capturedTerminal()
      yield* data(`{"task":"${title}"}`).pipe(Effect.provide([piped.layer, NodeContext.layer]))
      assert.strictEqual(piped.stdout(), `{"task":"${title}"}\n`)
      const tty = capturedTerminal({ isTTY: true })
      yield* data(`{"task":"${title}"}`).pipe(Effect.provide([tty.layer, NodeContext.layer]))
      assert.strictEqual(tty.stdout(), `{"task":"\\x1b]0;pwned\\x07"}\n`)
      assert.strictEqual(piped.stderr() + tty.stderr(), "")
    }))

  it.effect("Console.log, Console.error and the logger of a CLI run reach its own streams, rendered", () =>
    Effect.gen(function*() {
      const terminal = capturedTerminal()
      yield* cliProgram(["node", "vtree", "--version"]).pipe(Effect.provide(terminal.layer))
      assert.match(terminal.stdout(), /^\d+\.\d+\.\d+/)
      assert.strictEqual(terminal.stderr(), "")
    }))

  it("runs started together each capture their own output", async () => {
    const [infer, report, version] = await Promise.all([
      runCli(["infer", "--help"]),
      runCli(["report", "--help"]),
      runCli(["--version"])
    ])
    assert.include(infer.stdout, "$ vtree infer")
    assert.notInclude(infer.stdout, "$ vtree report")
    assert.include(report.stdout, "$ vtree report")
    assert.notInclude(report.stdout, "$ vtree infer")
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n+$/)
  })

  it.effect("a progress line written to the service keeps its place between Console lines", () =>
    Effect.gen(function*() {
      const terminal = capturedTerminal()
      yield* withTerminalConsole(Effect.gen(function*() {
        const { stderr } = yield* TerminalConsole
        yield* Console.error("first")
        stderr.unsafeWrite("progress\n")
        yield* Console.error("last")
      })).pipe(Effect.provide(terminal.layer))
      assert.strictEqual(terminal.stderr(), "first\nprogress\nlast\n")
    }))
})
