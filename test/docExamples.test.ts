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
 * and line of the doc comment.
 */
import { afterAll, assert, beforeAll, describe, it, vi } from "@effect/vitest"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import ts from "typescript"
import * as Program from "./support/Program.js"

/** The folders docgen documents and the ones it leaves out (`docs/api/generate.ts`). */
const documentedFolders = ["src", "rules", "services", "layers"]
const undocumented = ["src/internal/", "src/adapters/internal/", "src/cli/", "layers/internal/"]

/** One ```ts block of an `@example`, where its doc comment is and what it documents. */
interface Example {
  /** The module's path from the repository's root. */
  readonly module: string
  /** The line of the module where the block's code starts (1-based). */
  readonly line: number
  /** The export the doc comment documents (`module` for a module's own comment). */
  readonly documents: string
  readonly code: string
}

const sourcesUnder = (folder: string): ReadonlyArray<string> =>
  Fs.readdirSync(NodePath.join(Program.root, folder), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = `${folder}/${entry.name}`
      if (entry.isDirectory()) return undocumented.includes(`${path}/`) ? [] : sourcesUnder(path)
      return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
    })

const lineAt = (text: string, offset: number): number => text.slice(0, offset).split("\n").length

/** The ```ts blocks of the `@example` tags of a module's doc comments. */
const examplesOf = (module: string): ReadonlyArray<Example> => {
  const text = Fs.readFileSync(NodePath.join(Program.root, module), "utf8")
  const examples: Array<Example> = []
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = comment[0].split("\n")
    const after = text.slice(comment.index + comment[0].length, comment.index + comment[0].length + 300)
    const documents =
      /^\s*export\s+(?:declare\s+)?(?:abstract\s+)?(?:const|let|class|function\*?|interface|type|namespace)\s+(\w+)/
        .exec(after)?.[1] ?? "module"
    let inExample = false
    let block: { readonly start: number; readonly lines: Array<string> } | undefined
    lines.forEach((raw, k) => {
      const line = raw.replace(/^\s*(?:\/\*\*|\*\/|\*)? ?/, "").replace(/\s*\*\/$/, "")
      if (block !== undefined) {
        if (line.trim() === "```") {
          examples.push({ module, line: block.start, documents, code: block.lines.join("\n") })
          block = undefined
        } else {
          block.lines.push(line)
        }
        return
      }
      if (/^@\w+/.test(line.trim())) inExample = line.trim().startsWith("@example")
      if (inExample && /^```(?:ts|typescript)\s*$/.test(line.trim())) {
        block = { start: lineAt(text, comment.index) + k + 1, lines: [] }
      }
    })
    assert.isUndefined(block, `${module}:${lineAt(text, comment.index)}: an example's code block is not closed`)
  }
  return examples
}

const examples = documentedFolders.flatMap(sourcesUnder).flatMap(examplesOf)
const where = (example: Example): string => `${example.module}:${example.line} (${example.documents})`

/** The folder the examples are written to, inside the repository (ignored by git), so the package's names resolve. */
const folder = NodePath.join(Program.root, "test-artifacts", "doc-examples")
/** docgen imports Node's `assert` into an example that uses it (and nothing else); so does this test. */
const withAssert = (
  code: string
): string => (code.includes("assert.") ? `import * as assert from "node:assert"\n${code}` : code)
const fileOf = (example: Example): string =>
  NodePath.join(folder, `${example.module.replace(/\.ts$/, "").replace(/\//g, "_")}_${example.line}.ts`)

beforeAll(() => {
  Fs.rmSync(folder, { recursive: true, force: true })
  Fs.mkdirSync(folder, { recursive: true })
  for (const example of examples) Fs.writeFileSync(fileOf(example), withAssert(example.code))
})
afterAll(() => Fs.rmSync(folder, { recursive: true, force: true }))

/** A declaration typed as a `Layer`, or a function (its parameters nested one level at most) that returns one. */
const returnsLayer = /^export const \w+(?::\s*Layer\.Layer<| = (?:<[^=]*>)?\((?:[^()]|\([^()]*\))*\):\s*Layer\.Layer<)/

/** Every service tag and every layer constructor has an example: the exports that must have one. */
const mustHaveExamples = (module: string): ReadonlyArray<string> => {
  const text = Fs.readFileSync(NodePath.join(Program.root, module), "utf8")
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
    const config = ts.getParsedCommandLineOfConfigFile(NodePath.join(Program.root, "tsconfig.json"), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) =>
        assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
    })!
    const options: ts.CompilerOptions = {
      ...config.options,
      noEmit: true,
      declaration: false,
      declarationMap: false,
      sourceMap: false,
      // An example may name a value it does not use (the layer a program would be given).
      noUnusedLocals: false,
      noUnusedParameters: false
    }
    const files = examples.map(fileOf)
    const program = ts.createProgram({ rootNames: files, options })
    const problems = examples.flatMap((example, k) => {
      const source = program.getSourceFile(files[k]!)
      if (source === undefined) return [`${where(example)}: not compiled`]
      const shift = withAssert(example.code) === example.code ? 0 : 1
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
        (diagnostic) => {
          const line = diagnostic.start === undefined
            ? 0
            : source.getLineAndCharacterOfPosition(diagnostic.start).line - shift
          return `${example.module}:${example.line + line} (${example.documents}): ${
            ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
          }`
        }
      )
    })
    assert.deepStrictEqual(problems, [])
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
        await import(NodeUrl.pathToFileURL(fileOf(example)).href)
      })
    }
  })
})
