// A module hook for a child process of the Effect 4 suite: every `effect` and `effect/*` import,
// those of the package's own sources included, loads test-effect4's Effect 4 (as vitest.config.ts
// does for the suite), never the root's Effect 3, and `#compat` the face's Effect 4 compat. Resolved here by the package's `./*` export
// (`./dist/*.js`), in-thread and ahead of tsx, which would follow tsconfig.json's `paths` to the
// declarations.
import { registerHooks } from "node:module"

const dist = new URL("../../node_modules/effect/dist/", import.meta.url).href
const here = new URL("../../package.json", import.meta.url).href
const scoped = new URL("../../node_modules/@effect/", import.meta.url).href
// The face's compat module (docs/effect4.md, "One source"): Effect 4's, never the Effect 3 one
// tsconfig.json's `paths` name.
const compat = new URL("../../../src/face/compat/Effect4.ts", import.meta.url).href
// The @effect/ai modules' compat: Effect 4's `effect/ai`, never @effect/ai.
const compatAi = new URL("../../../src/apps/effect-ai/compat/Ai4.ts", import.meta.url).href
// The HTTP modules' compat: Effect 4's `effect/http` and `effect/http-api`, never @effect/platform.
const compatHttp = new URL("../../../src/apps/http/compat/Http4.ts", import.meta.url).href

registerHooks({
  resolve: (specifier, context, next) =>
    specifier === "#compat"
      ? { url: compat, shortCircuit: true }
      : specifier === "#compat-ai"
      ? { url: compatAi, shortCircuit: true }
      : specifier === "#compat-http"
      ? { url: compatHttp, shortCircuit: true }
      : specifier === "effect"
      ? { url: `${dist}index.js`, shortCircuit: true }
      : specifier.startsWith("effect/")
      ? { url: `${dist}${specifier.slice("effect/".length)}.js`, shortCircuit: true }
      : /^@effect\/(?:sql-pg|platform-node)\/./.test(specifier)
      // Effect 4's PostgreSQL client and Node platform, this folder's (the root's are of the Effect 3
      // line), by their `./*` export, ahead of tsx (which would follow tsconfig.json's paths).
      ? { url: `${scoped}${specifier.slice("@effect/".length).replace("/", "/dist/")}.js`, shortCircuit: true }
      : /^@effect\/(?:sql-pg|platform-node)$/.test(specifier)
      ? next(specifier, { ...context, parentURL: here })
      : next(specifier, context)
})
