import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ESLint } from "eslint"
import { fileURLToPath } from "node:url"

// The dependency rules of docs/architecture.md are ESLint errors (eslint.config.mjs): a planted import is linted in place of a file
// under src/, so each case costs one parse, not a lint of the tree.
const root = fileURLToPath(new URL("../../..", import.meta.url))
const eslint = new ESLint({ cwd: root })

const boundaryRules = new Set(["import-x/no-restricted-paths", "no-restricted-properties", "no-restricted-imports"])

const violations = (filePath: string, code: string) =>
  Effect.promise(() => eslint.lintText(`${code}\n`, { filePath })).pipe(
    Effect.map((results) =>
      results.flatMap((result) => result.messages).filter((message) => boundaryRules.has(message.ruleId ?? ""))
        .map((message) => message.message)
    )
  )

const assertForbidden = (filePath: string, code: string, rule: string) =>
  Effect.gen(function*() {
    const messages = yield* violations(filePath, code)
    assert.strictEqual(messages.length, 1, `${filePath}: ${code} → ${JSON.stringify(messages)}`)
    assert.include(messages[0], rule)
    assert.include(messages[0], "docs/architecture.md")
  })

describe("lint: the dependency rules of docs/architecture.md", () => {
  it.effect("a program importing an adapter fails", () =>
    assertForbidden(
      "src/programs/agent/Planted.ts",
      `import { OpenAiLlm } from "../../layers/openai/OpenAiLlm.js"\nexport const planted = OpenAiLlm`,
      "a program asks for ports with `yield* Tag` and never imports a layer"
    ))

  it.effect("domain importing a port fails", () =>
    assertForbidden(
      "src/domain/Planted.ts",
      `import type { CallLog } from "../services/CallLog.js"\nexport type Planted = CallLog`,
      "domain/ imports only domain/"
    ))

  it.effect("the package's entry point importing the CLI fails", () =>
    assertForbidden(
      "src/index.ts",
      `export { cliProgram } from "./cli/Program.js"`,
      "the package's entry points never import cli/"
    ))

  it.effect("an adapter importing a program or another adapter fails", () =>
    Effect.gen(function*() {
      yield* assertForbidden(
        "src/layers/sharp/Planted.ts",
        `import { loadTreeEnvironment } from "../../programs/tree/TreeEnvironment.js"\nexport const planted = loadTreeEnvironment`,
        "an adapter (layers/) imports ports, domain, config and layers/shared/, never a program"
      )
      yield* assertForbidden(
        "src/layers/sharp/Planted.ts",
        `export * from "../openai/OpenAiErrors.js"`,
        "an adapter imports no other adapter"
      )
    }))

  it.effect("the public API importing the CLI fails", () =>
    assertForbidden(
      "src/api/Planted.ts",
      `export * from "../cli/CliError.js"`,
      "the public API (api/) never imports cli/"
    ))

  it.effect("a CLI module other than a *Layers.ts building an adapter fails", () =>
    Effect.gen(function*() {
      yield* assertForbidden(
        "src/cli/infer/Planted.ts",
        `export * from "../../layers/openai/OpenAiLlm.js"`,
        "in cli/ only a *Layers.ts module builds adapters"
      )
      yield* assertForbidden(
        "src/cli/Planted.ts",
        `export * from "../LiveSearchHub.js"`,
        "in cli/ only a *Layers.ts module builds adapters"
      )
    }))

  it.effect("a program folder importing one that depends on it fails", () =>
    Effect.gen(function*() {
      yield* assertForbidden(
        "src/programs/tree/Planted.ts",
        `export * from "../report/Report.js"`,
        "programs/report reads trees, not the other way"
      )
      yield* assertForbidden(
        "src/programs/harness/Planted.ts",
        `export * from "../report/RunSettings.js"`,
        "programs/report reads what the harness saved, not the other way"
      )
      yield* assertForbidden(
        "src/programs/benchmarks/Planted.ts",
        `export * from "../questions/QuestionLoader.js"`,
        "programs/questions uses programs/benchmarks, not the other way"
      )
      yield* assertForbidden(
        "src/programs/builder/Planted.ts",
        `export * from "../import/ImportTree.js"`,
        "programs/import uses builder and tree, not the other way"
      )
    }))

  it.effect("reading an environment variable outside src/config fails", () =>
    Effect.gen(function*() {
      yield* assertForbidden(
        "src/programs/harness/Planted.ts",
        `export const planted = process.env["VTREE_X"]`,
        "nothing outside src/config/ reads an environment variable"
      )
      yield* assertForbidden(
        "src/layers/openai/Planted.ts",
        `import { Config } from "effect"\nexport const planted = Config.string("VTREE_X")`,
        "nothing outside src/config/ reads configuration"
      )
    }))

  it.effect("writing with console in src/ fails: lines go through the TerminalConsole", () =>
    Effect.gen(function*() {
      const results = yield* Effect.promise(() =>
        eslint.lintText(`console.log("x")\n`, { filePath: "src/programs/report/Planted.ts" })
      )
      assert.deepStrictEqual(results.flatMap((result) => result.messages).map((message) => message.ruleId), [
        "no-console"
      ])
    }))

  it.effect("the imports README allows pass", () =>
    Effect.gen(function*() {
      const allowed: ReadonlyArray<readonly [string, string]> = [
        ["src/programs/agent/Planted.ts", `export * from "../../services/LLMProvider.js"`],
        ["src/programs/questions/Planted.ts", `export * from "../benchmarks/Benchmark.js"`],
        ["src/layers/monkeyocr/Planted.ts", `export * from "../openai/OpenAiErrors.js"`],
        ["src/layers/openai/Planted.ts", `export * from "../shared/Reliability.js"`],
        ["src/cli/infer/PlantedLayers.ts", `export * from "../../layers/openai/OpenAiLlm.js"`],
        ["src/config/Planted.ts", `export const planted = process.env["VTREE_X"]`],
        ["src/search.ts", `export * from "./api/Search.js"`]
      ]
      for (const [filePath, code] of allowed) {
        assert.deepStrictEqual(yield* violations(filePath, code), [], `${filePath}: ${code}`)
      }
    }))
})
