/**
 * The shared core is neutral (docs/effect4.md): its modules import no Effect module whose API
 * differs between Effect 3 and Effect 4, not even for types, and no module outside the core (a
 * face: a public model with its Schema classes, a service tag, a layer, the Effect runner). It
 * takes none from outside it any more (the last known crossings, the budgets, the settings' and
 * the count's types, the shared memory's hydrate and the working state's Schema model, moved into
 * the core), so any import that leaves the core fails here.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/**
 * The core's modules as far as they are checked: `src/internal/` but the two modules at its root
 * that belong to the faces (`Cooperative`, the Effect runner that yields to the event loop, over the
 * core's `Steps`; `PackageVersion`, which reads the installed packages) and the checkpoint's
 * effectful shells (below).
 */
const coreFolders = [
  "src/internal/adapters",
  "src/internal/block",
  "src/internal/checkpoint",
  "src/internal/json",
  "src/internal/reduce",
  "src/internal/services",
  "src/internal/shell",
  "src/internal/summarizer",
  "src/internal/transcript",
  "src/internal/working-state"
]
const coreFiles = ["src/internal/Fx.ts", "src/internal/Result.ts", "src/internal/Steps.ts"]

/**
 * Modules in the core's folders that are the Effect 3 face's: the JSON reader's `Either` API. The
 * checkpoint's effectful stages (the line of stages, summarise, the summary policy, save, the
 * session cache) are the core's, programs over the effects a face lends (`internal/Fx.ts`); what
 * Effect 3 lends and makes of them is `src/internal/effect3/`, outside the core's folders.
 */
const faceModules = [
  "src/internal/json/JsonRead.ts",
  "src/internal/checkpoint/Engine.ts",
  "src/internal/checkpoint/InFlight.ts",
  "src/internal/checkpoint/Pipeline.ts",
  "src/internal/checkpoint/Save.ts",
  "src/internal/checkpoint/SessionCache.ts",
  "src/internal/checkpoint/Summarise.ts",
  "src/internal/checkpoint/SummaryOutcome.ts",
  "src/internal/services/MemoryStores.ts",
  "src/internal/services/SqlStates.ts",
  "src/internal/services/SqlSummaries.ts",
  "src/internal/services/StoreRules.ts"
]

/** The Effect modules whose API the core uses and which are the same in Effect 3 and 4. */
const neutralEffectModules: ReadonlySet<string> = new Set(["effect/Function"])

/** Other packages are fine when they are Node's own. */
const isNodeBuiltin = (specifier: string) => specifier.startsWith("node:")

const sourcesUnder = (directory: string): ReadonlyArray<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })

// Every static import or re-export, type-only ones included (a type of Effect 3 does not compile on 4).
// An import clause holds only names, braces, commas, `*`, `type` and `as`: the match cannot run past it.
const anyImport = /^(?:import|export)\s[\w\s{},*$]*?\sfrom\s+"([^"]+)"|^import\s+"([^"]+)"|import\("([^"]+)"\)/gm

/** The specifiers a module imports: a repository path for a relative one, else the specifier. */
const importsOf = (file: string, text: string): ReadonlyArray<string> =>
  Array.from(text.matchAll(anyImport), (match) => {
    const specifier = match[1] ?? match[2] ?? match[3]!
    return specifier.startsWith(".")
      ? relative(repository, resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
      : specifier
  })

/** The imports of the core's modules that leave the core, as `module → specifier`. */
const crossings = (core: ReadonlyArray<string>, read: (file: string) => string): ReadonlyArray<string> => {
  const inCore = new Set(core)
  return core.flatMap((module) =>
    Array.from(new Set(importsOf(join(repository, module), read(module))))
      .filter((target) =>
        target.startsWith("src/") || target.startsWith("services/") || target.startsWith("layers/") ||
          target.startsWith("rules/")
          ? !inCore.has(target)
          : !isNodeBuiltin(target) && !neutralEffectModules.has(target)
      )
      .map((target) => `${module} → ${target}`)
  ).sort()
}

const core = [
  ...coreFolders.flatMap((folder) => sourcesUnder(join(repository, folder))).map((file) => relative(repository, file))
    .filter((module) => !faceModules.includes(module)),
  ...coreFiles
].sort()
const readSource = (module: string) => readFileSync(join(repository, module), "utf8")

describe("the shared core is neutral between Effect 3 and Effect 4", () => {
  it("the check sees an Effect 3-only import, a type-only one included, and an import of a face; it lets Node's modules, effect/Function and the core's own modules through", () => {
    const sources: Record<string, string> = {
      "src/internal/reduce/A.ts": [
        `import type * as Either from "effect/Either"`,
        `import { dual } from "effect/Function"`,
        `import * as Rule from "../../Rule.js"`,
        `import * as B from "./B.js"`,
        `import { createHash } from "node:crypto"`
      ].join("\n"),
      "src/internal/reduce/B.ts":
        `export { type Json } from "../json/JsonValue.js"\nconst Schema = await import("effect/Schema")`
    }
    assert.deepStrictEqual(
      crossings(
        ["src/internal/json/JsonValue.ts", "src/internal/reduce/A.ts", "src/internal/reduce/B.ts"],
        (m) => sources[m] ?? ""
      ),
      [
        "src/internal/reduce/A.ts → effect/Either",
        "src/internal/reduce/A.ts → src/Rule.ts",
        "src/internal/reduce/B.ts → effect/Schema"
      ]
    )
  })

  it("the core's modules cross into no Effect module outside the neutral set and into no face, not even for types: the checkpoint's pure stages, the budgets, the block, the working state's model and its extraction included", () => {
    assert.isAbove(core.length, 25)
    for (
      const module of [
        "src/internal/checkpoint/Budget.ts",
        "src/internal/checkpoint/CompactionPlan.ts",
        "src/internal/checkpoint/Count.ts",
        "src/internal/checkpoint/Ladder.ts",
        "src/internal/checkpoint/MemoryView.ts",
        "src/internal/checkpoint/Restore.ts",
        "src/internal/block/BlockBuild.ts",
        "src/internal/working-state/WorkingState.ts",
        "src/internal/working-state/WorkingStateExtract.ts"
      ]
    ) assert.include(core, module)
    assert.deepStrictEqual(crossings(core, readSource), [])
  })

  it("the rules' interpretation (src/internal/reduce/) crosses into nothing: no Effect module, no face, not even for types", () => {
    assert.isAbove(core.filter((module) => module.startsWith("src/internal/reduce/")).length, 6)
    assert.deepStrictEqual(
      crossings(core, readSource).filter((crossing) => crossing.startsWith("src/internal/reduce/")),
      []
    )
  })
})
