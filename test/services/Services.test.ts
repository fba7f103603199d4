import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Services from "../../services/index.js"

type Module = Record<string, unknown>

/** Every service tag of `services/`: its module, its name there, and the constructor it should have. */
const tags = Object.entries(Services as unknown as Record<string, Module>).flatMap(([moduleName, module]) =>
  Object.entries(module)
    .filter(([, value]) => Context.isTag(value))
    .map(([name, tag]) => ({
      moduleName,
      module,
      name,
      tag: tag as Context.Tag<unknown, object>,
      // The module's own tag is made by `make`; another tag beside it (`SettingsOverrides`) by `make` and the rest of its name.
      constructor: name === moduleName
        ? "make"
        : `make${name.startsWith(moduleName) ? name.slice(moduleName.length) : name}`
    }))
)

describe("services: one make shape", () => {
  it("every module of services/ holds a Context.Tag class named for it", () => {
    for (const moduleName of Object.keys(Services)) {
      assert.isTrue(tags.some((entry) => entry.name === moduleName), moduleName)
    }
  })

  for (const { constructor, module, moduleName, name, tag } of tags) {
    it.effect(`${moduleName}.${name} is made by ${moduleName}.${constructor}, and its layer serves exactly what make built`, () =>
      Effect.gen(function*() {
        const make = module[constructor]
        assert.isFunction(make, `${moduleName}.${constructor}`)
        const operations = { probe: () => name }
        const service = (make as (service: object) => object)(operations)
        assert.strictEqual(service, operations)
        const served = yield* Effect.provide(tag, Layer.succeed(tag, service))
        assert.strictEqual(served, operations)
        assert.strictEqual((served as typeof operations).probe(), name)
      }))
  }
})
