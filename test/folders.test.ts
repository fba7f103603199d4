/**
 * The folder table of docs/architecture.md, checked on the sources: each row names a folder and, in its last column, the folders its
 * modules may import (`everything above` is every folder of the rows before
 * it, `but X` leaves X out). Every import of every module of the package's
 * folders, type-only ones included, must land in its own folder or in one
 * its row names; and every folder of the package is in the table.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** The package's folders as the table names them, the most specific first (so `src/face/models/` wins over `src/face/`). */
const packageFolders = [
  "src/core/",
  "src/face/models/",
  "src/face/engine/",
  "src/face/services/",
  "src/face/rules/",
  "src/face/layers/",
  "src/face/adapters/",
  "src/face/compat/",
  "src/face/",
  "src/apps/effect-ai/",
  "src/apps/http/",
  "src/apps/promise/",
  "src/apps/ai-sdk/",
  "src/apps/cli/",
  "src/effect4/"
] as const

const folderOf = (path: string): string | undefined => packageFolders.find((folder) => path.startsWith(folder))

interface Row {
  readonly folders: ReadonlyArray<string>
  readonly imports: string
}

/** The rows of the table under `## Layout`: the folders of the first column, the text of the last. */
export const tableRows = (markdown: string): ReadonlyArray<Row> => {
  const start = markdown.indexOf("## Layout")
  const end = markdown.indexOf("\n## ", start + 1)
  const folderNames = (cell: string) => Array.from(cell.matchAll(/`([a-z0-9-]+\/(?:[a-z0-9-]+\/)*)`/g), (m) => m[1]!)
  return markdown.slice(start, end).split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split(" | ")
      return { folders: folderNames(cells[0]!), imports: cells[cells.length - 1]!.replace(/\s*\|\s*$/, "") }
    })
}

/** What each folder of the table may import: the folders its row names, `everything above` expanded. */
export const allowedImports = (rows: ReadonlyArray<Row>): ReadonlyMap<string, ReadonlySet<string>> => {
  const allowed = new Map<string, ReadonlySet<string>>()
  rows.forEach((row, index) => {
    const named = Array.from(row.imports.matchAll(/`([a-z0-9-]+\/(?:[a-z0-9-]+\/)*)`/g), (m) => m[1]!)
    const above = row.imports.startsWith("everything above") ? rows.slice(0, index).flatMap((r) => r.folders) : []
    const but = row.imports.startsWith("everything above but") ? named : []
    const set = new Set([...above.filter((folder) => !but.includes(folder)), ...(above.length > 0 ? [] : named)])
    for (const folder of row.folders) allowed.set(folder, set)
  })
  return allowed
}

const sourcesUnder = (directory: string): ReadonlyArray<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })

const importPattern = /^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|^import\s+"(\.[^"]+)"/gm

/** Every import between two folders of the package: `from → to (file)`. */
const folderImports = (): ReadonlyArray<{ readonly from: string; readonly to: string; readonly file: string }> =>
  sourcesUnder(join(repository, "src")).flatMap(
    (file) => {
      const path = relative(repository, file)
      const from = folderOf(path)
      return Array.from(readFileSync(file, "utf8").matchAll(importPattern), (match) => {
        const target = normalize(join(dirname(path), (match[1] ?? match[2]!).replace(/\.js$/, ".ts")))
        return { from: from!, to: folderOf(target) ?? target, file: path }
      }).filter((edge) => edge.from !== edge.to)
    }
  )

const markdown = readFileSync(join(repository, "docs/architecture.md"), "utf8")

describe("the folder table of docs/architecture.md", () => {
  it("reads the rows: a row's named folders, everything above, and everything above but a folder", () => {
    const rows = tableRows(
      "## Layout\n\n| `a/` | x | `b/` |\n| `b/` | y | `a/`, `c/d/` |\n| `c/d/` | z | everything above |\n" +
        "| `e/`, `f/` | w | everything above but `a/` |\n\n## Next\n"
    )
    assert.deepStrictEqual(rows.map((row) => row.folders), [["a/"], ["b/"], ["c/d/"], ["e/", "f/"]])
    const allowed = allowedImports(rows)
    assert.deepStrictEqual(Array.from(allowed.get("a/")!), ["b/"])
    assert.deepStrictEqual(Array.from(allowed.get("b/")!).sort(), ["a/", "c/d/"])
    assert.deepStrictEqual(Array.from(allowed.get("c/d/")!).sort(), ["a/", "b/"])
    assert.deepStrictEqual(Array.from(allowed.get("f/")!).sort(), ["b/", "c/d/"])
  })

  it("names every folder of the package", () => {
    const named = tableRows(markdown).flatMap((row) => row.folders)
    assert.deepStrictEqual(packageFolders.filter((folder) => !named.includes(folder)), [])
  })

  it("allows every import between the package's folders that the sources make, type-only ones included", () => {
    const allowed = allowedImports(tableRows(markdown))
    const refused = folderImports()
      .filter((edge) => !(allowed.get(edge.from)?.has(edge.to) ?? false))
      .map((edge) => `${edge.file} → ${edge.to} (the row of ${edge.from} does not name it)`)
    assert.deepStrictEqual(Array.from(new Set(refused)), [])
  })
})
