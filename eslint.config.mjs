import * as effectEslint from "@effect/eslint-plugin"
import importX, { createNodeResolver } from "eslint-plugin-import-x"
import { readdirSync } from "node:fs"
import tseslint from "typescript-eslint"

// README's dependency rules (Architecture): entry → cli/api → programs/layers → config → services/text → domain,
// no arrow back up. Each zone forbids `target` importing `from`; the message names the rule and where the code goes.
const rule = "README, Architecture"
const entries = ["src/index.ts", "src/search.ts", "src/main.ts", "src/bin.ts"]
// Wires the search adapters into the hub: composition, imported by cli/ and api/ only.
const searchComposition = "src/LiveSearchHub.ts"
const forbid = (target, froms, message) => froms.map((from) => ({ target, from, message: `${message} (${rule})` }))
// Every adapter folder, so a new one is held to the rule without editing this file.
const layerFolders = readdirSync(new URL("src/layers", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
// An adapter may use another adapter's module only where listed here (MonkeyOCR speaks OpenAI's error format).
const layerExceptions = { monkeyocr: ["./openai/OpenAiErrors.ts"] }
const boundaries = [
  ...forbid("src/domain", [
    "src/services",
    "src/text",
    "src/config",
    "src/programs",
    "src/layers",
    "src/cli",
    "src/api",
    searchComposition,
    "src/PackageRoot.ts",
    ...entries
  ], "domain/ imports only domain/: move the shared code into domain/"),
  ...forbid("src/services", [
    "src/text",
    "src/config",
    "src/programs",
    "src/layers",
    "src/cli",
    "src/api",
    searchComposition,
    ...entries
  ], "a port (services/) speaks only domain/ types: move what it needs into domain/"),
  ...forbid("src/text", [
    "src/services",
    "src/config",
    "src/programs",
    "src/layers",
    "src/cli",
    "src/api",
    searchComposition,
    ...entries
  ], "text/ imports only domain/: pass the value in instead"),
  ...forbid(
    "src/config",
    ["src/programs", "src/layers", "src/cli", "src/api", searchComposition, ...entries],
    "config/ sits below programs and layers: it may import services/, text/ and domain/ only"
  ),
  ...forbid(
    "src/programs",
    ["src/layers", "src/cli", "src/api", searchComposition, ...entries],
    "a program asks for ports with `yield* Tag` and never imports a layer, the CLI or the API: put what it needs in services/ or domain/, and choose the layer in cli/composition/"
  ),
  ...forbid(
    "src/layers",
    ["src/programs", "src/cli", "src/api", searchComposition, ...entries],
    "an adapter (layers/) imports ports, domain, config and layers/shared/, never a program, the CLI or the API: move what both need into layers/shared/, services/ or domain/"
  ),
  ...layerFolders.map((folder) => ({
    target: `src/layers/${folder}`,
    from: "src/layers",
    except: [...new Set([`./${folder}`, "./shared"]), ...(layerExceptions[folder] ?? [])],
    message:
      `an adapter imports no other adapter: move what layers/${folder} shares with it into layers/shared/ (${rule})`
  })),
  ...forbid(
    "src/cli",
    ["src/api", ...entries],
    "cli/ is imported by main.ts only: it never imports the public API or an entry point"
  ),
  ...forbid(
    "src/api",
    ["src/cli", ...entries],
    "the public API (api/) never imports cli/ or an entry point: move the shared code below both"
  ),
  ...forbid(
    ["src/index.ts", "src/search.ts"],
    ["src/cli"],
    "the package's entry points never import cli/: export through api/"
  ),
  ...forbid(
    searchComposition,
    ["src/cli", "src/api", ...entries],
    "LiveSearchHub is composition for cli/ and api/: it never imports them back"
  ),
  // Between program folders the arrows point one way.
  ...forbid(
    "src/programs/benchmarks",
    ["src/programs/questions"],
    "programs/questions uses programs/benchmarks, not the other way: move the shared part into benchmarks/ or domain/"
  ),
  ...forbid(
    "src/programs/tree",
    ["src/programs/report"],
    "programs/report reads trees, not the other way: move the shared part into programs/tree/ or domain/"
  ),
  ...forbid(
    ["src/programs/builder", "src/programs/tree"],
    ["src/programs/import"],
    "programs/import uses builder and tree, not the other way: move the shared part into builder/ or tree/"
  )
  // Pending (issue 38 item 1): the harness stops importing the report folder; then add
  // ...forbid("src/programs/harness", ["src/programs/report"], "programs/report reads what the harness saved, not the other way: move cost, outcomes and the run record below both"),
]

// The formatter is Effect's own dprint settings (as in the Effect-TS/effect repository), run as an ESLint rule so one
// command both formats (`npm run format`) and checks (`npm run lint`). Beside it, the import rules: one import
// statement per module (types apart) and types imported as types, so a type-only dependency never loads a module.
export default [
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "samples/**", "prompts/**", "docs/**"] },
  ...effectEslint.configs.dprint,
  {
    files: ["**/*.ts", "**/*.mjs"],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: "module" },
    plugins: { "@typescript-eslint": tseslint.plugin, "import-x": importX },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "import-x/no-duplicates": "error",
      "@typescript-eslint/consistent-type-imports": ["error", {
        prefer: "type-imports",
        fixStyle: "separate-type-imports"
      }]
    }
  },
  {
    files: ["src/**/*.ts"],
    // Imports are written `./X.js` for NodeNext; the boundaries are checked against the `.ts` file they name.
    settings: {
      "import-x/resolver-next": [
        createNodeResolver({ extensions: [".ts", ".js", ".mjs", ".json"], extensionAlias: { ".js": [".ts", ".js"] } })
      ]
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones: boundaries }]
    }
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/config/**"],
    rules: {
      "no-restricted-properties": ["error", {
        object: "process",
        property: "env",
        message:
          `nothing outside src/config/ reads an environment variable: add a reader there (ConfigVariables.ts) (${rule})`
      }],
      "no-restricted-imports": ["error", {
        paths: [{
          name: "effect",
          importNames: ["Config", "ConfigProvider"],
          message: `nothing outside src/config/ reads configuration: add a reader there (ConfigVariables.ts) (${rule})`
        }],
        patterns: [{
          group: ["effect/Config", "effect/ConfigProvider"],
          message: `nothing outside src/config/ reads configuration: add a reader there (ConfigVariables.ts) (${rule})`
        }]
      }]
    }
  }
]
