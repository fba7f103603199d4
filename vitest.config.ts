import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/postgresSetup.ts"],
    testTimeout: 60_000,
    // Test files share their workers' module graph: importing Effect once per worker, not once
    // per file, halves the suite's time. No test relies on a fresh module state.
    isolate: false
  }
})
