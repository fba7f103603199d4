/**
 * Points the built face at its compat modules. The face's sources import `#compat`, which the
 * typecheck, vitest and tsx map to `src/face/compat/Effect3.ts` or, for the Effect 4 build,
 * `src/face/compat/Effect4.ts`, the @effect/ai modules `#compat-ai` (`Ai3.ts` or `Ai4.ts`) and the
 * HTTP modules `#compat-http` (`Http3.ts` or `Http4.ts`) and the program's `#compat-cli` (`Cli3.ts`;
 * the Effect 4 program is bundled from the sources, scripts/bundle-effect4.mjs) (docs/effect4.md, "One source"). tsc leaves the specifiers as written, so after each build
 * this rewrites them, in every emitted `.js` and `.d.ts` under one output folder, to the
 * relative paths of that build's compiled compat modules.
 *
 * `node scripts/compat-paths.mjs 3` rewrites the Effect 3 build (`dist/`, the Effect 4 build's
 * folder left alone); build-effect4.mjs calls `rewrite` for `dist/effect4/`.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

const specifier = /(["'])(#compat(?:-ai|-http|-cli)?)\1/g

/** Every emitted module under `dir`, but those under the folders named in `skip`. */
const emitted = (dir, skip) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return skip.includes(path) ? [] : emitted(path, skip)
    return /\.(?:js|d\.ts)$/.test(entry.name) ? [path] : []
  })

/**
 * Rewrites `#compat` in every module under `dir` to the path of `compat` (the compiled compat
 * module, without extension) relative to the module, `#compat-ai` to that of `compatAi`,
 * `#compat-http` to that of `compatHttp` and `#compat-cli` to that of `compatCli` (the Effect 3
 * build's only: the Effect 4 build compiles no module of the program). Answers the number of
 * modules rewritten.
 */
export const rewrite = (dir, compat, compatAi, compatHttp, skip = [], compatCli = undefined) => {
  let count = 0
  for (const path of emitted(dir, skip)) {
    const text = readFileSync(path, "utf8")
    if (!text.includes("#compat")) continue
    const targetOf = (module) => {
      const target = relative(dirname(path), module).split("\\").join("/")
      return target.startsWith(".") ? target : `./${target}`
    }
    writeFileSync(
      path,
      text.replace(specifier, (_, quote, name) => {
        const module = { "#compat": compat, "#compat-ai": compatAi, "#compat-http": compatHttp, "#compat-cli": compatCli }[name]
        if (module === undefined) throw new Error(`${path} imports ${name}, which this build has no module for`)
        return `${quote}${targetOf(module)}.js${quote}`
      })
    )
    count += 1
  }
  return count
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== "3") {
    console.error("usage: node scripts/compat-paths.mjs 3 (the Effect 4 build is rewritten by build-effect4.mjs)")
    process.exit(2)
  }
  rewrite(
    `${root}dist`,
    `${root}dist/src/face/compat/Effect3`,
    `${root}dist/src/apps/effect-ai/compat/Ai3`,
    `${root}dist/src/apps/http/compat/Http3`,
    [`${root}dist/effect4`],
    `${root}dist/src/apps/cli/compat/Cli3`
  )
}
