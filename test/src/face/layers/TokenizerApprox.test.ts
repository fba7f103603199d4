import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import * as Tokenizer from "../../../../src/face/services/Tokenizer.js"
import { prop } from "../../../support/Property.js"

describe("TokenizerApprox", () => {
  it.effect("is named chars/4 and counts a quarter of the characters, rounded up", () =>
    Effect.gen(function*() {
      const tokenizer = yield* Tokenizer.Tokenizer
      assert.strictEqual(tokenizer.name, "chars/4")
      assert.strictEqual(tokenizer.count(""), 0)
      assert.strictEqual(tokenizer.count("a"), 1)
      assert.strictEqual(tokenizer.count("abcd"), 1)
      assert.strictEqual(tokenizer.count("abcde"), 2)
      assert.strictEqual(tokenizer.count("x".repeat(4_000)), 1_000)
    }).pipe(Effect.provide(TokenizerApprox.layer)))

  prop(
    "the count is ceil(length / 4) and adds up within one token per concatenation",
    [fc.string(), fc.string()],
    ([a, b]) => {
      assert.strictEqual(TokenizerApprox.count(a), Math.ceil(a.length / 4))
      const joined = TokenizerApprox.count(a + b)
      assert.isAtMost(joined, TokenizerApprox.count(a) + TokenizerApprox.count(b))
      assert.isAtLeast(joined, TokenizerApprox.count(a) + TokenizerApprox.count(b) - 1)
    }
  )
})
