import * as effectEslint from "@effect/eslint-plugin"
import importX, { createNodeResolver } from "eslint-plugin-import-x"
import { builtinRules } from "eslint/use-at-your-own-risk"
import { readdirSync } from "node:fs"
import tseslint from "typescript-eslint"

// The dependency rules of docs/architecture.md: entry → cli/api → programs/layers → config → services/text → domain,
// no arrow back up. Each zone forbids `target` importing `from`; the message names the rule and where the code goes.
const rule = "docs/architecture.md"
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
    "a program asks for ports with `yield* Tag` and never imports a layer, the CLI or the API: put what it needs in services/ or domain/, and choose the layer in cli/ (the command's *Layers.ts)"
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
  // The composition root is the CLI's *Layers.ts modules (and doctor's checks, which build one adapter per replica).
  ...forbid(
    "src/cli/**/!(*Layers|DoctorChecks).ts",
    ["src/layers", searchComposition],
    "in cli/ only a *Layers.ts module builds adapters: take the Layer from the command's XLayers.ts or cli/shared/"
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
  ),
  ...forbid(
    "src/programs/harness",
    ["src/programs/report"],
    "programs/report reads what the harness saved, not the other way: cost, outcomes and the run record live in domain/"
  )
]

// ESLint's recommended rules, read from the rules' own metadata: the same set as @eslint/js's `recommended`, which is
// not a dependency of ours.
const eslintRecommended = Object.fromEntries(
  [...builtinRules].filter(([, rule]) => rule.meta?.docs?.recommended === true).map(([name]) => [name, "error"])
)
// Node's globals for the .mjs/.cjs scripts (TypeScript checks the .ts files' names itself).
const nodeGlobals = Object.fromEntries(
  ["console", "process", "URL", "require", "module", "__dirname", "Buffer", "setTimeout", "clearTimeout"].map((
    name
  ) => [name, "readonly"])
)

// The formatter is Effect's own dprint settings (as in the Effect-TS/effect repository), run as an ESLint rule so one
// command both formats (`npm run format`) and checks (`npm run lint`). Beside it, the import rules: one import
// statement per module (types apart) and types imported as types, so a type-only dependency never loads a module.
export default [
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "samples/**", "prompts/**", "docs/**"] },
  { rules: eslintRecommended },
  ...tseslint.configs.recommended,
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
      // The Effect-TS/effect repository's choices beside the recommended sets.
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
        message:
          "Do not use spread arguments in Array.push: a long array overflows the call stack; use a loop or concat"
      }],
      "no-unused-vars": "off",
      "require-yield": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/no-wrapper-object-types": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/ban-ts-comment": "off",
      "@typescript-eslint/no-array-constructor": "off",
      "@typescript-eslint/no-use-before-define": "off",
      "@typescript-eslint/no-namespace": "off",
      // vtree's own: terminal-safe text strips control characters, so its patterns name them on purpose.
      "no-control-regex": "off",
      "import-x/first": "error",
      "import-x/newline-after-import": "error",
      "import-x/no-duplicates": "error",
      "@typescript-eslint/consistent-type-imports": ["error", {
        prefer: "type-imports",
        fixStyle: "separate-type-imports"
      }]
    }
  },
  { files: ["**/*.mjs", "**/*.cjs"], languageOptions: { globals: nodeGlobals } },
  // A `node --require` preload is CommonJS by nature.
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
  // Every line vtree writes goes through cli/TerminalConsole.ts (Effect's Console), so data never drives a terminal.
  // Effect's own packages' rule; `@effect/no-import-from-barrel-package` is theirs for libraries only, and vtree
  // imports "effect" whole as Effect's docs advise for applications.
  { files: ["src/**/*.ts"], rules: { "no-console": "error" } },
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
