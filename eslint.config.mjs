import * as effectEslint from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

// The formatter: Effect's own dprint settings (as in the Effect-TS/effect repository), run as an ESLint rule so one
// command both formats (`npm run format`) and checks (`npm run lint`).
export default [
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "samples/**", "prompts/**", "docs/**"] },
  ...effectEslint.configs.dprint,
  {
    files: ["**/*.ts", "**/*.mjs"],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: "module" },
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
      }]
    }
  }
]
