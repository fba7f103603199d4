import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Adapters from "../../../src/adapters/Adapters.js"
import * as Installed from "../../../src/adapters/Installed.js"
import * as OptionalPackage from "../../../src/OptionalPackage.js"

describe("Installed", () => {
  it.effect("with @effect/ai installed, the adapters are those of Adapters.all, in its order", () =>
    Effect.gen(function*() {
      const adapters = yield* Installed.adapters
      assert.deepStrictEqual(adapters.map((adapter) => adapter.format), Adapters.all.map((adapter) => adapter.format))
      assert.strictEqual(adapters[0], Adapters.all[0])
    }))

  it("the stand-in for a missing @effect/ai detects nothing and refuses to decode, naming the package", () => {
    const standIn = Installed.missingEffectAi(new OptionalPackage.MissingPackageError({ packageName: "@effect/ai", feature: "the @effect/ai Prompt format" }))
    assert.strictEqual(standIn.format, "effect-ai")
    assert.isFalse(standIn.detect({ content: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }))
    const decoded = standIn.decode([])
    assert.isTrue(Either.isLeft(decoded) && decoded.left.reason.includes("npm install @effect/ai"))
  })
})
