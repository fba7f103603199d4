// House style as a tool: Effect's own formatter settings (dprint at 120 columns, through ESLint,
// as the Effect 3 repository runs it). `npm run lint` checks; `npm run lint -- --fix` formats.
import * as effectEslint from "@effect/eslint-plugin"
import tsParser from "@typescript-eslint/parser"

export default [
  {
    ignores: ["dist/**", "cjs/**", "node_modules/**", "docs/api/**", "test-artifacts/**", "web/**", "**/*.js", "**/*.cjs", "**/*.mjs"]
  },
  {
    files: ["**/*.ts", "**/*.mts", "**/*.cts"],
    languageOptions: { parser: tsParser, ecmaVersion: "latest", sourceType: "module" },
    plugins: { "@effect": effectEslint },
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
