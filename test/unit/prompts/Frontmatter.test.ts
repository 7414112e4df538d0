import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { parseFrontmatter } from "../../../src/programs/prompts/Frontmatter.js"

const ok = (text: string) => {
  const result = parseFrontmatter(text)
  if (Either.isLeft(result)) assert.fail(`expected a parse, got: ${result.left}`)
  return result.right
}
const err = (text: string) => {
  const result = parseFrontmatter(text)
  if (Either.isRight(result)) assert.fail(`expected an error for ${JSON.stringify(text)}`)
  return result.left
}

describe("parseFrontmatter", () => {
  it("reads plain, quoted and boolean values and returns the body after the fence", () => {
    const { body, data } = ok(
      [
        "---",
        "name: counting",
        "description: \"How many: count \\\"twice\\\"\"",
        "task_type: 'Counting Problem'",
        "always: false",
        "title: it's # not a comment",
        "---",
        "",
        "## Body",
        "text"
      ].join("\n")
    )
    assert.deepStrictEqual(data, {
      name: "counting",
      description: "How many: count \"twice\"",
      task_type: "Counting Problem",
      always: false,
      title: "it's"
    })
    assert.strictEqual(body, "## Body\ntext")
  })

  it("keeps '#' inside a word, drops a trailing comment, and doubles single quotes", () => {
    const { data } = ok("---\nname: c#sharp  # the language\nnote: 'don''t'\n---\n")
    assert.deepStrictEqual(data, { name: "c#sharp", note: "don't" })
  })

  it("handles CRLF line ends, a BOM, blank lines and comment lines", () => {
    const { body, data } = ok("\uFEFF---\r\n# a note\r\n\r\nname: x\r\nalways: true\r\n---\r\nbody\r\n")
    assert.deepStrictEqual(data, { name: "x", always: true })
    assert.strictEqual(body, "body\n")
  })

  it("treats an empty value, ~ and null as absent", () => {
    const { data } = ok("---\nname:\ndescription: ~\ntask_type: null\nalways: # later\n---\n")
    assert.deepStrictEqual(data, {})
  })

  it("keeps a quoted 'true' as text", () => {
    assert.deepStrictEqual(ok("---\nname: \"true\"\n---\n").data, { name: "true" })
  })

  it("returns the whole text as body when there is no frontmatter", () => {
    const { body, data } = ok("# Just a note\nname: not a header\n")
    assert.deepStrictEqual(data, {})
    assert.strictEqual(body, "# Just a note\nname: not a header\n")
  })

  it("rejects an unclosed header", () => {
    assert.include(err("---\nname: x\nbody"), "never closed")
  })

  it("rejects lines that are not 'key: value', naming the line", () => {
    assert.include(err("---\nname: x\njust words\n---\n"), "line 3")
  })

  it("reads YAML lists and block scalars; the reader's schema decides what a key may hold", () => {
    const { data } = ok("---\ntags: [a, b]\ndescription: |\n  two\n  lines\n---\n")
    assert.deepStrictEqual(data, { tags: ["a", "b"], description: "two\nlines\n" })
  })

  it("rejects a header that is not a mapping, and broken nesting, naming the line", () => {
    assert.include(err("---\n- a\n---\n"), "'key: value'")
    assert.include(err("---\nname: x\n  nested: y\n---\n"), "line 2")
  })

  it("rejects a repeated key and broken quotes, naming the line", () => {
    const repeated = err("---\nname: a\nname: b\n---\n")
    assert.include(repeated, "line 3")
    assert.include(repeated, "unique")
    assert.include(err("---\nname: \"open\n---\n"), "Missing closing \"quote")
    assert.include(err("---\nname: 'open\n---\n"), "Missing closing 'quote")
    assert.include(err("---\nname: \"a\" b\n---\n"), "line 2")
  })
})
