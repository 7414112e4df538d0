import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import {
  decodeIssues,
  firstDecodeIssue,
  formatPath,
  issueLine,
  jsonSyntaxProblem,
  storedRowProblem
} from "../../../src/domain/DecodeIssue.js"

const Row = Schema.Struct({
  id: Schema.String,
  time_range: Schema.Tuple(Schema.Number, Schema.Number),
  query: Schema.String.pipe(Schema.maxLength(3, { message: () => "query: at most 3 characters" }))
})

const failure = (value: unknown, errors: "first" | "all" = "first") => {
  const decoded = Schema.decodeUnknownEither(Row, { errors })(value)
  if (Either.isRight(decoded)) throw new Error("expected the decode to fail")
  return decoded.left
}

describe("DecodeIssue", () => {
  it("writes paths as people search for them: dots for keys, brackets for indexes", () => {
    assert.strictEqual(formatPath(["nodes", "X_L1_000", "time_range", 0]), "nodes.X_L1_000.time_range[0]")
    assert.strictEqual(formatPath([2, "options", 1]), "[2].options[1]")
    assert.strictEqual(formatPath([]), "")
  })

  it("locates the first issue inside its document, with its kind", () => {
    const issue = firstDecodeIssue(failure({ id: "a", time_range: [1, "x"], query: "q" }), ["nodes", "a"])
    assert.strictEqual(issue.tag, "Type")
    assert.deepStrictEqual(issue.path, ["nodes", "a", "time_range", 1])
    assert.strictEqual(issue.field, "nodes.a.time_range[1]")
    assert.include(issue.message, "Expected number")
  })

  it("tells a missing field from a wrong one", () => {
    const issue = firstDecodeIssue(failure({ time_range: [1, 2], query: "q" }))
    assert.strictEqual(issue.tag, "Missing")
    assert.strictEqual(issue.field, "id")
  })

  it("puts the field in front of a message, unless the message already names it", () => {
    const issues = decodeIssues(failure({ id: 1, time_range: [1, 2], query: "long" }, "all"))
    assert.deepStrictEqual(issues.map((issue) => issue.field), ["id", "query"])
    assert.match(issueLine(issues[0]!), /^id: Expected string, actual 1$/)
    assert.strictEqual(issueLine(issues[1]!), "query: at most 3 characters")
  })

  it("reports a wrong value at the root without a path", () => {
    const issue = firstDecodeIssue(failure("not an object"))
    assert.strictEqual(issue.field, "")
    assert.strictEqual(issueLine(issue), issue.message)
  })
})

describe("storedRowProblem", () => {
  it("names the table by the row's key columns, the row by its key, and the field", () => {
    const Rows = Schema.Array(
      Schema.Struct({
        run_id: Schema.String,
        question_id: Schema.String,
        options_json: Schema.parseJson(Schema.Array(Schema.String))
      })
    )
    const decoded = Schema.decodeUnknownEither(Rows, { errors: "first" })([
      { run_id: "r1", question_id: "q1", options_json: "[]" },
      { run_id: "r1", question_id: "q2", options_json: "[1]" }
    ])
    assert.isTrue(Either.isLeft(decoded))
    if (Either.isLeft(decoded)) {
      assert.strictEqual(
        storedRowProblem(decoded.left).split(": ").slice(0, 2).join(": "),
        "predictions row run_id=r1 question_id=q2: options_json[0]"
      )
    }
  })
})

describe("jsonSyntaxProblem", () => {
  const decodeText = Schema.decodeUnknownEither(Schema.parseJson(Row), { errors: "first" })
  const errorOf = (text: string) =>
    Either.match(decodeText(text), { onLeft: (error) => error, onRight: () => assert.fail("expected a failure") })

  it("is the parser's complaint when the text is not JSON, and undefined when a field is wrong", () => {
    let parserSays = ""
    try {
      JSON.parse(`{"id": }`)
    } catch (error) {
      parserSays = (error as Error).message
    }
    assert.strictEqual(jsonSyntaxProblem(errorOf(`{"id": }`)), parserSays)
    const wrongField = errorOf(`{"id": 1, "time_range": [0, 1], "query": "a"}`)
    assert.isUndefined(jsonSyntaxProblem(wrongField))
    assert.strictEqual(firstDecodeIssue(wrongField).field, "id")
  })
})
