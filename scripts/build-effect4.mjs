/**
 * Builds the Effect 4 face: the face's modules (and the shared core they import) compiled by tsc
 * into `dist/effect4/` against the pinned Effect 4 of `test-effect4/` (`tsconfig.build.effect4.json`,
 * whose `paths` map `effect` there for the types and `#compat` to `src/face/compat/Effect4.ts`; the
 * emitted modules import `effect` as written, so they load the application's Effect 4), then
 * `#compat`, `#compat-ai` and `#compat-http` rewritten to the compiled Effect 4 compat modules
 * (compat-paths.mjs).
 *
 * Run by `npm run build` and `prepare`, after the Effect 3 build and before the bundles and the
 * entry guards (`bundle-cli.mjs`).
 */
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { rewrite } from "./compat-paths.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))

// A fresh clone has not installed the test project yet: its lockfile pins the Effect 4 to build against.
if (!existsSync(`${root}test-effect4/node_modules/effect/package.json`)) {
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: `${root}test-effect4`,
    stdio: ["ignore", "ignore", "inherit"]
  })
}

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
try {
  execFileSync(process.execPath, [tsc, "-p", `${root}tsconfig.build.effect4.json`], { stdio: "inherit" })
} catch {
  // tsc has printed its diagnostics.
  process.exit(1)
}
rewrite(
  `${root}dist/effect4`,
  `${root}dist/effect4/src/face/compat/Effect4`,
  `${root}dist/effect4/src/apps/effect-ai/compat/Ai4`,
  `${root}dist/effect4/src/apps/http/compat/Http4`
)
