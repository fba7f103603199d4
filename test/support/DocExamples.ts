/**
 * The `@example`s of the doc comments: every ```ts block of an `@example` in the modules of the API
 * reference (`src/`, without the core, the face's internals, the program and the Effect 4 entries, as
 * `docs/api/generate.ts` documents them), where its doc comment is and what it documents. Read by
 * test/docExamples.test.ts, which typechecks and runs them all on Effect 3, and by
 * test-effect4/test/docExamples.test.ts, which does the same on Effect 4 for the modules compiled
 * for both Effects.
 */
import { assert } from "@effect/vitest"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import ts from "typescript"

/** The repository's root. */
export const root = NodeUrl.fileURLToPath(new URL("../..", import.meta.url))

/** The folders docgen documents and the ones it leaves out (`docs/api/generate.ts`). */
export const documentedFolders = ["src"]
const undocumented = [
  "src/core/",
  "src/face/models/internal/",
  "src/face/engine/internal/",
  "src/face/layers/internal/",
  "src/face/adapters/internal/",
  "src/apps/cli/",
  "src/effect4/"
]

/** One ```ts block of an `@example`, where its doc comment is and what it documents. */
export interface Example {
  /** The module's path from the repository's root. */
  readonly module: string
  /** The line of the module where the block's code starts (1-based). */
  readonly line: number
  /** The export the doc comment documents (`module` for a module's own comment). */
  readonly documents: string
  readonly code: string
}

/** The documented modules under a folder, by their paths from the repository's root. */
export const sourcesUnder = (folder: string): ReadonlyArray<string> =>
  Fs.readdirSync(NodePath.join(root, folder), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = `${folder}/${entry.name}`
      if (entry.isDirectory()) return undocumented.includes(`${path}/`) ? [] : sourcesUnder(path)
      return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
    })

const lineAt = (text: string, offset: number): number => text.slice(0, offset).split("\n").length

/** The ```ts blocks of the `@example` tags of a module's doc comments. */
export const examplesOf = (module: string): ReadonlyArray<Example> => {
  const text = Fs.readFileSync(NodePath.join(root, module), "utf8")
  const examples: Array<Example> = []
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = comment[0].split("\n")
    const after = text.slice(comment.index + comment[0].length, comment.index + comment[0].length + 300)
    const documents =
      /^\s*(?:\/\/[^\n]*\n\s*)*export\s+(?:declare\s+)?(?:abstract\s+)?(?:const|let|class|function\*?|interface|type|namespace)\s+(\w+)/
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

/** Where an example is, for a test's name and a problem's: `src/face/models/Json.ts:12 (parse)`. */
export const where = (example: Example): string => `${example.module}:${example.line} (${example.documents})`

/** docgen imports Node's `assert` into an example that uses it (and nothing else); so do the tests. */
export const withAssert = (
  code: string
): string => (code.includes("assert.") ? `import * as assert from "node:assert"\n${code}` : code)

/** The file of an example inside `folder`. */
export const fileOf = (folder: string, example: Example): string =>
  NodePath.join(folder, `${example.module.replace(/\.ts$/, "").replace(/\//g, "_")}_${example.line}.ts`)

/** The compiler options of a tsconfig.json for the examples: no output, and a name an example declares may go unused. */
export const compilerOptionsOf = (tsconfig: string): ts.CompilerOptions => {
  const config = ts.getParsedCommandLineOfConfigFile(tsconfig, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) =>
      assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
  })!
  return {
    ...config.options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    // An example may name a value it does not use (the layer a program would be given).
    noUnusedLocals: false,
    noUnusedParameters: false
  }
}

/** The examples' type errors, each named by the file and line of its doc comment, typechecked together in `folder`. */
export const typeProblems = (
  examples: ReadonlyArray<Example>,
  folder: string,
  options: ts.CompilerOptions
): ReadonlyArray<string> => {
  const files = examples.map((example) => fileOf(folder, example))
  const program = ts.createProgram({ rootNames: files, options })
  return examples.flatMap((example, k) => {
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
}
