import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as Layers from "../../layers/index.js"

const moved = readFileSync(new URL("../../docs/moved.md", import.meta.url), "utf8")

/** The rows of docs/moved.md that name a deprecated alias and its new name, values only (types are erased). */
const aliases = Array.from(moved.matchAll(/^\| `(\w+)\.(\w+)` \| `(\w+)\.(\w+)` \|$/gm), (match) => ({
  oldModule: match[1]!,
  oldName: match[2]!,
  newModule: match[3]!,
  newName: match[4]!
}))

const exportOf = (module: string, name: string): unknown => (Layers as unknown as Record<string, Record<string, unknown>>)[module]?.[name]

describe("docs/moved.md", () => {
  it("lists the renamed layers and the moved provider", () => {
    assert.isAtLeast(aliases.length, 13)
  })

  it("every deprecated alias it lists is the value of its new name, and both exist", () => {
    for (const { newModule, newName, oldModule, oldName } of aliases) {
      const current = exportOf(newModule, newName)
      assert.isDefined(current, `${newModule}.${newName}`)
      assert.strictEqual(exportOf(oldModule, oldName), current, `${oldModule}.${oldName} is ${newModule}.${newName}`)
    }
  })
})
