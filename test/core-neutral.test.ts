/**
 * The pure core stays pure (docs/architecture.md): the modules of `src/core/` import no Effect,
 * which the `no-restricted-imports` rule of `eslint.config.mjs` enforces on that folder; and they import no module outside the pure core (a public
 * model with its Schema classes, a service tag, a layer, an effectful stage), not even for types,
 * which this file checks. The pure core is what the lint rule applies to, as ESLint answers it.
 */
import { assert, describe, it } from "@effect/vitest"
import { ESLint } from "eslint"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const eslint = new ESLint({ cwd: repository })

const sourcesUnder = (directory: string): ReadonlyArray<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })

/** Whether the pure core's lint rule applies to a module: it is of the pure core. */
const isPure = async (module: string): Promise<boolean> => {
  const config = await eslint.calculateConfigForFile(join(repository, module))
  return (config?.rules?.["no-restricted-imports"]?.[0] ?? 0) !== 0
}

// Every static import or re-export, type-only ones included, and every dynamic import.
// An import clause holds only names, braces, commas, `*`, `type` and `as`: the match cannot run past it.
const anyImport = /^(?:import|export)\s[\w\s{},*$]*?\sfrom\s+"([^"]+)"|^import\s+"([^"]+)"|import\("([^"]+)"\)/gm

/** The modules of the repository a module imports by a relative path. */
const relativeImportsOf = (module: string, text: string): ReadonlyArray<string> =>
  Array.from(text.matchAll(anyImport), (match) => match[1] ?? match[2] ?? match[3]!)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) =>
      relative(repository, resolve(dirname(join(repository, module)), specifier.replace(/\.js$/, ".ts")))
    )

describe("the pure core", () => {
  it("the lint rule refuses an Effect import in a pure module, a type-only, a dynamic one and #compat included; it lets Node's modules, effect/Function and the core's own modules through", async () => {
    const source = [
      `import type * as Either from "effect/Either"`,
      `import * as Effect from "effect"`,
      `import * as Sql from "@effect/sql/SqlClient"`,
      `import * as Compat from "#compat"`,
      `import { dual } from "effect/Function"`,
      `import * as Steps from "../Steps.js"`,
      `import { createHash } from "node:crypto"`,
      `export const schema = () => import("effect/Schema")`,
      ``
    ].join("\n")
    const [result] = await eslint.lintText(source, { filePath: join(repository, "src/core/reduce/Probe.ts") })
    assert.deepStrictEqual(
      result!.messages.filter((message) => message.ruleId !== "@effect/dprint").map((message) => message.line),
      [1, 2, 3, 4, 8]
    )
    const [effectful] = await eslint.lintText(source, {
      filePath: join(repository, "src/face/engine/internal/checkpoint/Pipeline.ts")
    })
    assert.deepStrictEqual(effectful!.messages.filter((message) => message.ruleId !== "@effect/dprint"), [])
  })

  it("is all of src/core/, and none of the face's effectful engine and store programs: the checkpoint's pure stages, the budgets, the block, the rules' interpretation and the working state included", async () => {
    const modules = sourcesUnder(join(repository, "src/core")).map((file) => relative(repository, file))
    const pure = new Set<string>()
    for (const module of modules) if (await isPure(module)) pure.add(module)
    assert.isAbove(pure.size, 25)
    assert.deepStrictEqual(modules.filter((module) => !pure.has(module)), [])
    for (
      const module of [
        "src/core/Result.ts",
        "src/core/Steps.ts",
        "src/core/checkpoint/Budget.ts",
        "src/core/checkpoint/CompactionPlan.ts",
        "src/core/checkpoint/Count.ts",
        "src/core/checkpoint/Ladder.ts",
        "src/core/checkpoint/Restore.ts",
        "src/core/block/BlockBuild.ts",
        "src/core/reduce/Interpreter.ts",
        "src/core/working-state/WorkingState.ts",
        "src/core/working-state/WorkingStateExtract.ts"
      ]
    ) assert.isTrue(pure.has(module), module)
    for (
      const module of [
        "src/face/engine/internal/Cooperative.ts",
        "src/face/engine/internal/checkpoint/Pipeline.ts",
        "src/face/engine/internal/checkpoint/SummaryOutcome.ts",
        "src/face/layers/internal/SqlStates.ts"
      ]
    ) assert.isFalse(await isPure(module), module)
    // No pure module reaches out of the pure core, not even for types.
    const crossings = Array.from(pure).flatMap((module) =>
      relativeImportsOf(module, readFileSync(join(repository, module), "utf8"))
        .filter((target) => !pure.has(target))
        .map((target) => `${module} → ${target}`)
    )
    assert.deepStrictEqual(crossings, [])
  })
})
