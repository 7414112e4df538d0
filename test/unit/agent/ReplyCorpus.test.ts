import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { readdirSync, readFileSync } from "node:fs"
import { parseAgentReply } from "../../../src/programs/agent/Parse.js"
import { mutate, mutations } from "../../support/agent/Mutations.js"

const folder = new URL("../../fixtures/replies/", import.meta.url)

interface Expectation {
  readonly tool?: string
  readonly shapes?: ReadonlyArray<string>
  readonly thought?: string
  readonly args?: Readonly<Record<string, unknown>>
  readonly refused?: string
}

const cases = Object.entries(
  JSON.parse(readFileSync(new URL("cases.json", folder), "utf8")) as Record<string, Expectation | string>
)
  .filter((entry): entry is [string, Expectation] => !entry[0].startsWith("_"))
const replies = cases.map(([file]) => readFileSync(new URL(file, folder), "utf8"))

// Every observe_frame case asks about the same event; the arguments must come through whole.
const eventArgs = { node_ids: ["vid_L1_001_L2_001"], question: "How many eggs?" }

describe("reply corpus (test/fixtures/replies)", () => {
  it("has an expectation for every reply file and a file for every expectation", () => {
    const files = readdirSync(folder).filter((name) => name.endsWith(".txt")).sort()
    assert.deepStrictEqual(files, cases.map(([file]) => file).sort())
  })

  for (const [file, expected] of cases) {
    it(file, () => {
      const result = parseAgentReply(readFileSync(new URL(file, folder), "utf8"))
      if (expected.refused !== undefined) {
        assert.strictEqual(result._tag, "Unparseable")
        if (result._tag === "Unparseable") assert.include(result.reason, expected.refused)
        return
      }
      assert.strictEqual(result._tag, "Parsed", result._tag === "Unparseable" ? result.reason : "")
      if (result._tag !== "Parsed") return
      assert.strictEqual(result.reply.action.tool, expected.tool)
      assert.deepStrictEqual(result.reply.action.args, expected.args ?? eventArgs)
      assert.deepStrictEqual([...result.shapes].sort(), [...(expected.shapes ?? [])].sort())
      if (expected.thought === undefined) assert.isUndefined(result.thought)
      else assert.include(result.thought ?? "", expected.thought)
    })
  }

  it("never throws over mutations of the corpus, and what it accepts has a tool and object args", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...replies),
        mutations(["{", "}", "\"", "```", "<think>", "</think>", "<tool_call>", "[", "\\", ","], 8),
        (reply, changes) => {
          const raw = mutate(reply, changes)
          const result = parseAgentReply(raw)
          if (result._tag === "Parsed") {
            assert.notStrictEqual(result.reply.action.tool.trim(), "")
            assert.isObject(result.reply.action.args)
            assert.isAbove(result.shapes.length, 0)
          } else {
            assert.isNotEmpty(result.reason)
          }
        }
      ),
      { numRuns: 1000 }
    )
  })
})
