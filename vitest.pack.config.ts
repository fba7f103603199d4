import { configDefaults, defineConfig } from "vitest/config"
import suite from "./vitest.config.js"

/**
 * The packed package's suite, `npm run test:pack`: test/package/, which the main suite
 * (vitest.config.ts) leaves out, on the same aliases and global setups (the PostgreSQL server one
 * of its tests uses). CI runs it after `npm test`, and again on Node 22 (`npm run test:node22`).
 */
export default defineConfig({
  ...suite,
  test: {
    ...suite.test,
    include: ["test/package/**/*.test.ts"],
    exclude: configDefaults.exclude
  }
})
