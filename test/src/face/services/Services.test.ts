import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Services from "../../../../src/face/services/index.js"

type Module = Record<string, unknown>

/** Every service tag of `src/face/services/`: its module and its name there. */
const tags = Object.entries(Services as unknown as Record<string, Module>).flatMap(([moduleName, module]) =>
  Object.entries(module)
    .filter(([, value]) => TestCompat.isServiceTag(value))
    .map(([name, tag]) => ({ moduleName, module, name, tag: tag as TestCompat.ServiceTag }))
)

describe("services: made by their tag", () => {
  it("every module of src/face/services/ holds a Context.Tag class named for it", () => {
    for (const moduleName of Object.keys(Services)) {
      assert.isTrue(tags.some((entry) => entry.name === moduleName), moduleName)
    }
  })

  for (const { module, moduleName, name, tag } of tags) {
    it.effect(`${moduleName}.${name} is made by its tag's of, its module has no identity make, and its layer serves exactly what of built`, () =>
      Effect.gen(function*() {
        // No identity constructor beside the tag: a service is made by the tag's own `of`.
        assert.isUndefined(module["make"], `${moduleName}.make`)
        assert.isUndefined(module[`make${name.startsWith(moduleName) ? name.slice(moduleName.length) : name}`])
        const operations = { probe: () => name }
        const service = tag.of(operations)
        assert.strictEqual(service, operations)
        const served = yield* Effect.provide(tag, Layer.succeed(tag, service))
        assert.strictEqual(served, operations)
        assert.strictEqual((served as typeof operations).probe(), name)
      }))
  }
})
