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
import * as TokenCount from "../../core/services/TokenCount.js"
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
 * The length from which a pre-token is counted in slices.
 *
 * @since 0.1.0
 * @category constants
 */
export const longPreToken: number = TokenCount.longPreToken

/**
 * A count that is linear in the text (`core/services/TokenCount`): exact when the text holds no long pre-token.
 *
 * @since 0.1.0
 * @category utils
 */
export const countLinear: (countWhole: (text: string) => number, splitPattern: RegExp) => (text: string) => number =
  TokenCount.countLinear

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
    Tokenizer.Tokenizer.of({
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
