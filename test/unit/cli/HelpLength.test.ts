import { CliConfig, CommandDescriptor, HelpDoc } from "@effect/cli"
import { assert, describe, it } from "@effect/vitest"
import { stripVTControlCharacters } from "node:util"
import { commands, type Node } from "../../../scripts/gen-docs.js"
import { rootCommand } from "../../../src/cli/Root.js"

// Walks @effect/cli's descriptors in process: every command and subcommand, then every paragraph of its
// help (the command's description, each option's and argument's). docs/ holds the long story.

const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Paragraph":
      return [stripVTControlCharacters(HelpDoc.toAnsiText(doc)).trim()]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "DescriptionList":
      return doc.definitions.flatMap(([, description]) => paragraphs(description))
    case "Enumeration":
      return doc.elements.flatMap(paragraphs)
    default:
      return []
  }
}

const all = commands((rootCommand as unknown as { readonly descriptor: Node }).descriptor)
const helps = all.map((command) => ({
  name: CommandDescriptor.getNames(command),
  lines: paragraphs(CommandDescriptor.getHelp(command, CliConfig.defaultConfig))
}))

describe("--help", () => {
  it("walks every command: root, the eleven subcommands and tree's nine", () => {
    assert.strictEqual(all.length, 1 + 11 + 9)
    assert.isTrue(helps.every(({ lines }) => lines.length > 0))
  })

  it("no description line is over 200 characters", () => {
    const long = helps.flatMap(({ lines, name }) =>
      lines.filter((line) => line.length > 200).map((line) =>
        `${[...name].join("/")}: ${line.length}: ${line.slice(0, 60)}…`
      )
    )
    assert.deepStrictEqual(long, [], long.join("\n"))
  })
})
