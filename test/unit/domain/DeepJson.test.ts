// #21 point 5: a questions file nested 3,000 deep (.jsonl, .json, a folder file) or a --prices file as deep
// ended in "internal error (please report it): RangeError: Maximum call stack size exceeded" while the
// error was formatted. Every user JSON is refused past 64 levels, in one line naming the file and the limit.
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Either, Exit, Option, Schema } from "effect"
import { join } from "node:path"
import { describeFailure } from "../../../src/cli/ErrorReport.js"
import { loadPrices } from "../../../src/cli/shared/Prices.js"
import { decodeUserJson, maxJsonDepth, parseUserJson, tooDeepAt } from "../../../src/domain/UserJson.js"
import { parseLabels } from "../../../src/programs/prompts/PromptPack.js"
import { loadQuestions } from "../../../src/programs/questions/QuestionLoader.js"
import { scopedTempDir } from "../../support/TempDir.js"

const deep = (n: number, inner = "1") => `${"[".repeat(n)}${inner}${"]".repeat(n)}`
const deepObject = (n: number) => `${"{\"a\":".repeat(n)}1${"}".repeat(n)}`
const row = (question: string) =>
  `{"videoID":"v1","question_id":"q1","task_type":"Counting Problem","question":${question},"options":["A. a","B. b"],"answer":"A"}`

/** The one line `vtree` prints for a failed effect. */
const lineOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(self), (exit) => (Exit.isFailure(exit) ? describeFailure(exit.cause) ?? "" : "succeeded"))

describe("the depth limit", () => {
  it("counts brackets outside strings only, without recursion", () => {
    assert.strictEqual(tooDeepAt(deep(maxJsonDepth)), undefined)
    assert.strictEqual(tooDeepAt(deep(maxJsonDepth + 1)), maxJsonDepth)
    assert.strictEqual(tooDeepAt(`["${"[".repeat(500)}\\"${"{".repeat(500)}"]`), undefined)
    assert.strictEqual(tooDeepAt(deep(1_000_000)), maxJsonDepth)
  })

  it("parseUserJson and decodeUserJson refuse 3,000 levels in one line naming the file and the limit", () => {
    const parsed = parseUserJson("bench.json", deepObject(3000))
    assert.isTrue(Either.isLeft(parsed) && parsed.left.reason === "TooDeep")
    const decoded = decodeUserJson(Schema.Struct({ a: Schema.Number }), "bench.json", deep(3000))
    assert.isTrue(Either.isLeft(decoded))
    if (Either.isLeft(decoded)) {
      assert.strictEqual(
        decoded.left.message,
        "bench.json: nested more than 64 levels deep (line 1, column 65) — vtree reads JSON at most 64 deep; fix the file"
      )
    }
    const fine = decodeUserJson(Schema.Struct({ a: Schema.Number }), "ok.json", `\uFEFF{"a": 1}`)
    assert.deepStrictEqual(fine, Either.right({ a: 1 }))
  })

  it("prompt labels.json nested too deep is refused in one line", () => {
    const labels = parseLabels(`{"x": ${deep(3000)}}`)
    assert.isTrue(Either.isLeft(labels) && labels.left.startsWith("nested more than 64 levels deep"))
  })
})

layer(NodeContext.layer)("deep user files", (it) => {
  it.scoped("questions as .jsonl, .json and a folder file, and --prices, each 3,000 deep: one vtree: line, no stack", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("deep")
      const jsonl = join(dir, "q.jsonl")
      yield* fs.writeFileString(jsonl, `${row(`"fine"`)}\n${row(deep(3000, "\"x\""))}\n`)
      const array = join(dir, "q.json")
      yield* fs.writeFileString(array, `[${row(deepObject(3000))}]`)
      const folder = join(dir, "folder")
      yield* fs.makeDirectory(folder)
      yield* fs.writeFileString(
        join(folder, "v1.json"),
        `[{"question_id":"q","task_type":"t","question":${deep(3000)},"options":[],"answer":"A"}]`
      )
      const prices = join(dir, "prices.json")
      yield* fs.writeFileString(prices, `{"agent": ${deepObject(3000)}}`)

      const lines = [
        yield* lineOf(loadQuestions(jsonl)),
        yield* lineOf(loadQuestions(array)),
        yield* lineOf(loadQuestions(folder)),
        yield* lineOf(loadPrices(Option.some(prices)))
      ]
      for (const line of lines) {
        assert.notInclude(line, "internal error")
        assert.notInclude(line, "\n")
        assert.include(line, "nested more than 64 levels deep")
      }
      assert.include(lines[0], `${jsonl}: nested more than 64 levels deep (line 2)`)
      assert.include(lines[1], array)
      assert.include(lines[2], join(folder, "v1.json"))
      assert.include(lines[3], prices)
    }))
})
