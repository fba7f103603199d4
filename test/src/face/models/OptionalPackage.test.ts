import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import * as OptionalPackage from "../../../../src/face/models/OptionalPackage.js"
import { prop } from "../../../support/Property.js"

const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/)
const packageName = fc.oneof(segment, fc.tuple(segment, segment).map(([scope, name]) => `@${scope}/${name}`))

const notFound = (specifier: string) =>
  Object.assign(
    new Error(
      `Cannot find package '${specifier}' imported from /app/node_modules/context-compressor/dist/layers/sql/SqlPg.js`
    ),
    {
      code: "ERR_MODULE_NOT_FOUND"
    }
  )

describe("OptionalPackage", () => {
  prop("a missing package, imported by itself or by a subpath, is named as the package to install", [
    packageName,
    fc.option(segment, { nil: undefined })
  ], ([name, subpath]) => {
    assert.strictEqual(
      OptionalPackage.missingPackageOf(notFound(subpath === undefined ? name : `${name}/${subpath}`)),
      name
    )
  })

  it("a missing file of an installed package, or any other failure, is not a missing package", () => {
    assert.isUndefined(
      OptionalPackage.missingPackageOf(
        Object.assign(new Error("Cannot find module '/app/dist/x.js' imported from /app/y.js"), {
          code: "ERR_MODULE_NOT_FOUND"
        })
      )
    )
    assert.isUndefined(OptionalPackage.missingPackageOf(new SyntaxError("Unexpected token")))
    assert.isUndefined(OptionalPackage.missingPackageOf("not an error"))
  })

  it.effect("load fails with one line naming the package when it is not installed, and returns the module when it is", () =>
    Effect.gen(function*() {
      const specifier = "context-compressor-no-such-package"
      const error = yield* Effect.flip(OptionalPackage.load(specifier, "the test", () => import(specifier)))
      assert.strictEqual(error._tag, "MissingPackageError")
      assert.strictEqual(error.packageName, specifier)
      assert.strictEqual(
        error.message,
        `the test needs the package ${specifier}, which is not installed: npm install ${specifier}`
      )
      const Schema = yield* OptionalPackage.load("effect", "the test", () => import("effect/Schema"))
      assert.isFunction(Schema.decodeUnknownSync)
    }))

  it.effect("a module that is there but fails to load is a defect, not a missing package", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        OptionalPackage.load("broken", "the test", () => Promise.reject(new SyntaxError("Unexpected token")))
      )
      assert.isTrue(Exit.isFailure(exit) && TestCompat.isDieOnly(exit.cause))
    }))
})
