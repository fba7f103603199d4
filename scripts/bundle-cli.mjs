/**
 * Bundles the program: `dist/src/cli/bin.js` (built by tsc) and everything it
 * loads from Effect into `dist/cli/context-compressor.js`, the `bin` of the
 * package, with one chunk file per part that only some commands load (the HTTP
 * server, the PostgreSQL client, the @effect/ai Prompt adapter, ...).
 *
 * Why: Node resolves, reads and links every ES module file on its own. The
 * program loads about 730 of them, most of them Effect's, and that cost the
 * start of every command more than the work (`bench/startup.bench.ts`). The
 * library entry points stay unbundled, so that a runtime and the library share
 * one Effect; the program is a process of its own and carries the Effect it was
 * built and tested with.
 *
 * Left out of the bundle, resolved from the installed packages at run time:
 * - `better-sqlite3`, a native addon;
 * - `pg`, which PostgreSQL users install (`@effect/sql-pg` itself is bundled:
 *   loaded from node_modules, it would bring a second Effect that cannot mix
 *   with the bundled one);
 * - `smol-toml`, the package's own dependency, and `#o200k_base`, the
 *   tokenizer's 3 MB vocabulary vendored beside it (`dist/vendor/`, by
 *   `vendor-tokenizer.mjs`), which is not copied a second time.
 *
 * The licences of the bundled packages are written beside it, in
 * `THIRD-PARTY-LICENSES.txt`.
 *
 * Run by `npm run build` after tsc.
 */
import * as esbuild from "esbuild"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { vendorTokenizer } from "./vendor-tokenizer.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = `${root}dist/cli`

rmSync(outdir, { recursive: true, force: true })
await vendorTokenizer(`${root}dist/vendor/o200k_base.js`)
const built = await esbuild.build({
  entryPoints: [{ in: `${root}dist/src/cli/bin.js`, out: "context-compressor" }],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  external: ["better-sqlite3", "pg", "smol-toml", "#o200k_base"],
  // Bundled CommonJS modules call require() for Node's own modules; an ES module has none of its own.
  banner: { js: `import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);` },
  metafile: true,
  logLevel: "warning"
})

// The MIT licence (Effect's and the others') asks that its notice come with every copy.
const packages = new Map()
for (const input of Object.keys(built.metafile.inputs)) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)
  if (match !== null) packages.set(match[1], undefined)
}
const notices = [...packages.keys()].sort().map((directory) => {
  const manifest = JSON.parse(readFileSync(`${root}${directory}/package.json`, "utf8"))
  const licenceFile = readdirSync(`${root}${directory}`).find((name) => /^licen[cs]e/i.test(name))
  const text = licenceFile === undefined ? `License: ${manifest.license ?? "see the package"}` : readFileSync(`${root}${directory}/${licenceFile}`, "utf8").trim()
  return `${manifest.name}@${manifest.version}\n\n${text}\n`
})
writeFileSync(
  `${outdir}/THIRD-PARTY-LICENSES.txt`,
  `context-compressor's program (dist/cli/) bundles these packages:\n\n${notices.join("\n" + "-".repeat(72) + "\n\n")}`
)
if (!existsSync(`${outdir}/context-compressor.js`)) throw new Error("the bundle has no context-compressor.js")
