// House style as a tool: Effect's own formatter settings (dprint at 120 columns, through ESLint,
// as the Effect 3 repository runs it). `npm run lint` checks; `npm run lint -- --fix` formats.
import * as effectEslint from "@effect/eslint-plugin"
import tsParser from "@typescript-eslint/parser"

/** The pure core (docs/architecture.md) is one folder, `src/core/`: none of its modules imports Effect. */
const pureCore = "the pure core (src/core/) imports no Effect: what runs effects is the face's engine (src/face/engine/internal/) or its layers"

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
  },
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [{ name: "effect", message: pureCore }, { name: "#compat", message: pureCore }, { name: "#compat-ai", message: pureCore }, { name: "#compat-http", message: pureCore }],
        // effect/Function's `dual` and `pipe` are plain functions, the same on Effect 3 and 4.
        patterns: [{ group: ["effect/*", "!effect/Function", "@effect/*", "#compat/*"], message: pureCore }]
      }],
      "no-restricted-syntax": ["error", {
        selector: "ImportExpression[source.value=/^(effect|@effect\\/|#compat)/]",
        message: pureCore
      }]
    }
  }
]
