// What a failed command prints: a user's error is one tidy line; anything else — a library error that escaped
// with a perfectly readable `message`, a defect — is named an internal error, with its details after it.
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { Cause, FiberId } from "effect"
import { UsageError } from "../../../src/cli/CliError.js"
import { describeFailure } from "../../../src/cli/ErrorReport.js"
import { ConfigurationError } from "../../../src/config/ConfigurationError.js"

describe("describeFailure", () => {
  it("prints a user's error as one vtree: line, its message's first line only", () => {
    const error = new ConfigurationError({ reason: "Missing", variable: "VTREE_LLM_MODEL", message: "set it\nmore" })
    assert.strictEqual(describeFailure(Cause.fail(error)), "vtree: set it")
    const usage = new UsageError({ reason: "InvalidValue", option: "--x", message: "--x 3: no" })
    assert.strictEqual(describeFailure(Cause.fail(usage)), "vtree: --x 3: no")
  })

  it("a library error with a message that escaped is an internal error, never a tidy line", () => {
    const leaked = new SqlError({ message: "Failed to execute statement", cause: new Error("disk I/O error") })
    const lines = describeFailure(Cause.fail(leaked))!.split("\n")
    assert.strictEqual(lines[0], "vtree: internal error — SqlError: Failed to execute statement")
    assert.match(lines[1]!, /bug in vtree.*details follow/)
    assert.isAbove(lines.length, 2)
    const plain = describeFailure(Cause.fail({ message: "looks tidy" }))!
    assert.match(plain, /^vtree: internal error — Object: looks tidy\n/)
  })

  it("a defect is an internal error naming it; an interruption prints nothing", () => {
    assert.match(
      describeFailure(Cause.die(new RangeError("too deep")))!,
      /^vtree: internal error — RangeError: too deep\n/
    )
    assert.strictEqual(describeFailure(Cause.interrupt(FiberId.none)), undefined)
  })

  it("control characters in the message are shown, not obeyed", () => {
    const error = new ConfigurationError({ reason: "Invalid", variable: "X", message: "bad \u001b[31mred" })
    assert.notInclude(describeFailure(Cause.fail(error))!, "\u001b")
  })
})
