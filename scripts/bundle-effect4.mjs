/**
 * The esbuild plugin that builds the program on Effect 4 (docs/effect4.md, "One source"): the same
 * sources as `bundle-cli.mjs` bundles, with each compat module resolved to its Effect 4 side
 * (`#compat` to `src/face/compat/Effect4.ts`, `#compat-ai`, `#compat-http`, `#compat-cli` likewise)
 * and Effect, its Node platform and its PostgreSQL client taken from `test-effect4/`, the Effect 4
 * test project's pinned install. The Effect 4 test suite bundles the program with it
 * (`test-effect4/programSetup.ts`) and runs the CLI's tests and golden outputs on that bundle.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

const compat = {
  "#compat": `${root}src/face/compat/Effect4.ts`,
  "#compat-ai": `${root}src/apps/effect-ai/compat/Ai4.ts`,
  "#compat-http": `${root}src/apps/http/compat/Http4.ts`,
  "#compat-cli": `${root}src/apps/cli/compat/Cli4.ts`
}

/** The packages whose Effect 4 copy is `test-effect4/`'s, whoever imports them. */
const fromEffect4 = /^(?:effect|@effect\/platform-node|@effect\/platform-node-shared|@effect\/sql-pg)(?:\/.*)?$/

/**
 * @effect/platform-node 4's `Undici.js` is `export * from "undici"` over undici's CommonJS module,
 * which esbuild cannot expand into named exports of a chunk: the chunk the HTTP client imports with
 * `import()` would have only `default`, and `new Agent` would fail. It is replaced by a module that
 * names each export undici's `index.js` assigns (`module.exports.Agent = …`), read as text (undici 8
 * loads only on Node 22, and the build may run on Node 20).
 */
const undiciModule = /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]Undici\.js$/

const undiciShim = () => {
  const require = createRequire(`${root}test-effect4/node_modules/@effect/platform-node/package.json`)
  const index = readFileSync(require.resolve("undici"), "utf8")
  const names = [...new Set([...index.matchAll(/^module\.exports\.([A-Za-z_$][\w$]*)\s*=/gm)].map((match) => match[1]))]
  if (!names.includes("Agent")) throw new Error("undici's index.js names no Agent: the shim of bundle-effect4.mjs needs another reading")
  return [
    `import Undici from "undici"`,
    `export default Undici`,
    ...names.map((name) => `export const ${name} = Undici.${name}`)
  ].join("\n")
}

export const effect4Plugin = {
  name: "context-compressor:effect-4",
  setup(build) {
    build.onLoad({ filter: undiciModule }, (args) => ({
      contents: undiciShim(),
      loader: "js",
      resolveDir: args.path.replace(/[\\/][^\\/]+$/, "")
    }))
    build.onResolve({ filter: /^#compat(?:-ai|-http|-cli)?$/ }, (args) => ({ path: compat[args.path] }))
    build.onResolve({ filter: fromEffect4 }, async (args) => {
      if (args.pluginData === "effect4") return undefined
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: `${root}test-effect4`,
        pluginData: "effect4"
      })
      if (resolved.errors.length > 0) return { errors: resolved.errors }
      return { path: resolved.path, external: resolved.external }
    })
  }
}
