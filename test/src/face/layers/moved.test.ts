import { assert, describe, it } from "@effect/vitest"
// The entries by their package names: each Effect's own (docs/effect4.md, "Tests on Effect 4").
import * as Root from "context-compressor"
import * as EffectAi from "context-compressor/effect-ai"
import * as Http from "context-compressor/http"
import * as Layers from "context-compressor/layers"
import { readFileSync } from "node:fs"

const moved = readFileSync(new URL("../../../../docs/moved.md", import.meta.url), "utf8")

/**
 * The rows of docs/moved.md's tables of deprecated aliases (headed `old name (deprecated) | new name`) that name an
 * alias and its new name, values only (types are erased); the tables of removed names are not read.
 */
const aliasTables = moved.split(/^\| old name \(deprecated\) \| new name \|$/m).slice(1).map((after) =>
  after.split(/\n(?!\|)/)[0]!
)
const aliases = aliasTables.flatMap((table) =>
  Array.from(table.matchAll(/^\| `(\w+)\.(\w+)` \| `(\w+)\.(\w+)` \|$/gm), (match) => ({
    oldModule: match[1]!,
    oldName: match[2]!,
    newModule: match[3]!,
    newName: match[4]!
  }))
)

/** The entry points the moved names live in, by namespace. */
const namespaces = { ...Layers, ...EffectAi, ...Http, ...Root } as unknown as Record<string, Record<string, unknown>>

const exportOf = (module: string, name: string): unknown => namespaces[module]?.[name]

describe("docs/moved.md", () => {
  it("lists the renamed layers and the session id", () => {
    assert.isAtLeast(aliases.length, 9)
  })

  it("every deprecated alias it lists is the value of its new name, and both exist", () => {
    for (const { newModule, newName, oldModule, oldName } of aliases) {
      const current = exportOf(newModule, newName)
      assert.isDefined(current, `${newModule}.${newName}`)
      assert.strictEqual(exportOf(oldModule, oldName), current, `${oldModule}.${oldName} is ${newModule}.${newName}`)
    }
  })
})
