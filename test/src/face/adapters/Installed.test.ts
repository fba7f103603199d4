import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as EffectAi from "context-compressor/effect-ai"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Installed from "../../../../src/face/adapters/Installed.js"
import * as OptionalPackage from "../../../../src/face/models/OptionalPackage.js"

describe("Installed", () => {
  it.effect("with @effect/ai installed, the adapters are every adapter of context-compressor/effect-ai, in its order", () =>
    Effect.gen(function*() {
      const adapters = yield* Installed.adapters
      assert.deepStrictEqual(adapters.map((adapter) => adapter.format), [
        "effect-ai",
        "ai-sdk",
        "anthropic",
        "openai-responses",
        "openai"
      ])
      adapters.forEach((adapter, k) => assert.strictEqual(adapter, EffectAi.adapters[k]))
    }))

  it("the stand-in for a missing @effect/ai detects nothing and refuses to decode, naming the package", () => {
    const standIn = Installed.missingEffectAi(
      new OptionalPackage.MissingPackageError({ packageName: "@effect/ai", feature: "the @effect/ai Prompt format" })
    )
    assert.strictEqual(standIn.format, "effect-ai")
    assert.isFalse(standIn.detect({ content: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }))
    const decoded = standIn.decodeResult([])
    assert.include(Option.getOrThrow(TestCompat.getFailure(decoded)).reason, "npm install @effect/ai")
    const failed = Effect.runSync(Compat.result(standIn.decode([])))
    assert.deepStrictEqual(failed, decoded)
  })
})
