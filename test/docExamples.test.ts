/**
 * The `@example`s of the doc comments, held to the code: every ```ts block of
 * an `@example` in the modules of the API reference (`src/`, `src/face/rules/`,
 * `src/face/services/`, `src/face/layers/`, without the internals and the program, as
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
import ts from "typescript"
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

/** Whether a declaration's doc comment has an `@example` with a fenced ```ts block. */
const hasExample = (node: ts.Node): boolean =>
  ts.getJSDocTags(node).some((tag) =>
    tag.tagName.text === "example" && /```(?:ts|typescript)\b/.test(ts.getTextOfJSDocComment(tag.comment) ?? "")
  )

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

/** A class built on a service tag (`Compat.Service<…>()(…)`, `Context.Tag(…)`) or an error class (`…TaggedError`). */
const isTagOrError = (node: ts.ClassDeclaration, source: ts.SourceFile): boolean =>
  (node.heritageClauses ?? []).some((clause) =>
    clause.types.some((type) =>
      /^(?:Compat\.Service|Context\.Tag|Context\.Service|Effect\.Service|Schema\.TaggedError|Data\.TaggedError)\b/.test(
        type.expression.getText(source)
      )
    )
  )

/** A layer constructor: named `layer…` or `open…`, or declared (or returning) a `Layer`. */
const isLayerConstructor = (declaration: ts.VariableDeclaration, source: ts.SourceFile): boolean => {
  const name = declaration.name.getText(source)
  if (/^(?:layer|open)/.test(name)) return true
  const declared = declaration.type?.getText(source) ?? ""
  const initializer = declaration.initializer
  const returned =
    initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))
      ? initializer.type?.getText(source) ?? ""
      : ""
  return /^Layer\.Layer</.test(declared) || /^Layer\.Layer</.test(returned)
}

/**
 * The exports of a module that must have an example, read with the TypeScript parser: in src/face/services/
 * (and src/face/engine/Compactor.ts) the service tags and error classes; in src/face/layers/ the layer constructors (and
 * `open…` functions); in src/face/rules/ (but its index) every exported value.
 */
const mustHaveExamples = (module: string): ReadonlyArray<{ readonly name: string; readonly documented: boolean }> => {
  const source = ts.createSourceFile(
    module,
    Fs.readFileSync(NodePath.join(root, module), "utf8"),
    ts.ScriptTarget.Latest,
    true
  )
  const kind = module.split("/")[2]
  return source.statements.flatMap((statement) => {
    if (!isExported(statement)) return []
    if (ts.isClassDeclaration(statement) && statement.name !== undefined) {
      return kind !== "layers" && kind !== "rules" && isTagOrError(statement, source)
        ? [{ name: statement.name.text, documented: hasExample(statement) }]
        : []
    }
    if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) {
      const name = statement.name.text
      const returnsLayer = /^Layer\.Layer</.test(statement.type?.getText(source) ?? "")
      return kind === "rules" || (kind === "layers" && (/^(?:layer|open)/.test(name) || returnsLayer))
        ? [{ name, documented: hasExample(statement) }]
        : []
    }
    if (!ts.isVariableStatement(statement)) return []
    return statement.declarationList.declarations.flatMap((declaration) =>
      ts.isIdentifier(declaration.name) &&
        (kind === "rules" || (kind === "layers" && isLayerConstructor(declaration, source)))
        ? [{ name: declaration.name.text, documented: hasExample(declaration) }]
        : []
    )
  })
}

/** The modules whose exports {@link mustHaveExamples} reads. */
const covered = [
  ...sourcesUnder("src/face/services"),
  "src/face/engine/Compactor.ts",
  ...sourcesUnder("src/face/layers"),
  ...sourcesUnder("src/face/rules").filter((module) => module !== "src/face/rules/index.ts")
]

describe("the @example code of the doc comments", () => {
  it("is found: every service tag and error class of src/face/services/ and src/face/engine/Compactor.ts, every layer constructor of src/face/layers/ and every value of src/face/rules/ has one", () => {
    const exports = covered.flatMap((module) => mustHaveExamples(module).map((found) => ({ module, ...found })))
    const missing = exports.filter((found) => !found.documented).map((found) => `${found.module} ${found.name}`)
    assert.deepStrictEqual(missing, [], `exports without an @example: ${missing.join(", ")}`)
    // The parser finds what it is meant to (a change of how tags or layers are declared shows here).
    for (
      const name of [
        "src/face/services/Summarizer.ts Summarizer",
        "src/face/services/Summarizer.ts SummarizerError",
        "src/face/layers/TokenizerApprox.ts layer",
        "src/face/layers/sql/SqlPg.ts open",
        "src/face/rules/Truncation.ts counterSuffixes"
      ]
    ) {
      assert.isTrue(exports.some((found) => `${found.module} ${found.name}` === name), name)
    }
    // What the parser finds documented, the extraction of test/support/DocExamples.ts runs as its example.
    for (const found of exports) {
      assert.isTrue(
        examples.some((example) => example.module === found.module && example.documents === found.name) ||
          !found.documented,
        `${found.module} ${found.name}`
      )
    }
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
