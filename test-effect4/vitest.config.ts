// The Effect 4 test project (docs/effect4.md): the shared core and the Effect 4 face tested on
// effect@4. Every `effect` and `effect/*` import resolves to this folder's Effect 4, those of the
// package's own sources included (Node alone would give them the root's Effect 3), so a module
// that needs an API of Effect 3 only fails here.
import { fileURLToPath } from "node:url"
import type { Plugin } from "vitest/config"
import { defineConfig } from "vitest/config"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

const effectFromHere = (): Plugin => ({
  name: "context-compressor:effect-4",
  enforce: "pre",
  async resolveId(source, importer, options) {
    // The face's compat module (docs/effect4.md, "One source"): Effect 4's, never Effect 3's.
    if (source === "#compat") return here("../src/compat/Effect4.ts")
    if (source !== "effect" && !source.startsWith("effect/")) return null
    const resolved = await this.resolve(source, here("./package.json"), { ...options, skipSelf: true })
    // Never the root's Effect 3 instead: a module Effect 4 does not have is an error here.
    if (resolved === null) throw new Error(`${source} is not a module of effect 4 (imported by ${importer})`)
    return resolved
  }
})

export default defineConfig({
  plugins: [effectFromHere()],
  test: {
    root: here("."),
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000
  }
})
