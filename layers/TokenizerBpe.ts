/**
 * The exact tokenizer of OpenAI's current models: byte-pair encoding with the
 * `o200k_base` vocabulary (GPT-4o, GPT-4.1, o-series, GPT-5), by
 * `gpt-tokenizer`. Exact where the approximate tokenizer guesses, at the cost
 * of loading the vocabulary and of encoding every text once (the engine
 * caches the count per message). Text that looks like a special token, such
 * as `<|endoftext|>` in a transcript, is counted as the plain text it is.
 * The vocabulary (a few megabytes of JavaScript) is imported when the layer
 * is built, not when the module is: the package's own copy of it
 * (`#o200k_base`, vendored from `gpt-tokenizer` by `scripts/vendor-tokenizer.mjs`
 * so that no other vocabulary is installed), or `gpt-tokenizer`'s in a
 * checkout that has not been built.
 *
 * The merging of byte pairs costs the square of a pre-token's length (a run of
 * 200,000 `[` took 18 s), so a pre-token longer than {@link longPreToken}
 * characters is counted in slices of that length: the count stays linear in
 * the text, exact for every text without such a run and within one token per
 * slice for one with it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tokenizer from "../services/Tokenizer.js"

type Encoding = typeof import("gpt-tokenizer/encoding/o200k_base") & {
  /** The pattern that splits text into pre-tokens before merging. */
  readonly O200K_TOKEN_SPLIT_REGEX: RegExp
}

// A specifier in a variable: the vendored file has no declarations, and bundlers leave it to Node,
// which resolves it through the package's `imports` wherever the importing file ends up in the package.
const vendored: string = "#o200k_base"

/** The vendored vocabulary; gpt-tokenizer's where it is not built (a checkout before `npm run build`). */
const load = (): Promise<Encoding> =>
  (import(vendored) as Promise<Encoding>).catch(() =>
    Promise.all([import("gpt-tokenizer/encoding/o200k_base"), import("gpt-tokenizer/encodingParams/constants")]).then((
      [encoding, constants]
    ) => ({
      ...encoding,
      O200K_TOKEN_SPLIT_REGEX: constants.O200K_TOKEN_SPLIT_REGEX
    }))
  )

// No special token is recognised: a transcript quoting `<|endoftext|>` is text, and must not throw.
const plainText = { disallowedSpecial: new Set<string>() }

/**
 * The longest pre-token (a piece of text the `o200k_base` pattern splits off
 * before merging) counted whole; a longer one is counted in slices of this
 * many characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const longPreToken = 256

// Every pre-token longer than `longPreToken` holds a run of at least this many
// characters of one class (letters, punctuation, whitespace, or the `[\r\n/]`
// tail of a punctuation pre-token): a text without one has no long pre-token
// and is counted whole, exactly.
const runLength = Math.floor(longPreToken / 2) - 4

const isAsciiLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
const isAsciiDigit = (code: number): boolean => code >= 48 && code <= 57
const isAsciiSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13)

/**
 * Whether a text may hold a pre-token longer than {@link longPreToken}: one
 * pass over its character codes, cheaper than a regular expression. A
 * character past ASCII continues every run (it may be a letter, a mark, a
 * symbol or a space), so the answer errs only towards yes.
 */
const mayHoldLongPreToken = (text: string): boolean => {
  let letters = 0
  let punctuation = 0
  let spaces = 0
  let tail = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 128) {
      letters++
      punctuation++
      spaces++
      tail = 0
    } else if (isAsciiLetter(code)) {
      letters++
      punctuation = spaces = tail = 0
    } else if (isAsciiDigit(code)) {
      letters =
        punctuation =
        spaces =
        tail =
          0
    } else if (isAsciiSpace(code)) {
      spaces++
      letters = punctuation = 0
      tail = code === 10 || code === 13 ? tail + 1 : 0
    } else {
      punctuation++
      letters = spaces = 0
      tail = code === 47 ? tail + 1 : 0
    }
    if (letters >= runLength || punctuation >= runLength || spaces >= runLength || tail >= runLength) return true
  }
  return false
}

/** The end of a slice starting at `from`, never between the halves of a surrogate pair. */
const sliceEnd = (text: string, from: number, end: number): number => {
  const to = Math.min(from + longPreToken, end)
  const code = text.charCodeAt(to - 1)
  return to < end && code >= 0xd800 && code <= 0xdbff ? to - 1 : to
}

/**
 * A count that is linear in the text: `countWhole` on every stretch between
 * pre-tokens (split by `splitPattern`, the encoding's) longer than
 * {@link longPreToken}, and on each slice of those.
 * Exact (the same as `countWhole(text)`) when the text holds no such
 * pre-token, since byte pairs never merge across pre-tokens.
 *
 * @since 0.1.0
 * @category utils
 */
export const countLinear = (countWhole: (text: string) => number, splitPattern: RegExp) => (text: string): number => {
  if (text === "") return 0
  if (text.length <= longPreToken || !mayHoldLongPreToken(text)) return countWhole(text)
  const preTokens = new RegExp(splitPattern.source, "gu")
  let total = 0
  let cut = 0
  for (const match of text.matchAll(preTokens)) {
    const piece = match[0]
    if (piece.length <= longPreToken) continue
    const start = match.index
    const end = start + piece.length
    if (start > cut) total += countWhole(text.slice(cut, start))
    for (let from = start; from < end;) {
      const to = sliceEnd(text, from, end)
      total += countWhole(text.slice(from, to))
      from = to
    }
    cut = end
  }
  if (cut < text.length) total += countWhole(text.slice(cut))
  return total
}

/**
 * The `o200k_base` tokenizer service, named `o200k_base`: imports the
 * vocabulary (once per process), counts special-token markers as plain text
 * and pre-tokens past {@link longPreToken} characters in slices.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Tokenizer.Service> = Effect.map(
  Effect.promise(load),
  ({ countTokens, O200K_TOKEN_SPLIT_REGEX }): Tokenizer.Service =>
    Tokenizer.make({
      name: "o200k_base",
      count: countLinear((text) => countTokens(text, plainText), O200K_TOKEN_SPLIT_REGEX)
    })
).pipe(Effect.withSpan("TokenizerBpe.make"))

/**
 * Provides the `o200k_base` `Tokenizer`.
 *
 * @example
 * ```ts
 * import { TokenizerBpe } from "context-compressor/layers"
 * import { Tokenizer } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // The o200k_base count of the GPT-4o and GPT-5 models.
 * const count = Effect.map(Tokenizer.Tokenizer, (tokenizer) => tokenizer.count("Run the parser tests."))
 * console.log(await Effect.runPromise(Effect.provide(count, TokenizerBpe.layer)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer> = Layer.effect(Tokenizer.Tokenizer, make)
