import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { commandHelps, configurationTable, docs, end, root, splice, start } from "../../../scripts/gen-docs.js"

const flags = (text: string): Set<string> => new Set(text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])

/** README and every docs/ page, the generated reference left out (its usage lines are the CLI's own). */
const pages = () =>
  ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)]
    .map((page) => ({ page, text: readFileSync(join(root, page), "utf8").split(start)[0]! }))

describe("generated docs", () => {
  it("the checked-in generated parts are what `npm run docs` writes now", () => {
    for (const { current, expected, path } of docs()) {
      assert.strictEqual(current, expected, `${path} is stale: run npm run docs`)
    }
  }, 60_000)

  it("the variable table lists what the config modules read, fallbacks and conditional reads included", () => {
    const table = configurationTable()
    for (const name of ["VTREE_LLM_MODEL", "OPENAI_API_KEY", "VTREE_JUDGE_TIMEOUT_SECONDS", "VTREE_ASR_LANGUAGE"]) {
      assert.include(table, `| \`${name}\` |`)
    }
  })

  it("the generator runs every loader src/config exports: a new config module cannot be left out of the table", () => {
    const generator = readFileSync(join(root, "scripts/gen-docs.ts"), "utf8")
    // The per-role loaders and loadProvidersConfig read what loadRoleConfigs reads, which the generator runs.
    const throughRoles = new Set([
      "loadLlmConfig",
      "loadVlmConfig",
      "loadEmbeddingConfig",
      "loadOcrConfig",
      "loadProvidersConfig"
    ])
    const dir = join(root, "src/config")
    const exported = readdirSync(dir).flatMap((file) =>
      [...readFileSync(join(dir, file), "utf8").matchAll(/^export const (load\w*)/gm)].map((m) => m[1]!)
    )
    const missing = exported.filter((name) => !throughRoles.has(name) && !generator.includes(name))
    assert.deepStrictEqual(missing, [], "add them to scripts/gen-docs.ts's loaders")
  })

  it("every `vtree COMMAND … --flag` written in README and docs/ is an option that command has", () => {
    const helps = commandHelps()
    const everywhere = flags(helps.find(({ name }) => name === "vtree")!.help)
    const options = new Map(helps.map(({ name, usage }) => [name, flags(usage)]))
    // `vtree tree import …` before `vtree tree`: the longest name that fits is the command.
    const names = [...options.keys()].sort((a, b) => b.length - a.length)
    const wrong = pages().flatMap(({ page, text }) =>
      [...text.matchAll(/\bvtree (?:[a-z]+ )?[a-z]+(?:[^`\n]|\\\n)*/g)].flatMap(
        ([mention]) => {
          const name = names.find((candidate) => mention.startsWith(`${candidate} `) || mention === candidate)
          if (name === undefined || name === "vtree") return []
          const known = options.get(name)!
          return [...flags(mention)].filter((flag) => !known.has(flag) && !everywhere.has(flag)).map((flag) =>
            `${page}: ${name} has no ${flag}: ${mention.slice(0, 80)}`
          )
        }
      )
    )
    assert.deepStrictEqual(wrong, [])
  })

  it("keeps the hand-written text around the markers and refuses a file without them", () => {
    const page = `intro\n${start}\nold\n${end}\noutro\n`
    assert.strictEqual(splice("page.md", page, "new"), `intro\n${start}\n\nnew\n\n${end}\noutro\n`)
    assert.throws(() => splice("page.md", "no markers", "new"), /page\.md: no .* markers/)
  })
})
