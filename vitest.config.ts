import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { configDefaults, defineConfig } from "vitest/config"

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  resolve: {
    // The package's own entry points, as the examples import them, mapped to the sources (as
    // tsconfig.json's `paths` do for the typecheck and tsx).
    alias: [
      // The face's compat module (docs/effect4.md, "One source"): Effect 3's here, Effect 4's in test-effect4/.
      { find: /^#compat$/, replacement: source("./src/face/compat/Effect3.ts") },
      // The @effect/ai modules' compat (docs/effect4.md, "One source"): Ai3.ts here, Ai4.ts in test-effect4/.
      { find: /^#compat-ai$/, replacement: source("./src/apps/effect-ai/compat/Ai3.ts") },
      // The program's compat (docs/effect4.md, "One source"): Cli3.ts here, Cli4.ts in test-effect4/.
      { find: /^#compat-cli$/, replacement: source("./src/apps/cli/compat/Cli3.ts") },
      // The HTTP modules' compat (docs/effect4.md, "One source"): Http3.ts here, Http4.ts in test-effect4/.
      { find: /^#compat-http$/, replacement: source("./src/apps/http/compat/Http3.ts") },
      // The tests' own compat (docs/effect4.md, "Tests on Effect 4"): Effect 3's here, its Effect4.ts in test-effect4/.
      { find: /^#test-compat$/, replacement: source("./test/support/compat/Effect3.ts") },
      { find: /^context-compressor$/, replacement: source("./src/face/index.ts") },
      { find: /^context-compressor\/adapters$/, replacement: source("./src/face/adapters/index.ts") },
      { find: /^context-compressor\/effect-ai$/, replacement: source("./src/apps/effect-ai/index.ts") },
      { find: /^context-compressor\/http$/, replacement: source("./src/apps/http/index.ts") },
      { find: /^context-compressor\/rules$/, replacement: source("./src/face/rules/index.ts") },
      { find: /^context-compressor\/services$/, replacement: source("./src/face/services/index.ts") },
      { find: /^context-compressor\/layers$/, replacement: source("./src/face/layers/index.ts") },
      { find: /^context-compressor\/promise$/, replacement: source("./src/apps/promise/index.ts") },
      { find: /^context-compressor\/ai-sdk$/, replacement: source("./src/apps/ai-sdk/index.ts") }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    // The packed package's tests (test/package/) build, pack and npm-install fresh applications: minutes of
    // npm, tsc and child processes, alone over half of this suite's time. They run as their own suite,
    // `npm run test:pack` (vitest.pack.config.ts), which CI runs after this one.
    exclude: [...configDefaults.exclude, "test/package/**"],
    globalSetup: ["test/support/postgresSetup.ts", "test/support/programSetup.ts"],
    testTimeout: 60_000,
    // Test files share their workers' module graph: importing Effect once per worker, not once
    // per file, halves the suite's time. No test relies on a fresh module state.
    isolate: false,
    // Vitest's default leaves one core free: on a 2-core machine that is one worker, and the suite
    // runs file after file (185 s against 134 s with two, measured on the same loaded machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1
  }
})
