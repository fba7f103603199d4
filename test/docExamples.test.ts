/**
 * The `@example`s of the doc comments, held to the code: every ```ts block of
 * an `@example` in the modules of the API reference (`src/`, `rules/`,
 * `services/`, `layers/`, without the internals and the program, as
 * `docs/api/generate.ts` documents them) is written to a folder inside the
 * repository, so that its imports of `context-compressor`,
 * `context-compressor/services`, `context-compressor/layers`, … resolve to the
 * sources as tsconfig.json's `paths` and vitest's aliases map them; typechecked
 * together with the TypeScript compiler API; and run, each in a test of its
 * own named by where its doc comment is. An example's failure names the file
 * and line of the doc comment. The extraction is test/support/DocExamples.ts,
 * shared with test-effect4/test/docExamples.test.ts, which does the same on
 * Effect 4 for the modules compiled for both Effects.
 */
import { afterAll, assert, beforeAll, describe, it, vi } from "@effect/vitest"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import {
  compilerOptionsOf,
  documentedFolders,
  examplesOf,
  fileOf,
  root,
  sourcesUnder,
  typeProblems,
  where,
  withAssert
} from "./support/DocExamples.js"

const examples = documentedFolders.flatMap(sourcesUnder).flatMap(examplesOf)

/** The folder the examples are written to, inside the repository (ignored by git), so the package's names resolve. */
const folder = NodePath.join(root, "test-artifacts", "doc-examples")

beforeAll(() => {
  Fs.rmSync(folder, { recursive: true, force: true })
  Fs.mkdirSync(folder, { recursive: true })
  for (const example of examples) Fs.writeFileSync(fileOf(folder, example), withAssert(example.code))
})
afterAll(() => Fs.rmSync(folder, { recursive: true, force: true }))

/** A declaration typed as a `Layer`, or a function (its parameters nested one level at most) that returns one. */
const returnsLayer = /^export const \w+(?::\s*Layer\.Layer<| = (?:<[^=]*>)?\((?:[^()]|\([^()]*\))*\):\s*Layer\.Layer<)/

/** Every service tag and every layer constructor has an example: the exports that must have one. */
const mustHaveExamples = (module: string): ReadonlyArray<string> => {
  const text = Fs.readFileSync(NodePath.join(root, module), "utf8")
  const tags = module.startsWith("layers/")
    ? []
    : Array.from(text.matchAll(/^export class (\w+) extends Context\.Tag\(/gm), (match) => match[1]!)
  // A layer constructor: an export named `layer…`, or one whose declared type or return type is a `Layer`.
  const layers = module.startsWith("layers/")
    ? Array.from(text.matchAll(/^export const (\w+)\b(?!: typeof )/gm), (match) => {
      const declaration = text.slice(match.index, match.index + 600)
      return match[1]!.startsWith("layer") || returnsLayer.test(declaration) ? [match[1]!] : []
    }).flat()
    : []
  return [...tags, ...layers]
}

describe("the @example code of the doc comments", () => {
  it("is found: every service tag of services/ and src/Compactor.ts and every layer constructor of layers/ has one", () => {
    const modules = [...sourcesUnder("services"), "src/Compactor.ts", ...sourcesUnder("layers")]
    const missing = modules.flatMap((module) =>
      mustHaveExamples(module)
        .filter((name) => !examples.some((example) => example.module === module && example.documents === name))
        .map((name) => `${module} ${name}`)
    )
    assert.deepStrictEqual(missing, [])
    assert.isAbove(examples.length, 60)
  })

  it("typechecks, on the repository's compiler options, against the package's own entry points", () => {
    assert.deepStrictEqual(typeProblems(examples, folder, compilerOptionsOf(NodePath.join(root, "tsconfig.json"))), [])
  })

  describe("runs", () => {
    // What the examples print is theirs, not the test's.
    const silenced: Array<{ readonly mockRestore: () => void }> = []
    beforeAll(() => {
      silenced.push(vi.spyOn(console, "log").mockImplementation(() => {}))
      silenced.push(vi.spyOn(console, "info").mockImplementation(() => {}))
    })
    afterAll(() => silenced.forEach((spy) => spy.mockRestore()))
    for (const example of examples) {
      it(where(example), async () => {
        await import(NodeUrl.pathToFileURL(fileOf(folder, example)).href)
      })
    }
  })
})
