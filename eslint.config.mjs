import * as effectEslint from "@effect/eslint-plugin"
import importX from "eslint-plugin-import-x"
import tseslint from "typescript-eslint"

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
  }
]
