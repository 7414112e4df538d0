import { assert, describe, it } from "@effect/vitest"
import { configurationTable, docs, end, splice, start } from "../../../scripts/gen-docs.js"

// docs/configuration.md's variable table and docs/cli.md's help are read off the code by scripts/gen-docs.ts;
// this is how a change to a flag or a variable that left them stale fails `npm test` (and CI).
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

  it("keeps the hand-written text around the markers and refuses a file without them", () => {
    const page = `intro\n${start}\nold\n${end}\noutro\n`
    assert.strictEqual(splice("page.md", page, "new"), `intro\n${start}\n\nnew\n\n${end}\noutro\n`)
    assert.throws(() => splice("page.md", "no markers", "new"), /page\.md: no .* markers/)
  })
})
