// House style as a tool: Effect's own formatter settings (dprint at 120 columns, through ESLint,
// as the Effect 3 repository runs it). `npm run lint` checks; `npm run lint -- --fix` formats.
import * as effectEslint from "@effect/eslint-plugin"
import tsParser from "@typescript-eslint/parser"

/**
 * The modules of `src/internal/` that are effectful, written in Effect: the engine (the checkpoint's
 * line of stages and the stages that run effects), the stores' and the SQL cache's programs, the
 * modules tied to the public models' Schema classes (`engine/`), the JSON reader's Schema face, the
 * event-loop runner and the package-version reader. Every other module of `src/internal/` is the
 * pure core (docs/architecture.md): it imports no Effect at all.
 */
export const effectfulInternal = [
  "src/internal/Cooperative.ts",
  "src/internal/PackageVersion.ts",
  "src/internal/checkpoint/Engine.ts",
  "src/internal/checkpoint/InFlight.ts",
  "src/internal/checkpoint/Pipeline.ts",
  "src/internal/checkpoint/Save.ts",
  "src/internal/checkpoint/SessionCache.ts",
  "src/internal/checkpoint/Summarise.ts",
  "src/internal/checkpoint/SummaryOutcome.ts",
  "src/internal/engine/**",
  "src/internal/json/JsonRead.ts",
  "src/internal/services/MemoryStores.ts",
  "src/internal/services/SqlStates.ts",
  "src/internal/services/SqlSummaries.ts",
  "src/internal/services/StoreRules.ts"
]

const pureCore = "the pure core (src/internal/ but the effectful modules eslint.config.mjs lists) imports no Effect"

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
    files: ["src/internal/**/*.ts"],
    ignores: effectfulInternal,
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
