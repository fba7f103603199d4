import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import { countTokens, decode, encode } from "gpt-tokenizer/encoding/o200k_base"
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants"
import * as TokenizerBpe from "../../../../src/face/layers/TokenizerBpe.js"
import * as Tokenizer from "../../../../src/face/services/Tokenizer.js"
import { prop } from "../../../support/Property.js"

const plainText = { disallowedSpecial: new Set<string>() }

// The service outside an Effect, for the synchronous property tests.
const bpe = await Effect.runPromise(TokenizerBpe.make)

/** Text with special-token markers and agent-session fragments mixed into arbitrary Unicode. */
const sessionText = fc
  .array(
    fc.oneof(
      fc.fullUnicodeString({ maxLength: 40 }),
      fc.constantFrom(
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<|fim_prefix|>",
        "<|endofprompt|>",
        "\n",
        "  ",
        "\t"
      ),
      fc.constantFrom(
        "{\"protocol\":\"agentic-workspace/v1\",\"ok\":true}",
        "export const x = 1;",
        "job_0000beef exited 0",
        "Let me check."
      )
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

  prop("the count is a non-negative integer, 0 exactly for the empty text, and at most one token per UTF-8 byte", [
    sessionText
  ], ([text]) => {
    const n = bpe.count(text)
    assert.isTrue(Number.isInteger(n) && n >= 0)
    assert.strictEqual(n === 0, text === "")
    assert.isAtMost(n, Buffer.byteLength(text, "utf8"))
  }, { fastCheck: { numRuns: 300 } })

  prop("the count is the length of an encoding that decodes back to the text, special-token markers included", [
    sessionText
  ], ([text]) => {
    const tokens = encode(text, plainText)
    assert.strictEqual(bpe.count(text), tokens.length)
    assert.strictEqual(decode(tokens), text)
  }, { fastCheck: { numRuns: 300 } })

  prop(
    "two prose texts joined at a line break count at most their two counts plus one, the line break",
    [fc.lorem({ maxCount: 20 }), fc.lorem({ maxCount: 20 })],
    ([a, b]) => {
      assert.isAtMost(bpe.count(`${a}\n${b}`), bpe.count(a) + bpe.count(b) + 1)
    },
    { fastCheck: { numRuns: 300 } }
  )

  /** The longest pre-token of a text, by the `o200k_base` pattern. */
  const longestPreToken = (text: string): number => {
    let longest = 0
    for (const [piece] of text.matchAll(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "gu"))) {
      longest = Math.max(longest, piece.length)
    }
    return longest
  }

  /** Runs of one character between ordinary words: the inputs whose whole count is quadratic. */
  const pathological = fc
    .array(
      fc.oneof(
        fc.lorem({ maxCount: 8 }),
        fc.tuple(
          fc.constantFrom("[", "=", "a", " ", "\n", "/\n", "é", "😀", "\u0301"),
          fc.integer({ min: 1, max: 900 })
        )
          .map(([unit, times]) => unit.repeat(times))
      ),
      { maxLength: 6 }
    )
    .map((parts) => parts.join(""))

  prop(
    "no piece handed to the byte-pair merge holds a pre-token past the limit, and the pieces are the text in order",
    [pathological],
    ([text]) => {
      const pieces: Array<string> = []
      const count = TokenizerBpe.countLinear((piece) => {
        pieces.push(piece)
        return countTokens(piece, plainText)
      }, O200K_TOKEN_SPLIT_REGEX)(text)
      assert.strictEqual(pieces.join(""), text)
      for (const piece of pieces) assert.isAtMost(longestPreToken(piece), TokenizerBpe.longPreToken)
      assert.strictEqual(count, pieces.reduce((sum, piece) => sum + countTokens(piece, plainText), 0))
    },
    { fastCheck: { numRuns: 100 } }
  )

  prop(
    "the count is exact for a text without a long pre-token, and within one token per slice of the exact count for one with it",
    [pathological],
    ([text]) => {
      const exact = countTokens(text, plainText)
      const counted = bpe.count(text)
      if (longestPreToken(text) <= TokenizerBpe.longPreToken) {
        assert.strictEqual(counted, exact)
      } else {
        const slices = Math.ceil(text.length / TokenizerBpe.longPreToken) + 2
        assert.isAtMost(Math.abs(counted - exact), slices)
      }
    },
    { fastCheck: { numRuns: 100 } }
  )

  it("counts 200,000 `[` (`[[` is one token) as 100,000 tokens", () => {
    assert.strictEqual(bpe.count("[".repeat(200_000)), 100_000)
  })
})
