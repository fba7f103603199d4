/**
 * The esbuild options every bundle of the program shares: the package's own
 * (`bundle-cli.mjs`) and the one the tests run (`test/support/programSetup.ts`),
 * so that the tests run the program as it is shipped.
 */
export const bundleOptions = {
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  // gpt-tokenizer is only the fallback of a checkout that was not built: never reached from dist/.
  external: ["better-sqlite3", "pg", "smol-toml", "#o200k_base", "gpt-tokenizer"],
  // Bundled CommonJS modules call require() for Node's own modules; an ES module has none of its own.
  banner: { js: `import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);` },
  logLevel: "warning"
}
