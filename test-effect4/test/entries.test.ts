/**
 * The root entry's modules that the Effect 4 face compiles from the same source as Effect 3
 * (docs/effect4.md, "One source"): `Overflow`, `Envelope` and `OptionalPackage`, run on effect 4.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { Envelope, OptionalPackage, Overflow } from "../../effect4/index.js"

describe("the root entry's modules on Effect 4", () => {
  it("Overflow classifies a provider's overflow answer and nothing else", () => {
    const found = Overflow.classify({
      error: {
        message:
          "This model's maximum context length is 16000 tokens. However, your messages resulted in 40123 tokens.",
        code: "context_length_exceeded"
      }
    })
    assert.ok(Option.isSome(found))
    assert.strictEqual(found.value.provider, "openai")
    assert.strictEqual(found.value.limit, 16000)
    assert.strictEqual(found.value.promptTokens, 40123)
    assert.strictEqual(Overflow.isContextOverflow("Rate limit reached for requests"), false)
  })

  it("Envelope tells an agentic-workspace/v1 envelope, extra keys included, from other values", () => {
    const envelope = { protocol: Envelope.protocol, tool: "shell", action: "run", ok: true, extra: [1, 2] }
    assert.strictEqual(Envelope.isEnvelope(envelope), true)
    assert.strictEqual(Envelope.isEnvelope({ ...envelope, protocol: "other/v1" }), false)
    assert.strictEqual(Envelope.isEnvelope({ tool: "shell" }), false)
  })

  it("OptionalPackage.load fails with MissingPackageError, in one line, for a package that is not installed", async () => {
    const exit = await Effect.runPromiseExit(
      OptionalPackage.load("not-a-package-of-this-app", "the test", () => import("not-a-package-of-this-app" as string))
    )
    assert.ok(Exit.isFailure(exit))
    const error = Option.getOrThrow(Exit.findErrorOption(exit))
    assert.ok(error instanceof OptionalPackage.MissingPackageError)
    assert.strictEqual(error.packageName, "not-a-package-of-this-app")
    assert.strictEqual(
      error.message,
      "the test needs the package not-a-package-of-this-app, which is not installed: npm install not-a-package-of-this-app"
    )
  })
})
