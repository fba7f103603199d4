/**
 * The `@example`s of the doc comments on Effect 4: the examples test/docExamples.test.ts holds to the
 * code on Effect 3, those of every module compiled for both Effects (one whose Effect 4 twin under
 * src/effect4/ re-exports it, or that an Effect 4 entry re-exports), are written to a folder of their
 * own inside the repository; typechecked together on this project's compiler options, where
 * `context-compressor`, `context-compressor/rules`, … are the Effect 4 entries (`src/effect4/index.ts`,
 * `src/effect4/rules/index.ts`, …) and `effect` is Effect 4; and run, each in a test of its own, through
 * this project's vitest plugin, which resolves those names the same way. A module converted to one
 * source brings its examples here by itself.
 */
import { afterAll, assert, beforeAll, describe, it, vi } from "@effect/vitest"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import {
  compilerOptionsOf,
  documentedFolders,
  type Example,
  examplesOf,
  fileOf,
  root,
  sourcesUnder,
  typeProblems,
  where,
  withAssert
} from "../../test/support/DocExamples.js"

/** What a module re-exports with `export *` (`export * from`, `export * as X from`), as repository paths. */
const reexportsOf = (path: string): ReadonlyArray<string> =>
  Array.from(
    Fs.readFileSync(NodePath.join(root, path), "utf8").matchAll(/^export \*(?: as \w+)? from "([^"]+)\.js"$/gm),
    (match) => NodePath.posix.join(NodePath.posix.dirname(path), `${match[1]!}.ts`)
  )

/** The modules of src/effect4/ and, through the indexes they reach, every module they re-export. */
const reexported = (folder: string): ReadonlyArray<string> => {
  const found = new Set<string>()
  const visit = (path: string): void => {
    for (const module of reexportsOf(path)) {
      if (found.has(module)) continue
      found.add(module)
      visit(module)
    }
  }
  const walk = (dir: string): void => {
    for (const entry of Fs.readdirSync(NodePath.join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts")) visit(path)
    }
  }
  walk(folder)
  return Array.from(found)
}

/** The documented modules compiled for both Effects: those the Effect 4 entries reach outside src/effect4/. */
const bothEffects = new Set(reexported("src/effect4").filter((path) => !path.startsWith("src/effect4/")))

/**
 * The Effect 3 APIs an example may show and what an Effect 4 program writes instead (docs/effect4.md,
 * "The examples on Effect 4"): a pure answer is read with `Result` where Effect 3 reads an `Either`, and
 * @effect/ai's `Prompt` is `effect/ai`'s. Each example runs on Effect 4 as written, but for these.
 */
export const effect4Renames: ReadonlyArray<readonly [RegExp, string]> = [
  [/^import \{ Either \} from "effect"$/gm, "import { Result } from \"effect\""],
  [/^import \{ Prompt \} from "@effect\/ai"$/gm, "import { Prompt } from \"effect/ai\""],
  [/\bEither\.getOrThrow\(/g, "Result.getOrThrow("],
  [/\bEither\.isLeft\(/g, "Result.isFailure("],
  [/\bEither\.isRight\(/g, "Result.isSuccess("],
  [/(\w)\.left\b/g, "$1.failure"],
  [/(\w)\.right\b/g, "$1.success"]
]

/** An example as an Effect 4 program writes it. */
export const forEffect4 = (code: string): string =>
  effect4Renames.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), code)

/**
 * Examples that show an API of Effect 3 only, by where they are (module and what they document),
 * with the reason. Keep this short: an example that can be written for both should be.
 */
const effect3Only: ReadonlyMap<string, string> = new Map()

const skipped = (example: Example): string | undefined => effect3Only.get(`${example.module} ${example.documents}`)

const examples = documentedFolders.flatMap(sourcesUnder).filter((module) => bothEffects.has(module)).flatMap(
  examplesOf
)
const running = examples.filter((example) => skipped(example) === undefined)

/** Their own folder, so the Effect 3 suite's doc-examples folder is never this run's. */
const folder = NodePath.join(root, "test-artifacts", "doc-examples-effect4")

beforeAll(() => {
  Fs.rmSync(folder, { recursive: true, force: true })
  Fs.mkdirSync(folder, { recursive: true })
  for (const example of running) Fs.writeFileSync(fileOf(folder, example), withAssert(forEffect4(example.code)))
})
afterAll(() => Fs.rmSync(folder, { recursive: true, force: true }))

describe("the @example code of the modules compiled for both Effects, on Effect 4", () => {
  it("is found: the modules converted so far and their examples", () => {
    for (
      const module of [
        "src/face/models/Selector.ts",
        "src/face/models/Rule.ts",
        "src/face/models/Json.ts",
        "src/face/models/Envelope.ts",
        "src/face/services/Tokenizer.ts",
        "src/face/adapters/OpenAiChat.ts"
      ]
    ) {
      assert.isTrue(bothEffects.has(module), module)
    }
    assert.isAtLeast(running.length, 10)
    // What an Effect 4 program writes: no Effect 3 module or type is left after the renames.
    for (const example of running) {
      assert.notMatch(forEffect4(example.code), /\bEither\b|@effect\/(?:ai|platform)\b/, where(example))
    }
    assert.strictEqual(
      forEffect4(
        "import { Either } from \"effect\"\nconst r = Either.getOrThrow(x)\nassert.ok(Either.isLeft(y) && y.left.index === 0)"
      ),
      "import { Result } from \"effect\"\nconst r = Result.getOrThrow(x)\nassert.ok(Result.isFailure(y) && y.failure.index === 0)"
    )
    // A skip names an example that is there.
    for (const key of effect3Only.keys()) {
      assert.isTrue(examples.some((example) => `${example.module} ${example.documents}` === key), key)
    }
  })

  it("typechecks on Effect 4, against the package's Effect 4 entries", () => {
    const options = compilerOptionsOf(NodePath.join(root, "test-effect4", "tsconfig.json"))
    assert.deepStrictEqual(typeProblems(running, folder, options), [])
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
      const reason = skipped(example)
      if (reason !== undefined) {
        // Effect 3 only: the reason is in effect3Only.
        it.skip(`${where(example)}: ${reason}`, () => {})
      } else {
        it(where(example), async () => {
          await import(NodeUrl.pathToFileURL(fileOf(folder, example)).href)
        })
      }
    }
  })
})
