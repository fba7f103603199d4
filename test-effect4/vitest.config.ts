// The Effect 4 test project (docs/effect4.md, "Tests on Effect 4"): the shared core and the Effect 4
// face tested on effect@4. Every `effect` and `effect/*` import resolves to this folder's Effect 4,
// those of the package's own sources included (Node alone would give them the root's Effect 3), so
// a module that needs an API of Effect 3 only fails here.
//
// Two projects: `effect4`, this folder's own tests (test/**), and `both`, the root suite's files that
// run on Effect 4 too: the files the `include` of tsconfig.json lists under `../test/` (one list,
// typechecked there on Effect 4 and run here; add a file to it when every module it reaches compiles
// for both). Those files import `@effect/vitest` (and so vitest), `#compat` and `#test-compat`, and
// the package's entries (`context-compressor`, `context-compressor/rules`, …): each resolves here to
// its Effect 4 counterpart.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import type { Plugin } from "vitest/config"
import { defineConfig } from "vitest/config"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The Effect 4 entry of each entry of the package (`context-compressor/effect4/rules` and `context-compressor/rules` alike). */
const entries: Readonly<Record<string, string>> = {
  "": "../src/effect4/index.ts",
  "/rules": "../src/effect4/rules/index.ts",
  "/services": "../src/effect4/services/index.ts",
  "/layers": "../src/effect4/layers/index.ts",
  "/adapters": "../src/effect4/adapters/index.ts",
  "/effect-ai": "../src/effect4/effect-ai/index.ts",
  "/http": "../src/effect4/http/index.ts"
}

/** Packages whose copy is this folder's, for every importer: Effect 4, its PostgreSQL client, its Node platform and the test runner on it. */
const fromHere = /^(?:effect|@effect\/sql-pg|@effect\/platform-node|@effect\/vitest|vitest)(?:\/.*)?$/

const effectFromHere = (): Plugin => ({
  name: "context-compressor:effect-4",
  enforce: "pre",
  async resolveId(source, importer, options) {
    // The face's compat module (docs/effect4.md, "One source"): Effect 4's, never Effect 3's; the tests' too.
    if (source === "#compat") return here("../src/face/compat/Effect4.ts")
    if (source === "#compat-ai") return here("../src/apps/effect-ai/compat/Ai4.ts")
    if (source === "#compat-http") return here("../src/apps/http/compat/Http4.ts")
    if (source === "#compat-cli") return here("../src/apps/cli/compat/Cli4.ts")
    if (source === "#test-compat") return here("../test/support/compat/Effect4.ts")
    const entry = /^context-compressor(?:\/effect4)?(\/[\w-]+)?$/.exec(source)
    if (entry !== null) {
      const path = entries[entry[1] ?? ""]
      if (path === undefined) throw new Error(`${source} has no Effect 4 entry (imported by ${importer})`)
      return here(path)
    }
    if (!fromHere.test(source)) return null
    const resolved = await this.resolve(source, here("./package.json"), { ...options, skipSelf: true })
    // Never the root's Effect 3 (or its @effect/vitest 0.x) instead: a module Effect 4 does not have is an error here.
    if (resolved === null) throw new Error(`${source} is not a module of effect 4 (imported by ${importer})`)
    return resolved
  }
})

/** The root suite's test files that run on Effect 4 too: the test files of tsconfig.json's `include` under `../test/`. */
const bothEffects = (): Array<string> => {
  const parsed = ts.parseConfigFileTextToJson("tsconfig.json", readFileSync(here("./tsconfig.json"), "utf8"))
  if (parsed.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(parsed.error.messageText, "\n"))
  const include: ReadonlyArray<string> = parsed.config.include
  return include.filter((path) => path.startsWith("../test/") && path.endsWith(".test.ts")).map((path) =>
    path.slice("../".length)
  )
}

export default defineConfig({
  plugins: [effectFromHere()],
  test: {
    testTimeout: 60_000,
    // The PostgreSQL server of the root suite's SQL files (test/support/postgresSetup.ts, given to them as
    // `inject("postgres")`), started once for the run, or skipped with the reason.
    globalSetup: [here("../test/support/postgresSetup.ts"), here("./programSetup.ts")],
    projects: [
      { extends: true, test: { name: "effect4", root: here("."), include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "both",
          root: here(".."),
          include: bothEffects(),
          // As the root suite runs them (vitest.config.ts): the files share their workers' modules.
          isolate: false
        }
      }
    ]
  }
})
