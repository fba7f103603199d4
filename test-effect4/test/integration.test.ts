/**
 * docs/integration.md's "Effect 4" section, held to code that runs on effect@4: each of its
 * TypeScript blocks is the file of test/integration/ it names (tickets.ts, reduce.ts,
 * tickets.test.ts, which run here: the last one is a test file of this suite, and the typecheck of
 * the Effect 4 project covers all three), but for the files' leading comment and their imports of
 * the package written as paths; and reduce.ts prints what the page says it prints.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const page = readFileSync(fileURLToPath(new URL("../../docs/integration.md", import.meta.url)), "utf8")
const start = page.indexOf("\n## Effect 4\n")
const end = page.indexOf("\n## ", start + 1)
const section = page.slice(start, end === -1 ? undefined : end)

/** The page's blocks in order: the file each names (`` `name.ts`: `` on the line before), its language and code. */
const blocks = Array.from(section.matchAll(/(?:`([\w.]+)`[^\n]*\n\n)?```(\w+)\n([\s\S]*?)```/g), (match) => ({
  file: match[1],
  language: match[2]!,
  code: match[3]!
}))

/** A file of test/integration/ as the page shows it: without its leading comment, importing the package by name. */
const asShown = (file: string): string =>
  readFileSync(fileURLToPath(new URL(`./integration/${file}`, import.meta.url)), "utf8")
    .replace(/^(?:\/\/[^\n]*\n)+/, "")
    .replaceAll("\"../../../src/effect4/rules/index.js\"", "\"context-compressor/effect4/rules\"")
    .replaceAll("\"../../../src/effect4/index.js\"", "\"context-compressor/effect4\"")

describe("docs/integration.md, Effect 4", () => {
  it("shows tickets.ts, reduce.ts and tickets.test.ts as they are, importing context-compressor/effect4 and /effect4/rules", () => {
    assert.isAtLeast(start, 0)
    // The named files; the program for both Effects is portable.test.ts's.
    const shown = blocks.filter((block) => block.language === "ts" && block.file !== undefined)
    assert.deepStrictEqual(shown.map((block) => block.file), ["tickets.ts", "reduce.ts", "tickets.test.ts"])
    for (const block of shown) assert.strictEqual(block.code, asShown(block.file!), block.file)
    assert.include(shown[0]!.code, "from \"context-compressor/effect4/rules\"")
  })

  it("reduce.ts prints what the page shows", async () => {
    const printed: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)))
    try {
      await import("./integration/reduce.js")
    } finally {
      log.mockRestore()
    }
    const output = blocks.find((block, k) => block.language === "text" && blocks[k - 1]?.file === "reduce.ts")
    assert.isDefined(output)
    assert.strictEqual(`${printed.join("\n")}\n`, output!.code)
    assert.notInclude(output!.code, "three paragraphs of notes")
  })
})
