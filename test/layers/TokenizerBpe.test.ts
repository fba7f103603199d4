import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { decode, encode } from "gpt-tokenizer/encoding/o200k_base"
import * as TokenizerBpe from "../../layers/TokenizerBpe.js"
import * as Tokenizer from "../../services/Tokenizer.js"

const plainText = { disallowedSpecial: new Set<string>() }

// The service outside an Effect, for the synchronous property tests.
const bpe = await Effect.runPromise(TokenizerBpe.make)

/** Text with special-token markers and agent-session fragments mixed into arbitrary Unicode. */
const sessionText = fc
  .array(
    fc.oneof(
      fc.fullUnicodeString({ maxLength: 40 }),
      fc.constantFrom("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|endofprompt|>", "\n", "  ", "\t"),
      fc.constantFrom("{\"protocol\":\"agentic-workspace/v1\",\"ok\":true}", "export const x = 1;", "job_0000beef exited 0", "Let me check.")
    ),
    { maxLength: 12 }
  )
  .map((parts) => parts.join(""))

describe("TokenizerBpe", () => {
  it.effect("is named o200k_base and gives the o200k_base counts of known strings", () =>
    Effect.gen(function*() {
      const tokenizer = yield* Tokenizer.Tokenizer
      assert.strictEqual(tokenizer.name, "o200k_base")
      assert.strictEqual(tokenizer.count(""), 0)
      assert.strictEqual(tokenizer.count("hello world"), 2)
      assert.strictEqual(tokenizer.count("Hello, world!"), 4)
      assert.strictEqual(tokenizer.count("The quick brown fox jumps over the lazy dog."), 10)
      assert.strictEqual(tokenizer.count("const x = 1;"), 6)
      assert.strictEqual(tokenizer.count("{\"ok\":true}"), 5)
    }).pipe(Effect.provide(TokenizerBpe.layer)))

  it("counts special-token-looking text as the plain text it is, without throwing", () => {
    // As the special token it would be 1; as text it is "<", "|", "end", "of", "text", "|", ">".
    assert.strictEqual(bpe.count("<|endoftext|>"), 7)
    assert.strictEqual(bpe.count("<|im_start|>system<|im_end|>"), 13)
    assert.isAbove(bpe.count("<|endoftext|><|endoftext|>"), 2)
  })

  it.prop("the count is a non-negative integer, 0 exactly for the empty text, and at most one token per UTF-8 byte", [sessionText], ([text]) => {
    const n = bpe.count(text)
    assert.isTrue(Number.isInteger(n) && n >= 0)
    assert.strictEqual(n === 0, text === "")
    assert.isAtMost(n, Buffer.byteLength(text, "utf8"))
  }, { fastCheck: { numRuns: 300 } })

  it.prop("the count is the length of an encoding that decodes back to the text, special-token markers included", [sessionText], ([text]) => {
    const tokens = encode(text, plainText)
    assert.strictEqual(bpe.count(text), tokens.length)
    assert.strictEqual(decode(tokens), text)
  }, { fastCheck: { numRuns: 300 } })

  it.prop(
    "two prose texts joined at a line break count at most their two counts plus one, the line break",
    [fc.lorem({ maxCount: 20 }), fc.lorem({ maxCount: 20 })],
    ([a, b]) => {
      assert.isAtMost(bpe.count(`${a}\n${b}`), bpe.count(a) + bpe.count(b) + 1)
    },
    { fastCheck: { numRuns: 300 } }
  )
})
