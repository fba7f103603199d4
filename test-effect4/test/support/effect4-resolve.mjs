// A module hook for a child process of the Effect 4 suite: every `effect` and `effect/*` import,
// those of the package's own sources included, loads test-effect4's Effect 4 (as vitest.config.ts
// does for the suite), never the root's Effect 3. Resolved here by the package's `./*` export
// (`./dist/*.js`), in-thread and ahead of tsx, which would follow tsconfig.json's `paths` to the
// declarations.
import { registerHooks } from "node:module"

const dist = new URL("../../node_modules/effect/dist/", import.meta.url).href

registerHooks({
  resolve: (specifier, context, next) =>
    specifier === "effect"
      ? { url: `${dist}index.js`, shortCircuit: true }
      : specifier.startsWith("effect/")
      ? { url: `${dist}${specifier.slice("effect/".length)}.js`, shortCircuit: true }
      : next(specifier, context)
})
