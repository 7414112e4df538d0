// The source, the README and docs/ explain themselves: no pointer to a design document outside the repository,
// no issue number standing in for the reason, and one spelling of the command in their examples.
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "../../support/harness/Cli.js"

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith(".ts")
      ? [join(dir, entry.name)]
      : []
  )

/** A reference that sends the reader elsewhere: `DESIGN §4`, `issue 11`, `issue #21`, `(#15)`. */
const elsewhere = [/DESIGN|§/, /\bissues? #?\d+|\(#\d+\)/i]

const offending = (file: string) =>
  readFileSync(file, "utf8").split("\n").flatMap((line, i) =>
    elsewhere.some((pattern) => pattern.test(line)) ? [`${file.slice(root.length)}:${i + 1}: ${line.trim()}`] : []
  )

/** The README and every page of docs/ (the README's long text lives there). */
const pages = [
  join(root, "README.md"),
  ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => join(root, "docs", name))
]

describe("self-contained docs", () => {
  it("src, README and docs/ name no design section and no issue number", () => {
    const found = [...sources(join(root, "src")), ...pages].flatMap(offending)
    assert.deepStrictEqual(found, [])
  })

  it("the command lines of README and docs/ run the CLI as `npx vtree`", () => {
    // docs/cli.md's generated help prints usage lines (`vtree infer --trees text …`), not shell commands.
    const blocks = pages.filter((page) => !page.endsWith("cli.md")).flatMap((page) =>
      readFileSync(page, "utf8").split("```").filter((_, i) => i % 2 === 1)
    )
    const lines = blocks.flatMap((block) => block.split("\n"))
    // An MCP client's configuration names the built file by its absolute path: that is no shell command.
    assert.deepStrictEqual(lines.filter((line) => /(^|\$ |\s)node dist\/bin\.js/.test(line)), [])
    const commands = lines.filter((line) =>
      /(^|\$ |\s)vtree (infer|report|build|tree|runs|export|doctor|mcp)\b/.test(line)
    )
    assert.isAbove(commands.length, 0)
    assert.deepStrictEqual(commands.filter((line) => !/npx vtree /.test(line)), [])
  })
})
