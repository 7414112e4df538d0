import { Command, HelpDoc, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { stripVTControlCharacters } from "node:util"
import { rootCommand } from "../../../src/cli/Root.js"
import { capturedTerminal } from "../../support/cli/CapturedTerminal.js"

// Parses the real command line in process: a refused flag never reaches a handler, so nothing runs.
const cli = Command.run(rootCommand, { name: "vtree", version: "test" })

const refusal = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const printed: Array<string> = []
    const capture = (...lines: ReadonlyArray<unknown>) =>
      Effect.sync(() => void printed.push(lines.map(String).join(" ")))
    const error = yield* cli(["node", "vtree", ...args]).pipe(
      (self) =>
        Console.consoleWith((console) => Console.withConsole(self, { ...console, log: capture, error: capture })),
      Effect.flip
    )
    return { error, printed: stripVTControlCharacters(printed.join("\n")).trim() }
  }).pipe(Effect.provide([NodeContext.layer, capturedTerminal().layer]))

describe("integer flags", () => {
  for (
    const [args, line] of [
      [["build", "v.mp4", "--out", "o", "--concurrency", "0"], "vtree: --concurrency 0: expected a whole number ≥ 1"],
      [
        ["build", "v.mp4", "--out", "o", "--frames-per-call", "two"],
        "vtree: --frames-per-call two: expected a whole number ≥ 1"
      ],
      [["build", "v.mp4", "--out", "o", "--frame-width", "8"], "vtree: --frame-width 8: expected a whole number ≥ 32"],
      [["infer", "--trees", "t", "--concurrency", "0"], "vtree: --concurrency 0: expected a whole number ≥ 1"],
      [["tree", "search", "-k", "1.5", "t", "q"], "vtree: -k 1.5: expected a whole number ≥ 1"]
    ] as const
  ) {
    it.effect(`${args.join(" ")} is refused with one line`, () =>
      Effect.gen(function*() {
        const { error, printed } = yield* refusal(args)
        assert.isTrue(ValidationError.isValidationError(error))
        assert.strictEqual(
          ValidationError.isValidationError(error)
            ? stripVTControlCharacters(HelpDoc.toAnsiText(error.error)).trim()
            : "",
          line
        )
        assert.strictEqual(printed, line)
      }))
  }
})
