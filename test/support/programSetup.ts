/**
 * Vitest global setup: the program the CLI tests run as a real executable,
 * bundled once per run from the sources with the options of the package's own
 * bundle (`scripts/bundle-options.mjs`), into `test-artifacts/program-<pid>/`.
 *
 * Why: started through tsx, each run of the program transpiled its sources
 * again, about 2 s of CPU against 0.4 s for the bundle, and the CLI suites
 * start it a few hundred times. The bundle is what users run, too. The
 * directory sits two levels under the repository's root, as `dist/cli/` does,
 * so that the program finds `web/` and the installed packages it leaves out.
 *
 * `CONTEXT_COMPRESSOR_TEST_TSX=1` runs the sources through tsx instead.
 */
import * as esbuild from "esbuild"
import { mkdirSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"
import { bundleOptions } from "../../scripts/bundle-options.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled program's entry file, or "" to run the sources through tsx. */
    program: string
  }
}

const root = fileURLToPath(new URL("../..", import.meta.url))

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env["CONTEXT_COMPRESSOR_TEST_TSX"] === "1") {
    project.provide("program", "")
    return async () => {}
  }
  const outdir = `${root}test-artifacts/program-${process.pid}`
  mkdirSync(outdir, { recursive: true })
  await esbuild.build({
    entryPoints: { "context-compressor": `${root}src/apps/cli/bin.ts` },
    outdir,
    ...bundleOptions,
    outExtension: { ".js": ".mjs" }
  })
  project.provide("program", `${outdir}/context-compressor.mjs`)
  return async () => rmSync(outdir, { recursive: true, force: true })
}
