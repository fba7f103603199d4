/**
 * Vitest global setup of the Effect 4 suite: the program bundled twice from the same sources, as
 * `test/support/programSetup.ts` bundles it for the root suite (`scripts/bundle-options.mjs`), once
 * on the package's Effect 3 and once on test-effect4's Effect 4 (`scripts/bundle-effect4.mjs`), into
 * `test-artifacts/programs-<pid>/`. `test/program.test.ts` runs both and compares what they print;
 * the root suite's CLI files that run here too (the `both` project) run the Effect 4 one.
 */
import * as esbuild from "esbuild"
import { mkdirSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"
import { effect4Plugin } from "../scripts/bundle-effect4.mjs"
import { bundleOptions } from "../scripts/bundle-options.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    /** The program's entry file bundled on each Effect. */
    programs: { readonly effect3: string; readonly effect4: string }
    /** The program the root suite's CLI files run here (`test/support/Program.ts`): the Effect 4 one. */
    program: string
  }
}

const root = fileURLToPath(new URL("..", import.meta.url))

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outdir = `${root}test-artifacts/programs-${process.pid}`
  mkdirSync(outdir, { recursive: true })
  const build = (major: "effect3" | "effect4") =>
    esbuild.build({
      entryPoints: { "context-compressor": `${root}src/apps/cli/bin.ts` },
      outdir: `${outdir}/${major}`,
      ...bundleOptions,
      outExtension: { ".js": ".mjs" },
      ...(major === "effect4" ? { target: "node22", plugins: [effect4Plugin] } : {})
    })
  await Promise.all([build("effect3"), build("effect4")])
  project.provide("program", `${outdir}/effect4/context-compressor.mjs`)
  project.provide("programs", {
    effect3: `${outdir}/effect3/context-compressor.mjs`,
    effect4: `${outdir}/effect4/context-compressor.mjs`
  })
  return async () => rmSync(outdir, { recursive: true, force: true })
}
