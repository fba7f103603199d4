/**
 * Bundles the program: `dist/src/apps/cli/bin.js` (built by tsc) and everything it
 * loads from Effect into `dist/cli/context-compressor.js`, the `bin` of the
 * package, with one chunk file per part that only some commands load (the HTTP
 * server, the PostgreSQL client, the @effect/ai Prompt adapter, ...). And the
 * entry points for code without Effect, `context-compressor/promise` and
 * `/ai-sdk`, the same way into `dist/bundle/`: they carry their own Effect, so
 * that an application on Effect 4 (or on none) installs and runs them. Then
 * the Effect entry points' guards (`entry-guards.mjs`).
 *
 * Why: Node resolves, reads and links every ES module file on its own. The
 * program loads about 730 of them, most of them Effect's, and that cost the
 * start of every command more than the work (`bench/startup.bench.ts`). The
 * Effect entry points stay unbundled, so that a runtime and the library share
 * one Effect; the program, the Promise API and the AI SDK helpers show no
 * Effect to their users and carry the Effect they were built and tested with.
 *
 * Left out of the bundle, resolved from the installed packages at run time:
 * - `better-sqlite3`, a native addon;
 * - `pg`, which PostgreSQL users install (`@effect/sql-pg` itself is bundled:
 *   loaded from node_modules, it would bring a second Effect that cannot mix
 *   with the bundled one);
 * - `smol-toml`, the package's own dependency, and `#o200k_base`, the
 *   tokenizer's 3 MB vocabulary vendored beside it (`dist/vendor/`, by
 *   `vendor-tokenizer.mjs`), which is not copied a second time;
 * - `ai`, in the library bundle: the AI SDK the application has installed.
 *
 * The licences of the bundled packages are written beside each bundle, in
 * `THIRD-PARTY-LICENSES.txt`.
 *
 * Run by `npm run build` after tsc.
 */
import * as esbuild from "esbuild"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { bundleOptions } from "./bundle-options.mjs"
import { writeGuards } from "./entry-guards.mjs"
import { vendorTokenizer } from "./vendor-tokenizer.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = `${root}dist/cli`
const libraryOutdir = `${root}dist/bundle`

/** The options both bundles share: those of every bundle of the program, and the metafile the licences are read from. */
const common = { ...bundleOptions, metafile: true }

/** The MIT licence (Effect's and the others') asks that its notice come with every copy. */
const writeNotices = (metafile, directory, what) => {
  const packages = new Map()
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (match !== null) packages.set(match[1], undefined)
  }
  const notices = [...packages.keys()].sort().map((packageDirectory) => {
    const manifest = JSON.parse(readFileSync(`${root}${packageDirectory}/package.json`, "utf8"))
    const licenceFile = readdirSync(`${root}${packageDirectory}`).find((name) => /^licen[cs]e/i.test(name))
    const text = licenceFile === undefined ? `License: ${manifest.license ?? "see the package"}` : readFileSync(`${root}${packageDirectory}/${licenceFile}`, "utf8").trim()
    return `${manifest.name}@${manifest.version}\n\n${text}\n`
  })
  writeFileSync(
    `${directory}/THIRD-PARTY-LICENSES.txt`,
    `context-compressor's ${what} bundles these packages:\n\n${notices.join("\n" + "-".repeat(72) + "\n\n")}`
  )
}

rmSync(outdir, { recursive: true, force: true })
rmSync(libraryOutdir, { recursive: true, force: true })
await vendorTokenizer(`${root}dist/vendor/o200k_base.js`)

const program = await esbuild.build({
  ...common,
  entryPoints: [{ in: `${root}dist/src/apps/cli/bin.js`, out: "context-compressor" }],
  outdir
})
writeNotices(program.metafile, outdir, "program (dist/cli/)")
if (!existsSync(`${outdir}/context-compressor.js`)) throw new Error("the bundle has no context-compressor.js")

// The entry points for code that does not use Effect, with the Effect they were built with inside:
// an application on Effect 4, or on none, installs and runs them. One build, so that the two share
// their chunks (one engine, one set of Error classes for instanceof). `ai` stays the application's.
const library = await esbuild.build({
  ...common,
  entryPoints: [
    { in: `${root}dist/src/apps/promise/index.js`, out: "promise" },
    { in: `${root}dist/src/apps/ai-sdk/index.js`, out: "ai-sdk" }
  ],
  outdir: libraryOutdir,
  external: [...common.external, "ai"]
})
writeNotices(library.metafile, libraryOutdir, "Promise API and AI SDK helpers (dist/bundle/)")
for (const entry of ["promise", "ai-sdk"]) {
  if (!existsSync(`${libraryOutdir}/${entry}.js`)) throw new Error(`the bundle has no ${entry}.js`)
}

// The Effect entry points, each behind a guard that names the Effect peer to install when it is missing.
await writeGuards()
