import { assert, describe, it } from "@effect/vitest"
import { LogLevel } from "effect"
import { liftLogLevel, missingOptionLine } from "../../../src/cli/CommandLine.js"

const argv = (...args: Array<string>) => ["node", "vtree", ...args]

describe("liftLogLevel", () => {
  it("takes --log-level out of the line wherever it stands, in both spellings; the last one wins", () => {
    assert.deepStrictEqual(liftLogLevel(argv("infer", "--db", "x", "--log-level", "debug")), {
      argv: argv("infer", "--db", "x"),
      level: LogLevel.Debug
    })
    assert.deepStrictEqual(liftLogLevel(argv("--log-level=warning", "runs", "--log-level", "Trace")), {
      argv: argv("runs"),
      level: LogLevel.Trace
    })
  })

  it("leaves a value that names no level in place, for @effect/cli to refuse", () => {
    assert.deepStrictEqual(liftLogLevel(argv("runs", "--log-level", "loud")), {
      argv: argv("runs", "--log-level", "loud"),
      level: undefined
    })
    assert.deepStrictEqual(liftLogLevel(argv("runs", "--log-level")), {
      argv: argv("runs", "--log-level"),
      level: undefined
    })
  })
})

describe("missingOptionLine", () => {
  it("says which option is missing and where its help is; leaves other text alone", () => {
    assert.strictEqual(
      missingOptionLine("Expected to find option: '--out'", argv("tree", "import", "--videos", "v")),
      "vtree: --out is required — pass it (`vtree tree import --help` lists the options)"
    )
    assert.isUndefined(missingOptionLine("Received unknown argument: '--x'", argv("runs")))
  })
})
